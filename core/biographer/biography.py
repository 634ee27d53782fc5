"""The biographer at work on this corpus: chat turns, reading new sources part by part,
analysis, and consolidation, on the configured backend."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from datetime import datetime

from core.biographer.citations import flag_invented, source_ids
from core.biographer.codex_turn import CodexTurn
from core.biographer.consolidate import rewrite
from core.biographer.context import CHARS_PER_TOKEN
from core.biographer.loop import AgentLoop
from core.biographer.profile import Profile
from core.biographer.profile_text import changed_sections, citations
from core.biographer.tools import Toolbox
from core.biographer.turn import Biographer, Runner, StepFn, TurnResult
from core.errors import BiomdError, NotFound
from core.models.backend import Backend
from core.models.llm import TurnModel
from core.retrieval.search import Searcher
from core.settings import Settings
from core.storage.chat import ChatMessage
from core.storage.reading import Reading, SetAside
from core.storage.store import Store

log = logging.getLogger(__name__)


class Biography:
    def __init__(
        self,
        settings: Settings,
        store: Store,
        searcher: Searcher,
        profile: Profile,
        backend: Backend,
    ) -> None:
        self.settings = settings
        self.store = store
        self.searcher = searcher
        self.profile = profile
        self.backend = backend

    @property
    def configured(self) -> bool:
        """Whether a language model can be called at all."""
        return self.backend.configured

    @property
    def missing(self) -> str:
        """What to do to set the model up, when it is not configured."""
        return self.backend.missing

    def model(self) -> TurnModel:
        """The configured model; LLMNotConfigured says what to set when there is none."""
        return self.backend.model()

    def toolbox(
        self,
        turn_id: int,
        mode: str,
        document_id: int | None = None,
        chat_dates: frozenset[str] = frozenset(),
    ) -> Toolbox:
        """The tools of one turn (here, or in the Codex turn's tool server)."""
        return Toolbox(
            self.searcher,
            self.profile,
            self.settings.read_max_chars,
            turn_id,
            mode,
            chat_dates=chat_dates,
            document_id=document_id,
        )

    def biographer(self, chat_dates: frozenset[str] = frozenset()) -> Biographer:
        """Turns on the backend's runner: Codex runs its own tool loop, any other model runs
        in biomd's."""
        s = self.settings
        model = self.model()
        cli = self.backend.turn_cli()
        runner: Runner = (
            CodexTurn(cli, s) if cli else AgentLoop(model, s.llm_max_tokens, s.turn_timeout)
        )

        def toolbox(turn_id: int, mode: str, document_id: int | None) -> Toolbox:
            return self.toolbox(turn_id, mode, document_id, chat_dates)

        return Biographer(
            runner,
            model,
            toolbox,
            self.profile.load,
            self.store,
            bio_budget=s.bio_max_chars,
            owner_names=s.owner_list,
            chat_dates=chat_dates,
        )

    async def chat_dates(self, today: bool = False) -> frozenset[str]:
        """The days the owner wrote in the chat, in their time zone (what [chat YYYY-MM-DD]
        may cite); with `today`, today too (the message being answered)."""
        zone = self.settings.zone
        days = {
            datetime.fromisoformat(at).astimezone(zone).date().isoformat()
            for at in await self.store.chat.owner_times()
        }
        if today:
            days.add(datetime.now(zone).date().isoformat())
        return frozenset(days)

    async def _real_source(self, doc_id: int) -> bool:
        doc = await self.store.documents.get(doc_id)
        return doc is not None and doc.status == "ready"

    # -- chat -----------------------------------------------------------------------------

    async def chat(self, limit: int = 200) -> list[ChatMessage]:
        """The conversation with the owner, its last `limit` messages."""
        return await self.store.chat.recent(limit)

    async def chat_tail(self) -> list[dict[str, str]]:
        n = self.settings.chat_tail
        if n == 0:
            return []
        return [{"role": m.role, "content": m.content} for m in await self.store.chat.recent(n)]

    async def ask(self, message: str, on_step: StepFn | None = None) -> TurnResult:
        """One chat turn; the exchange joins the chat tail. Citations of sources that don't
        exist, or that neither this turn nor bio.md has seen, are flagged in the answer (and
        so in the tail, where they can't pass for facts)."""
        await self.make_room()
        tail = await self.chat_tail()
        dates = await self.chat_dates(today=True)
        result = await self.biographer(dates).run(
            "chat", message, steps=self.settings.steps_chat, chat_tail=tail, on_step=on_step
        )
        known = citations(await self.profile.load()) | result.seen
        known |= {i for m in tail for i in source_ids(m["content"])}
        real = {i for i in source_ids(result.report) if await self._real_source(i)}
        result.report, invented = flag_invented(
            result.report, lambda i: i in real and i in known, set(dates)
        )
        if invented:
            result.report += (
                f"\n\n(biomd: {', '.join(invented)} "
                f"{'is' if len(invented) == 1 else 'are'} not among your sources or chat; "
                "what rests on it is unsupported.)"
            )
        await self.store.chat.add_exchange(message, result.report, result.turn_id)
        return result

    # -- analysis -------------------------------------------------------------------------

    async def analyse(
        self, document_id: int | None = None, focus: str = "", on_step: StepFn | None = None
    ) -> TurnResult:
        if focus:
            request = focus
        elif document_id is not None:
            doc = await self.store.documents.get(document_id)
            if doc is None:
                raise NotFound(f"There is no source #{document_id}.")
            name = doc.name
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

    async def pending(self, include_set_aside: bool = False) -> list[Reading]:
        """Sources waiting to be read; with `include_set_aside`, those given up on too."""
        return await self.store.reading.pending(include_set_aside)

    async def set_aside(self) -> list[SetAside]:
        """Sources the biographer gave up on, and why."""
        return await self.store.reading.set_aside()

    async def read_pending(
        self,
        on_step: StepFn | None = None,
        *,
        on_part: Callable[[Reading, int, int], Awaitable[None]] | None = None,
        only: set[int] | None = None,
        retry: bool = False,
    ) -> list[TurnResult]:
        """Reading turns for every source not read yet (or those in `only`); a long one in
        parts, resumably. A part counts as read only when the turn's read_source calls
        covered it; otherwise the source stays waiting, with the reason, and after
        BIOMD_READ_ATTEMPTS turns that read nothing it is set aside and reported. `retry`
        gives set-aside sources another round."""
        results = []
        part = self.settings.reading_part_chars
        if retry:
            await self.store.reading.retry(only)
        for reading in await self.pending():
            if only is not None and reading.document_id not in only:
                continue
            if reading.text_length == 0:
                await self._progress(reading.document_id, 0, True)
                continue
            offset = reading.next_offset
            while offset < reading.text_length:
                await self.make_room()
                end = min(reading.text_length, offset + part)
                if on_part:
                    await on_part(reading, offset, end)
                result = await self.biographer().run(
                    "reading",
                    reading_request(reading, offset, end),
                    steps=self.settings.steps_reading,
                    document_id=reading.document_id,
                    on_step=on_step,
                )
                results.append(result)
                reached = covered_to(result.read.get(reading.document_id, []), offset)
                if reached >= end:
                    offset = end
                    done = offset >= reading.text_length
                    await self._progress(reading.document_id, offset, done)
                    result.reading = _read_note(reading, offset, done)
                    continue
                gave_up = await self._not_read(reading, offset, reached, end)
                result.reading = gave_up
                if reached <= offset:
                    break  # tried again on the next round, or set aside
                offset = reached
        if results:
            await self.keep_within_budget()
        return results

    async def _not_read(self, reading: Reading, offset: int, reached: int, end: int) -> str:
        """Record a turn that did not read its part: progress kept, attempts counted, the
        source set aside past the limit. What to tell the owner."""
        name = f"#{reading.document_id} {reading.name}"
        if reached > offset:
            why = f"read only to character {reached:,} of {reading.text_length:,}"
            await self._progress(reading.document_id, reached, False, error=why)
            return f"{name} partly read ({why}); the rest waits for the next round"
        why = "the biographer did not read it (no read_source call covered it)"
        attempt = await self.store.reading.not_read(
            reading.document_id, why, self.settings.read_attempts
        )
        attempts, gave_up = attempt.attempts, attempt.gave_up
        if gave_up:
            return (
                f"{name} not read: {why}, {attempts} times; set aside (`biomd analyse "
                "--pending --retry` tries again)"
            )
        return f"{name} not read: {why}; it stays waiting (attempt {attempts})"

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

    async def _progress(
        self, document_id: int, offset: int, done: bool, error: str | None = None
    ) -> None:
        await self.store.reading.progress(document_id, offset, done, error)

    async def make_room(self) -> None:
        """Consolidate first when bio.md alone would take most of the model's context
        window, so that a turn still has room to read and think."""
        window = await self.model().context_tokens()
        room = int(window * 0.45 * CHARS_PER_TOKEN)
        if len(await self.profile.load()) <= room:
            return
        try:
            await self.consolidate(target=min(self.settings.bio_max_chars, int(room * 0.8)))
        except BiomdError as exc:
            log.warning(
                "bio.md is too big for the model's context and was not consolidated: %s", exc
            )

    async def mark_read(self, document_id: int) -> None:
        await self._progress(document_id, 0, True)

    # -- consolidation --------------------------------------------------------------------

    async def consolidate(self, target: int | None = None) -> list[str]:
        """Rewrite bio.md as one coherent document (of about `target` characters, or
        BIOMD_BIO_MAX_CHARS); the sections that changed."""
        model = self.model()
        await model.check_budget()
        before = await self.profile.load()
        turn_id = await self.store.turns.start("consolidate", "consolidate bio.md")
        model.turn_id = turn_id
        try:
            budget = target or self.settings.bio_max_chars
            longest = max(self.settings.llm_max_tokens, int(len(before) / 2.5))
            after = await rewrite(model, before, budget, max_tokens=longest)
        except BaseException as exc:
            await self._end_turn(turn_id, "failed", str(exc)[:500])
            raise
        finally:
            model.turn_id = None
        await self.profile.replace(after, turn_id=turn_id, mode="consolidate", reason="consolidate")
        await self._end_turn(turn_id, "done", None)
        return changed_sections(before, after)

    async def _end_turn(self, turn_id: int, status: str, error: str | None) -> None:
        await self.store.turns.finish(turn_id, status, error=error)


def covered_to(ranges: list[tuple[int, int]], start: int) -> int:
    """How far from `start` the read ranges cover the text without a gap."""
    reached = start
    for lo, hi in sorted(ranges):
        if lo > reached:
            break
        reached = max(reached, hi)
    return reached


def _read_note(reading: Reading, offset: int, done: bool) -> str:
    if done:
        return f"read #{reading.document_id}"
    return f"read #{reading.document_id} to character {offset:,} of {reading.text_length:,}"


def reading_request(reading: Reading, start: int, end: int) -> str:
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
