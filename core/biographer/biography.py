"""The biographer at work on this corpus: chat turns, reading new sources part by part,
analysis, answers to open questions, and consolidation."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from core.biographer.agent import Biographer, StepFn, TurnResult
from core.biographer.consolidate import rewrite
from core.biographer.profile import Profile
from core.biographer.profile_text import changed_sections
from core.biographer.tools import Toolbox
from core.errors import BiomdError
from core.models.ledger import Ledger
from core.models.llm import OpenAIChat
from core.retrieval.search import Searcher
from core.settings import Settings
from core.storage.store import Store, utc_now

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Reading:
    """A source still to be read by the biographer, and how far it got."""

    document_id: int
    name: str
    kind: str
    text_length: int
    next_offset: int
    content_start: str | None
    content_end: str | None


class Biography:
    def __init__(
        self,
        settings: Settings,
        store: Store,
        searcher: Searcher,
        profile: Profile,
        ledger: Ledger,
    ) -> None:
        self.settings = settings
        self.store = store
        self.searcher = searcher
        self.profile = profile
        self.ledger = ledger
        self._model: OpenAIChat | None = None

    def model(self) -> OpenAIChat:
        """The configured model; LLMNotConfigured says what to set when there is none."""
        if self._model is None:
            self._model = OpenAIChat(self.settings, self.ledger)
        return self._model

    def biographer(self) -> Biographer:
        return Biographer(
            self.model(), self._toolbox, self.profile.load, self.store, self.settings.bio_max_chars
        )

    def _toolbox(self, turn_id: int, mode: str) -> Toolbox:
        return Toolbox(self.searcher, self.profile, self.settings.read_max_chars, turn_id, mode)

    # -- chat -----------------------------------------------------------------------------

    async def chat_tail(self) -> list[dict[str, str]]:
        n = self.settings.chat_tail
        if n == 0:
            return []
        rows = await self.store.fetchall(
            "SELECT role, content FROM chat_messages ORDER BY id DESC LIMIT ?", (n,)
        )
        return [{"role": str(r[0]), "content": str(r[1])} for r in reversed(rows)]

    async def ask(self, message: str, on_step: StepFn | None = None) -> TurnResult:
        """One chat turn; the exchange joins the chat tail."""
        tail = await self.chat_tail()
        result = await self.biographer().run(
            "chat", message, steps=self.settings.steps_chat, chat_tail=tail, on_step=on_step
        )
        async with self.store.transaction() as db:
            await db.executemany(
                "INSERT INTO chat_messages(at, role, content, turn_id) VALUES (?, ?, ?, ?)",
                [
                    (utc_now(), "user", message, result.turn_id),
                    (utc_now(), "assistant", result.report, result.turn_id),
                ],
            )
        return result

    # -- analysis -------------------------------------------------------------------------

    async def analyse(
        self, document_id: int | None = None, focus: str = "", on_step: StepFn | None = None
    ) -> TurnResult:
        if focus:
            request = focus
        elif document_id is not None:
            doc = await self.searcher.store.document(document_id)
            name = doc.name if doc else "?"
            request = (
                f"Analyse source #{document_id} ({name!r}) against everything else: what does "
                "it connect to, confirm or contradict?"
            )
        else:
            request = "Analyse the whole corpus for patterns bio.md does not have yet."
        result = await self.biographer().run(
            "analysis",
            request,
            steps=self.settings.steps_analysis,
            document_id=document_id,
            on_step=on_step,
        )
        await self.keep_within_budget()
        return result

    # -- reading new sources --------------------------------------------------------------

    async def pending(self) -> list[Reading]:
        rows = await self.store.fetchall(
            "SELECT d.id, d.name, d.kind, d.text_length, q.next_offset, d.content_start,"
            " d.content_end FROM reading_queue q JOIN documents d ON d.id = q.document_id"
            " WHERE q.done_at IS NULL AND d.status = 'ready' ORDER BY d.id"
        )
        return [Reading(*r) for r in rows]

    async def read_pending(
        self,
        on_step: StepFn | None = None,
        on_part: Callable[[Reading, int, int], Awaitable[None]] | None = None,
        only: set[int] | None = None,
    ) -> list[TurnResult]:
        """Ingest turns for every source not read yet (or those in `only`); a long one in
        parts, resumably."""
        results = []
        part = self.settings.ingest_part_chars
        for reading in await self.pending():
            if only is not None and reading.document_id not in only:
                continue
            offset = reading.next_offset
            while offset < reading.text_length:
                end = min(reading.text_length, offset + part)
                if on_part:
                    await on_part(reading, offset, end)
                result = await self.biographer().run(
                    "ingest",
                    ingest_request(reading, offset, end),
                    steps=self.settings.steps_ingest,
                    document_id=reading.document_id,
                    on_step=on_step,
                )
                results.append(result)
                offset = end
                await self._progress(reading.document_id, offset, offset >= reading.text_length)
            if reading.text_length == 0:
                await self._progress(reading.document_id, 0, True)
        if results:
            await self.keep_within_budget()
        return results

    async def keep_within_budget(self) -> bool:
        """Consolidate bio.md when it has grown past BIOMD_BIO_MAX_CHARS; True if it did."""
        if len(await self.profile.load()) <= self.settings.bio_max_chars:
            return False
        try:
            await self.consolidate()
        except BiomdError as exc:  # the guard refused, or the model failed: keep bio.md
            log.warning("bio.md is over its size budget and was not consolidated: %s", exc)
            return False
        return True

    async def _progress(self, document_id: int, offset: int, done: bool) -> None:
        async with self.store.transaction() as db:
            await db.execute(
                "UPDATE reading_queue SET next_offset = ?, done_at = ? WHERE document_id = ?",
                (offset, utc_now() if done else None, document_id),
            )

    async def mark_read(self, document_id: int) -> None:
        await self._progress(document_id, 0, True)

    # -- consolidation --------------------------------------------------------------------

    async def consolidate(self) -> list[str]:
        """Rewrite bio.md as one coherent document; the sections that changed."""
        model = self.model()
        await model.check_budget()
        before = await self.profile.load()
        async with self.store.transaction() as db:
            cur = await db.execute(
                "INSERT INTO turns(mode, started_at, request) VALUES ('consolidate', ?, ?)",
                (utc_now(), "consolidate bio.md"),
            )
            turn_id = cur.lastrowid
        model.turn_id = turn_id
        try:
            after = await rewrite(model, before, self.settings.bio_max_chars)
        except BaseException as exc:
            await self._end_turn(turn_id, "failed", str(exc)[:500])
            raise
        finally:
            model.turn_id = None
        await self.profile.replace(after, turn_id=turn_id, mode="consolidate", reason="consolidate")
        await self._end_turn(turn_id, "done", None)
        return changed_sections(before, after)

    async def _end_turn(self, turn_id: int | None, status: str, error: str | None) -> None:
        async with self.store.transaction() as db:
            await db.execute(
                "UPDATE turns SET finished_at = ?, status = ?, error = ? WHERE id = ?",
                (utc_now(), status, error, turn_id),
            )


def ingest_request(reading: Reading, start: int, end: int) -> str:
    """The message of an ingest turn for one part of a source."""
    dates = (
        f", dated {reading.content_start} to {reading.content_end}" if reading.content_start else ""
    )
    whole = start == 0 and end >= reading.text_length
    part = (
        "the whole of it"
        if whole
        else f"characters {start:,} to {end:,} of {reading.text_length:,} (one part; other "
        "parts are read in other turns)"
    )
    return (
        f"New source #{reading.document_id}: {reading.name!r} ({reading.kind}, "
        f"{reading.text_length:,} characters{dates}). Read {part} with read_source, starting "
        f"at offset {start}, and place what it tells about the owner in bio.md."
    )
