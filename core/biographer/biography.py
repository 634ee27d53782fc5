"""The biographer at work on this corpus: chat turns, reading new sources part by part,
analysis, and consolidation, on the configured backend."""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from core.biographer import briefing, estimate, leads
from core.biographer import scope as scope_of
from core.biographer.citations import flag_invented, source_ids
from core.biographer.codex_turn import CodexTurn
from core.biographer.consolidate import rewrite
from core.biographer.context import CHARS_PER_TOKEN
from core.biographer.edits import apply_edit
from core.biographer.estimate import Estimate, Prices, Sizes
from core.biographer.loop import AgentLoop
from core.biographer.notes_pass import NotesPass, NotesReport, ReaderPlan, describe
from core.biographer.placement import place
from core.biographer.profile import Profile
from core.biographer.profile_text import changed_sections, citations
from core.biographer.prompts import system_prompt
from core.biographer.reader import SCHEMA, Part
from core.biographer.reader import system_prompt as reader_prompt
from core.biographer.tools import TOOLS, Toolbox
from core.biographer.turn import Biographer, Runner, StepFn, TurnResult
from core.errors import BiomdError, NotFound, ProfileEditError
from core.models.backend import Backend
from core.models.llm import TurnModel
from core.models.pricing import prices
from core.models.turn_context import in_turn
from core.retrieval.search import Searcher
from core.settings import Settings
from core.storage.chat import ChatMessage
from core.storage.extracts import Extract
from core.storage.reading import Reading, SetAside
from core.storage.store import Store

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Choice:
    """A source whose reading waits for the owner: what all of it costs, and only theirs."""

    reading: Reading
    all: Estimate
    mine: Estimate


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
            language=s.language,
            evidence_chars=s.chat_evidence_chars,
            tools_with_evidence=s.chat_tools_with_evidence,
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
        approve: bool = False,
    ) -> list[TurnResult]:
        """Read every source not read yet (or those in `only`), in two passes; a source
        whose estimate passes BIOMD_READ_CONFIRM_USD or _TOKENS waits for the owner's choice
        (`choose`, `hold`) unless `approve`, and one held (not now) waits until chosen. The reader
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
        readings = [
            r
            for r in await self.pending()
            if (only is None or r.document_id in only) and not r.held
        ]
        if not approve:
            readings = [r for r in readings if not await self.needs_choice(r)]
        if not readings:
            return []
        skipped = {r.document_id: await self._skipped(r) for r in readings}
        guess = await self.estimate_all(readings)
        round_id = await self.store.rounds.start(
            len(readings), guess.prompt_tokens + guess.completion_tokens, guess.usd
        )
        results: list[TurnResult] = []
        fresh = asyncio.Event()  # a part was noted since the reading turns last looked

        async def noted_one(_: Part) -> None:
            fresh.set()

        noting = asyncio.create_task(
            self.notes_pass().run(
                [r for r in readings if r.text_length], on_part=noted_one, skip=skipped
            )
        )
        try:
            try:
                await self._take_in(readings, on_step, results, noting, fresh)
            except BaseException:
                await asyncio.gather(noting, return_exceptions=True)  # what it took is kept
                raise
            report = await noting
        except Exception:
            for reading in readings:  # what was taken in before the failure counts
                await self._settle(reading, skipped[reading.document_id])
            raise
        finally:
            await self.store.rounds.finish(round_id)
        said = {r.document_id: await self._settle(r, skipped[r.document_id]) for r in readings}
        raised = await self.raise_leads()
        for result in reversed(results):  # each source's state, on its last turn
            states = [said.pop(d) for d in result.sources if d in said]
            result.reading = "; ".join(x for x in (*states, result.reading) if x)
        if results:
            results[-1].reading = "; ".join(
                x for x in (results[-1].reading, *said.values(), describe(report), raised) if x
            )
            await self.keep_within_budget()
        try:
            await self.searcher.notes.embed_new()
        except BiomdError as exc:  # found by keyword until the embedding model is back
            log.warning("the new notes have no vectors yet: %s", exc)
        return results

    # -- what reading costs, and the owner's choice -----------------------------------------

    async def sizes(self) -> Sizes:
        """The sizes reading works in now, with the models' prices where known."""
        s = self.settings
        reader = self.backend.reader()
        plan = ReaderPlan.for_window(
            await reader.context_tokens(), s.reading_part_chars, s.reader_max_tokens
        )
        bio = await self.profile.load()
        codex = self.backend.name == "codex"
        free = Prices(0.0, 0.0)
        own_reader = bool(s.reader_base_url)
        reader_price = await prices(s.reader_settings()) if own_reader or not codex else None
        price = await prices(s) if not codex else None
        window = await self.model().context_tokens()
        return Sizes(
            part_chars=plan.part_chars,
            reader_fixed_chars=len(reader_prompt(s.owner_list)) + len(json.dumps(SCHEMA)) + 300,
            notes_chars=s.reading_notes_chars,
            turn_fixed_chars=len(system_prompt("reading", "", s.bio_max_chars))
            + len(json.dumps(TOOLS))
            + 1_500,
            concurrency=self.backend.reader_concurrency,
            reader_prices=Prices(*reader_price) if reader_price else free if codex else None,
            prices=Prices(*price) if price else free if codex else None,
            local=s.reader_is_local,
            turn_chars=int((window - s.llm_max_tokens - 200) * CHARS_PER_TOKEN),
            bio_chars=len(bio),
            bio_cap=min(s.bio_max_chars, int(window * 0.45 * CHARS_PER_TOKEN * 0.8)),
        )

    async def estimate(self, reading: Reading, scope: str | None = None) -> Estimate:
        """What reading the rest of a source (in `scope`, or its own) will cost."""
        return estimate.reading(await self._left(reading, scope), await self.sizes())

    async def estimate_all(self, readings: Sequence[Reading]) -> Estimate:
        """What reading the rest of these sources together will cost (they share calls)."""
        chars = sum([await self._left(r) for r in readings])
        return estimate.reading(chars, await self.sizes())

    async def _left(self, reading: Reading, scope: str | None = None) -> int:
        """Characters of a source still to read, in `scope` or its own."""
        chosen = scope or reading.scope
        skipped = await self._skipped(reading, chosen)
        noted = [(p.start, p.end) for p in await self.store.extracts.parts(reading.document_id)]
        left = scope_of.complement(
            scope_of.merge([*skipped, *noted, (0, reading.next_offset)]), reading.text_length
        )
        return sum(hi - lo for lo, hi in left)

    async def needs_choice(self, reading: Reading, cost: Estimate | None = None) -> bool:
        """Whether reading this source waits for the owner: its estimate (`cost`, if it
        was made already) passes BIOMD_READ_CONFIRM_USD (or _TOKENS where tokens are free)
        and they have not chosen."""
        if reading.approved or reading.held:
            return False
        cost = cost or await self.estimate(reading)
        if cost.usd:  # a price is known: money decides
            return cost.usd > self.settings.read_confirm_usd
        return cost.prompt_tokens + cost.completion_tokens > self.settings.read_confirm_tokens

    async def choices(self, only: set[int] | None = None) -> list[Choice]:
        """Sources waiting for the owner to choose how much to read (or held: not now),
        each with what reading all of it, only their messages, or since a date costs."""
        out = []
        for r in await self.pending():
            if only is not None and r.document_id not in only:
                continue
            whole = await self.estimate(r, "all")
            if r.held or await self.needs_choice(r, whole if r.scope == "all" else None):
                out.append(Choice(r, whole, await self.estimate(r, "mine")))
        return out

    async def choose(self, document_id: int, scope: str) -> None:
        """Read this source: all of it, `mine` or `since:YYYY-MM-DD` (at the next round)."""
        scope_of.parse(scope)
        if not await self.store.reading.choose(document_id, scope):
            raise NotFound(f"Source #{document_id} is not waiting to be read.")

    async def hold(self, document_id: int) -> None:
        """Not now: the source waits until the owner chooses."""
        if not await self.store.reading.hold(document_id):
            raise NotFound(f"Source #{document_id} is not waiting to be read.")

    async def _skipped(self, reading: Reading, scope: str | None = None) -> list[tuple[int, int]]:
        """What the owner's choice leaves out of a source."""
        chosen = scope or reading.scope
        if chosen == "all" or not reading.text_length:
            return []
        text = await self.store.chunks.text(reading.document_id, 0, reading.text_length)
        kept = scope_of.selected(text, chosen, reading.content_end)
        return scope_of.complement(kept, reading.text_length)

    async def _take_in(
        self,
        readings: list[Reading],
        on_step: StepFn | None,
        results: list[TurnResult],
        noting: asyncio.Task[NotesReport],
        fresh: asyncio.Event,
    ) -> None:
        """Reading turns over the notes, a batch at a time, while the notes pass goes on: a
        turn starts once the notes waiting fill a batch, or the pass is over. Each result is
        added to `results` as it ends."""
        by_doc = {r.document_id: r for r in readings}
        while True:
            fresh.clear()
            over = noting.done()  # before looking, so that nothing noted is missed
            waiting = [
                x for r in readings for x in await self.store.extracts.waiting(r.document_id)
            ]
            room = await self._notes_room()
            full = sum(len(briefing.line(x)) + 1 for x in waiting) >= room
            if not waiting and over:
                return
            if not full and not over:
                waiter = asyncio.ensure_future(fresh.wait())
                try:
                    await asyncio.wait([noting, waiter], return_when=asyncio.FIRST_COMPLETED)
                finally:
                    waiter.cancel()
                continue
            await self.make_room()  # first, so the batch is sized to bio.md as it will be
            batch = briefing.batches(waiting, await self._notes_room())[0]
            docs = list(dict.fromkeys(x.document_id for x in batch))
            request = briefing.request([by_doc[d] for d in docs], batch)
            by_rules = self.settings.reading_placement == "rules"
            if by_rules:
                await self._place_by_rules(batch, "notes placed by rules")
                request += "\n\n" + briefing.PLACED
            result = await self.biographer(given=frozenset(docs)).run(
                "reading",
                request,
                steps=self.settings.steps_reading,
                document_id=docs[0] if len(docs) == 1 else None,
                on_step=on_step,
            )
            if not by_rules and result.edits == 0:  # a turn that placed nothing has not read
                n = await self._place_by_rules(batch, "the model placed none of its notes")
                result.reading = (
                    f"the model placed none of its {len(batch)} notes; {n} went in by rules"
                )
            await self.store.extracts.integrated([x.id for x in batch], result.turn_id)
            result.sources = docs
            results.append(result)
            await self.keep_within_budget()  # between batches, not only at the end

    async def _place_by_rules(self, batch: Sequence[Extract], reason: str) -> int:
        """The notes into their sections of bio.md by kind (placement.py), as one revision;
        how many lines went in."""
        placed, n = place(await self.profile.load(), batch)
        if n:
            await self.profile.replace(placed, turn_id=None, mode="reading", reason=reason)
        return n

    async def raise_leads(self) -> str:
        """Open questions and contradictions found by rules in every note (leads.py), each
        raised once, into bio.md as one revision; what was added, in a few words, or ''."""
        bio = await self.profile.load()
        dated = [d for d in await self.store.documents.all("ready") if d.content_start]
        first = min(dated, key=lambda d: d.content_start or "", default=None)
        found = leads.leads(
            await self.store.extracts.of_ready(),
            bio,
            self.settings.owner_list,
            first.content_start if first else None,
            first.id if first else None,
            await self.store.leads.raised(),
        )
        added = []
        for lead in found:
            try:
                bio = apply_edit(bio, "", lead.line, lead.section)
                added.append(lead)
            except ProfileEditError:  # a bio.md without the section
                continue
        if not added:
            return ""
        await self.profile.replace(
            bio, turn_id=None, mode="reading", reason="questions and contradictions by rules"
        )
        await self.store.leads.add([x.key for x in added])
        asks = sum(x.section == "Open questions" for x in added)
        return (
            f"{asks} open question{'' if asks == 1 else 's'} and {len(added) - asks} possible "
            "contradiction(s) found by rules"
        )

    async def _notes_room(self) -> int:
        """Characters of notes a reading turn can take: what the model's window leaves
        beside the reply, the rules and bio.md (the system prompt) and the tool schemas,
        with a quarter kept for the turn's own calls and results."""
        window = await self.model().context_tokens()
        s = self.settings
        fixed = len(system_prompt("reading", await self.profile.load(), s.bio_max_chars))
        fixed += len(json.dumps(TOOLS))
        free = (window - s.llm_max_tokens - 200) * CHARS_PER_TOKEN - fixed
        return max(1_000, min(s.reading_notes_chars, int(free * 0.75)))

    async def _settle(self, reading: Reading, skipped: Sequence[tuple[int, int]] = ()) -> str:
        """Record how far a source is read (all noted and taken in, from the start, what
        the owner left out aside); what to tell the owner."""
        doc, total = reading.document_id, reading.text_length
        parts = await self.store.extracts.parts(doc)
        noted = covered_to([(p.start, p.end) for p in parts if p.noted] + list(skipped), 0)
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
        try:
            budget = target or self.settings.bio_max_chars
            longest = max(self.settings.llm_max_tokens, int(len(before) / 2.5))
            with in_turn(turn_id):
                after = await rewrite(model, before, budget, max_tokens=longest)
        except BaseException as exc:
            await self._end_turn(turn_id, "failed", str(exc)[:500])
            raise
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
