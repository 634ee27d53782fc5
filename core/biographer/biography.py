"""The biographer at work on this corpus: chat turns, reading new sources part by part,
analysis, and consolidation, on the configured backend."""

from __future__ import annotations

import logging
from datetime import datetime

from core.biographer import briefing
from core.biographer.citations import flag_invented, source_ids
from core.biographer.codex_turn import CodexTurn
from core.biographer.consolidate import rewrite
from core.biographer.context import CHARS_PER_TOKEN
from core.biographer.loop import AgentLoop
from core.biographer.notes_pass import NotesPass, describe
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
        given: frozenset[int] = frozenset(),
    ) -> Toolbox:
        """The tools of one turn (here, or in the Codex turn's tool server); `given`: the
        sources whose notes the turn's request holds."""
        return Toolbox(
            self.searcher,
            self.profile,
            self.settings.read_max_chars,
            turn_id,
            mode,
            chat_dates=chat_dates,
            document_id=document_id,
            given=given,
        )

    def biographer(
        self, chat_dates: frozenset[str] = frozenset(), given: frozenset[int] = frozenset()
    ) -> Biographer:
        """Turns on the backend's runner: Codex runs its own tool loop, any other model runs
        in biomd's."""
        s = self.settings
        model = self.model()
        cli = self.backend.turn_cli()
        runner: Runner = (
            CodexTurn(cli, s) if cli else AgentLoop(model, s.llm_max_tokens, s.turn_timeout)
        )

        def toolbox(turn_id: int, mode: str, document_id: int | None) -> Toolbox:
            return self.toolbox(turn_id, mode, document_id, chat_dates, given)

        return Biographer(
            runner,
            model,
            toolbox,
            self.profile.load,
            self.store,
            bio_budget=s.bio_max_chars,
            owner_names=s.owner_list,
            chat_dates=chat_dates,
            given=given,
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

    def notes_pass(self) -> NotesPass:
        s = self.settings
        return NotesPass(
            self.store,
            self.backend.reader(),
            part_chars=s.reading_part_chars,
            max_tokens=s.reader_max_tokens,
            concurrency=self.backend.reader_concurrency,
            attempts=s.read_attempts,
            owner_names=s.owner_list,
        )

    async def read_pending(
        self,
        on_step: StepFn | None = None,
        *,
        only: set[int] | None = None,
        retry: bool = False,
    ) -> list[TurnResult]:
        """Read every source not read yet (or those in `only`), in two passes. The reader
        takes notes of each part not noted yet, each resting on a quote found in the part
        (notes_pass.py); then reading turns take the notes into bio.md, a batch that fits
        the model's window at a time, with bio.md kept within its budget between batches.
        A source is read once all of it is noted and every note was taken in; a part the
        reader could not note in BIOMD_READ_ATTEMPTS tries sets the source aside, with the
        reason. `retry` gives set-aside sources another round. Both passes resume where a
        crash or an outage stopped them."""
        if retry:
            for doc in await self.store.reading.retry(only):
                await self.store.extracts.forget_failures(doc)
        readings = [r for r in await self.pending() if only is None or r.document_id in only]
        if not readings:
            return []
        results: list[TurnResult] = []
        try:
            report = await self.notes_pass().run([r for r in readings if r.text_length])
            await self._take_in(readings, on_step, results)
        except Exception:
            for reading in readings:  # what was taken in before the failure counts
                await self._settle(reading)
            raise
        said = {r.document_id: await self._settle(r) for r in readings}
        for result in reversed(results):  # each source's state, on its last turn
            result.reading = "; ".join(said.pop(d) for d in result.sources if d in said)
        if results:
            results[-1].reading = "; ".join(
                x for x in (results[-1].reading, *said.values(), describe(report)) if x
            )
            await self.keep_within_budget()
        return results

    async def _take_in(
        self, readings: list[Reading], on_step: StepFn | None, results: list[TurnResult]
    ) -> None:
        """Reading turns over the notes waiting, a batch at a time, each added to
        `results` as it ends."""
        by_doc = {r.document_id: r for r in readings}
        waiting = [x for r in readings for x in await self.store.extracts.waiting(r.document_id)]
        for batch in briefing.batches(waiting, await self._notes_room()):
            docs = list(dict.fromkeys(x.document_id for x in batch))
            await self.make_room()
            result = await self.biographer(given=frozenset(docs)).run(
                "reading",
                briefing.request([by_doc[d] for d in docs], batch),
                steps=self.settings.steps_reading,
                document_id=docs[0] if len(docs) == 1 else None,
                on_step=on_step,
            )
            await self.store.extracts.integrated([x.id for x in batch], result.turn_id)
            result.sources = docs
            results.append(result)
            await self.keep_within_budget()  # between batches, not only at the end

    async def _notes_room(self) -> int:
        """Characters of notes a reading turn can take beside the rules, tools and bio.md,
        within the model's window."""
        window = await self.model().context_tokens()
        free = (window - self.settings.llm_max_tokens) * CHARS_PER_TOKEN * 0.6
        room = int(free) - len(await self.profile.load()) - 9_000
        return max(1_000, min(self.settings.reading_notes_chars, room))

    async def _settle(self, reading: Reading) -> str:
        """Record how far a source is read (all noted and taken in, from the start); what
        to tell the owner."""
        doc, total = reading.document_id, reading.text_length
        parts = await self.store.extracts.parts(doc)
        noted = covered_to([(p.start, p.end) for p in parts if p.noted], 0)
        waiting = await self.store.extracts.waiting(doc)
        reached = min([noted, *(x.start for x in waiting)]) if total else 0
        name = f"#{doc} {reading.name}"
        if reached >= total:
            await self.store.reading.progress(doc, total, True)
            return f"read {name}"
        stuck = [p for p in parts if not p.noted and p.attempts >= self.settings.read_attempts]
        if stuck:
            why = (
                f"the reader could not take notes of characters {stuck[0].start:,}-"
                f"{stuck[0].end:,} in {stuck[0].attempts} tries ({stuck[0].error})"
            )
            await self.store.reading.give_up(doc, why)
            return (
                f"{name} not read: {why}; set aside (`biomd analyse --pending --retry` tries again)"
            )
        error = next((p.error for p in parts if not p.noted and p.error), None)
        await self.store.reading.progress(doc, reached, False, error=error)
        why = error or "the rest waits for the next round"
        return f"{name} read to character {reached:,} of {total:,} ({why})"

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
        await self.store.reading.progress(document_id, 0, True)

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
