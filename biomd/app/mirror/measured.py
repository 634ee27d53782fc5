"""The measured side's I/O: each chat source parsed once and kept (`mirror_messages`), made
again when the parse's version or the owner's names change; the figures and findings over
every ready chat source, kept in memory for as long as the set of sources is the same (a
new source or a forget makes them again), with the quotes of their evidence read from the
sources and checked."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from dataclasses import dataclass, replace

from biomd.app.mirror.dynamics import Dynamics, measure
from biomd.app.mirror.findings import PER_SIDE, Finding, Quote, cut, find
from biomd.app.mirror.messages import VERSION, ParsedChats, Parser
from biomd.ingest.convert import chat_kinds
from biomd.storage.mirror import ParsedChat
from biomd.storage.store import Store

log = logging.getLogger(__name__)

BATCH = 2000  # chunks read at a time: a 50 MB export is never in memory twice


@dataclass
class Measured:
    """Everyone's figures and the findings, for one set of sources."""

    dynamics: Dynamics
    findings: list[Finding]
    dropped: int  # findings left with no verified evidence
    parsed: dict[int, ParsedChats]  # each chat source's messages (where a note's quote is)


class MeasuredSide:
    def __init__(self, silence_hours: float, owner_names: tuple[str, ...], store: Store) -> None:
        """A silence is `silence_hours` long at least (BIOMD_MIRROR_SILENCE_HOURS)."""
        self.silence_hours = silence_hours
        self.owner_names = owner_names
        self.store = store
        self._memo: tuple[object, Measured] | None = None
        self._lock = asyncio.Lock()

    async def chat_sources(self) -> list[int]:
        """The ready sources that are chats between people."""
        return [d.id for d in await self.store.documents.all("ready") if d.kind in chat_kinds()]

    async def get(self) -> Measured:
        """The figures and findings now (made again only when the sources changed)."""
        async with self._lock:
            ids = await self.chat_sources()
            key = (tuple(ids), self.silence_hours, self.owner_names)
            if self._memo is not None and self._memo[0] == key:
                return self._memo[1]
            parsed = await self._parsed(ids)
            dynamics = await asyncio.to_thread(measure, parsed, self.silence_hours)
            findings = await asyncio.to_thread(find, dynamics)
            kept, dropped = await self._quoted(findings)
            measured = Measured(dynamics, kept, dropped, dict(parsed))
            self._memo = (key, measured)
            return measured

    async def warm(self) -> None:
        """Parse what is new now, so the page opens at once later."""
        await self.get()

    async def _parsed(self, ids: Sequence[int]) -> list[tuple[int, ParsedChats]]:
        owners = self.owner_names
        cached = await self.store.mirror.parsed(ids)
        out = []
        for doc_id in ids:
            row = cached.get(doc_id)
            parsed = None
            if row is not None and row.version == VERSION:
                parsed = await asyncio.to_thread(ParsedChats.load, row.chats, row.data)
                if parsed.owners != owners:
                    parsed = None
            if parsed is None:
                parsed = await self._parse(doc_id, owners)
            out.append((doc_id, parsed))
        return out

    async def _parse(self, doc_id: int, owners: tuple[str, ...]) -> ParsedChats:
        """Read one source's text a batch of chunks at a time, and keep what was parsed."""
        parser = Parser(owners)
        at = 0
        while True:
            batch = await self.store.chunks.spans_from(doc_id, at, BATCH)
            if not batch:
                break
            await asyncio.to_thread(_feed, parser, batch)
            at = batch[-1][0] + 1
        parsed = parser.finish()
        chats, data = await asyncio.to_thread(parsed.dump)
        await self.store.mirror.keep_parsed(ParsedChat(doc_id, VERSION, chats, data))
        log.debug("mirror: parsed source #%d, %d messages", doc_id, parsed.size)
        return parsed

    async def _quoted(self, findings: list[Finding]) -> tuple[list[Finding], int]:
        """Each finding with its quotes read from the sources: on each side the first
        PER_SIDE offered whose text is there and says something the others don't, in time
        order. A finding left with nothing on one side is dropped."""
        kept, dropped = [], 0
        for f in findings:
            quotes: list[Quote] = []
            for side in ("before", "after"):
                quotes += await self._side([q for q in f.evidence if q.side == side])
            if {"before", "after"} - {q.side for q in quotes}:
                dropped += 1
                continue
            quotes.sort(key=lambda q: q.date)
            kept.append(replace(f, evidence=tuple(quotes)))
        return kept, dropped

    async def _side(self, offered: list[Quote]) -> list[Quote]:
        out: list[Quote] = []
        said: set[str] = set()
        for q in offered:
            read = await self.quote(q)
            words = " ".join(read.quote.casefold().split()) if read is not None else ""
            if read is None or words in said:
                continue
            said.add(words)
            to = await self.quote(q.to) if q.to is not None else None
            out.append(replace(read, to=to))
            if len(out) == PER_SIDE:
                break
        return out

    async def quote(self, q: Quote) -> Quote | None:
        """A message's quote, read from its source and cut to length; None unless the span
        is exactly one message's text (after its `Name: `, up to the end of its line)."""
        around = await self.store.chunks.text(q.source_id, q.start - 2, q.end + 1)
        text = around[2:]
        if text.endswith("\n"):
            text = text[:-1]
        if around[:2] != ": " or not text or "\n" in text or len(text) != q.end - q.start:
            return None
        shown = cut(text)
        return replace(q, quote=shown, end=q.start + len(shown))


def _feed(parser: Parser, batch: list[tuple[int, int, str]]) -> None:
    for start, _end, text in batch:
        parser.feed(text, start)
