"""The notes pass: every part of the sources waiting to be read goes to the reader model once,
and the notes whose quotes are found are kept with the part, in one transaction (so a
crash resumes with no duplicate and no loss). Small sources share a call; calls run side by
side on a cloud endpoint, one at a time on a local server; none starts once the day's spend
limit is reached."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field

from biomd.biographer.context import CHARS_PER_TOKEN
from biomd.biographer.json_reply import Unreadable
from biomd.biographer.reading import filler, reader
from biomd.biographer.reading.reader import Part
from biomd.biographer.reading.scope import complement
from biomd.errors import ContextExceeded, LLMError, SpendLimitReached
from biomd.models.llm import JsonModel
from biomd.storage.reading import Reading
from biomd.storage.store import Store

log = logging.getLogger(__name__)

SMALLEST_PART = 1_500  # characters: a part that fails is halved down to this
OVERHEAD_TOKENS = 1_200  # the reader's instructions and schema, roughly
CHARS_PER_NOTE_TOKEN = 8  # source characters per token of the reader's reply, densest case
STRETCH = 4  # a part of chat may cover this many times its size, so what is sent fills it


@dataclass
class NotesReport:
    """What one notes pass did."""

    calls: int = 0
    parts: int = 0
    kept: int = 0
    dropped: int = 0
    failed: list[str] = field(default_factory=list)  # why parts could not be noted


@dataclass(frozen=True)
class ReaderPlan:
    """How big a reader's request may be, from its context window."""

    part_chars: int
    max_tokens: int
    part_tokens: int = 0  # the most a part may count in the model's tokens (0: no limit)

    @classmethod
    def for_window(cls, window_tokens: int, part_chars: int, max_tokens: int) -> ReaderPlan:
        """Parts that fit the window beside the instructions and the reply, and whose notes
        fit the reply (a dense part gives a note per ~600 characters, ~75 tokens each)."""
        reply = min(max_tokens, max(512, window_tokens // 4))
        tokens = window_tokens - reply - OVERHEAD_TOKENS
        room = min(int(tokens * CHARS_PER_TOKEN), reply * CHARS_PER_NOTE_TOKEN)
        return cls(max(min(SMALLEST_PART, part_chars), min(part_chars, room)), reply, tokens)


class NotesPass:
    def __init__(
        self,
        store: Store,
        model: JsonModel,
        *,
        part_chars: int,
        max_tokens: int,
        concurrency: int,
        attempts: int,
        owner_names: Sequence[str] = (),
    ) -> None:
        self.store = store
        self.model = model
        self.part_chars = part_chars
        self.max_tokens = max_tokens
        self.concurrency = max(1, concurrency)
        self.attempts = attempts
        self.system = reader.system_prompt(owner_names)
        self.chars_per_token = CHARS_PER_TOKEN  # the fewest a part was counted at

    async def plan(self) -> ReaderPlan:
        window = await self.model.context_tokens()
        return ReaderPlan.for_window(window, self.part_chars, self.max_tokens)

    async def parts(
        self,
        reading: Reading,
        size: int,
        skip: Sequence[tuple[int, int]] = (),
        most_tokens: int = 0,
    ) -> list[Part]:
        """The parts of a source not noted yet (nor given up on, nor outside the owner's
        choice, `skip`), cut at line breaks; with `most_tokens`, each part counted in the
        model's tokens where the model can count them, and cut shorter when it is over (chat
        text with dates and numbers runs near 3 characters a token, not 4). Sizes count what
        is sent: a part of chat covers more of it, its filler left out."""
        doc, total = reading.document_id, reading.text_length
        tried = await self.store.notes.parts(doc)
        done = [(p.start, p.end) for p in tried if p.noted or p.attempts >= self.attempts]
        done += list(skip)
        out: list[Part] = []
        for lo, hi in complement(done, total):
            at = lo
            while at < hi:
                text = await self._filled(doc, at, hi, size)
                if not text:
                    break
                if most_tokens:
                    text = await self._within(text, most_tokens)
                end = reader.cut(text, at, at + len(text), hi)
                out.append(
                    Part.of(doc, reading.name, reading.kind, at, end, total, text[: end - at])
                )
                at = end
        return out

    async def _filled(self, doc: int, at: int, hi: int, size: int) -> str:
        """The text from `at` (up to `hi`) whose sent form is about `size` characters: of a
        chat, up to STRETCH times that much."""
        text = await self.store.chunks.text(doc, at, min(hi, at + size))
        if len(text) < size or filler.sent_chars(text) >= size * 9 // 10:
            return text
        more = await self.store.chunks.text(doc, at, min(hi, at + size * STRETCH))
        return more[: filler.reach(more, size)]

    async def _within(self, text: str, most: int) -> str:
        """The start of `text` whose sent form counts at most `most` tokens (by the model's
        count); the characters per token it was counted at are kept, for packing parts."""
        for _ in range(4):
            said = filler.sent(text)
            n = await self.model.count_tokens(said)
            if n:
                self.chars_per_token = min(self.chars_per_token, len(said) / n)
            if n is None or n <= most or len(text) <= SMALLEST_PART:
                return text
            text = text[: max(SMALLEST_PART, int(len(text) * most / n * 0.95))]
        return text

    async def run(
        self,
        readings: Sequence[Reading],
        on_part: Callable[[Part], Awaitable[None]] | None = None,
        skip: Mapping[int, Sequence[tuple[int, int]]] | None = None,
    ) -> NotesReport:
        """Note every part of these sources not noted yet. SpendLimitReached, or an endpoint
        that can't be reached, stops new calls; the calls under way finish and are kept,
        and the error is raised once they have."""
        size = await self.plan()
        parts: list[Part] = []
        for reading in readings:
            left_out = (skip or {}).get(reading.document_id, ())
            parts += await self.parts(reading, size.part_chars, left_out, size.part_tokens)
        report = NotesReport()
        if not parts:
            return report
        queue: asyncio.Queue[list[Part]] = asyncio.Queue()
        packed = size.part_chars
        if size.part_tokens and self.chars_per_token < CHARS_PER_TOKEN:  # denser than guessed
            packed = min(packed, int(size.part_tokens * self.chars_per_token))
        for batch in reader.batches(parts, packed):
            queue.put_nowait(batch)
        stop: list[BaseException] = []

        async def worker() -> None:
            while not stop:
                try:
                    batch = queue.get_nowait()
                except asyncio.QueueEmpty:
                    return
                try:
                    await self._note(batch, size.max_tokens, report, queue, on_part)
                except (SpendLimitReached, LLMError) as exc:
                    stop.append(exc)

        await asyncio.gather(*(worker() for _ in range(self.concurrency)))
        if stop:
            raise stop[0]
        return report

    async def _note(
        self,
        batch: list[Part],
        max_tokens: int,
        report: NotesReport,
        queue: asyncio.Queue[list[Part]],
        on_part: Callable[[Part], Awaitable[None]] | None,
    ) -> None:
        await self.model.check_budget()
        messages = [
            {"role": "system", "content": self.system},
            {"role": "user", "content": reader.part_message(batch)},
        ]
        report.calls += 1
        try:
            # steady: a local server's likeliest notes (temperature 0); sampled, the 1.5B
            # reader kept 14 to 30 notes from one run to the next, at 0 it kept 29, none dropped
            reply = await self.model.complete_json(
                messages, reader.SCHEMA, "notes", max_tokens, steady=True
            )
        except ContextExceeded:  # the window is smaller than it was taken to be: halve it
            why = "the part was longer than the reader model's context window"
            await self._retry(batch, why, report, queue)
            return
        try:
            notes = reader.parse(reply.text)
        except Unreadable as exc:
            why = str(exc)
            if reply.finish_reason == "length":
                why = "the reader's reply was cut off at its length limit"
            await self._retry(batch, why, report, queue)
            return
        checked = reader.verify(notes, batch)
        for part in batch:
            found = checked.found.get(part.document_id, [])
            dropped = checked.dropped.get(part.document_id, 0)
            if len(batch) > 1 and not found:
                # passed over in a shared call, or given only notes whose quotes are not in
                # it (a small reader gives a source a line of another): it gets a call alone
                report.dropped += dropped
                queue.put_nowait([part])
                continue
            if dropped and not found:  # every note fell: the part was not really read
                why = f"none of the reader's {dropped} quotes was found in the source"
                await self._failed(part, why, report)
                continue
            if await self.store.notes.take(part.document_id, part.start, part.end, found, dropped):
                report.parts += 1
                report.kept += len(found)
                report.dropped += dropped
                if on_part:
                    await on_part(part)

    async def _retry(
        self, batch: list[Part], why: str, report: NotesReport, queue: asyncio.Queue[list[Part]]
    ) -> None:
        """A reply that could not be read, or a request too long for the window: a shared
        call is tried again part by part, a long part in halves; a short one counts a failed
        attempt, with why (and waits for the next round)."""
        if len(batch) > 1:
            for part in batch:
                queue.put_nowait([part])
            return
        part = batch[0]
        if part.end - part.start >= 2 * SMALLEST_PART:
            mid = reader.cut(part.text, part.start, (part.start + part.end) // 2, part.end)
            for lo, hi in ((part.start, mid), (mid, part.end)):
                text = part.text[lo - part.start : hi - part.start]
                queue.put_nowait(
                    [Part.of(part.document_id, part.name, part.kind, lo, hi, part.total, text)]
                )
            return
        await self._failed(part, why, report)

    async def _failed(self, part: Part, why: str, report: NotesReport) -> None:
        """Count a failed try at a part (it waits for the next round, or is given up on)."""
        tries = await self.store.notes.failed(part.document_id, part.start, part.end, why)
        report.failed.append(f"#{part.document_id} characters {part.start:,}-{part.end:,}: {why}")
        log.warning("reader: %s (try %d)", report.failed[-1], tries)


def describe(report: NotesReport) -> str:
    """The pass in one line, for the owner."""
    if not report.calls:
        return ""
    text = (
        f"notes: {report.kept} taken from {report.parts} part{'s' if report.parts != 1 else ''}"
        f" in {report.calls} call{'s' if report.calls != 1 else ''}"
    )
    if report.dropped:
        text += f", {report.dropped} dropped (quote not found in the source)"
    return text
