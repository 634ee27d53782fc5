"""A round of reading, as a pipeline of awaited steps: the sources waiting (those the owner
must choose for wait), the reader's notes of every part not noted yet (notes_pass.py), the
notes taken into bio.md a batch at a time (by rules first, then a reading turn), each source's
state recorded, and the open questions and contradictions the rules find in the notes. Every
step resumes where a crash or an outage stopped it."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from biomd.biographer.backend import Backend
from biomd.biographer.bio_budget import BioBudget
from biomd.biographer.edits import apply_edit
from biomd.biographer.profile import Profile
from biomd.biographer.profile_text import changed_sections, citations
from biomd.biographer.reading import briefing, leads, summary, wording
from biomd.biographer.reading.notes_pass import NotesPass, NotesReport, describe
from biomd.biographer.reading.people_section import PeopleSection
from biomd.biographer.reading.placement import (
    Room,
    is_routine,
    line,
    months_covered,
    place,
    placing,
)
from biomd.biographer.reading.reader import Part
from biomd.biographer.reading.reading_cost import ReadingCost, notes_room
from biomd.biographer.turn import Agent, Runner, StepFn, TurnResult
from biomd.errors import BiomdError, LLMError, ProfileEditError, SpendLimitReached
from biomd.models.llm import JsonModel
from biomd.plural import counted
from biomd.retrieval.search import Searcher
from biomd.settings.groups import ReadingSettings
from biomd.storage.notes import Note
from biomd.storage.reading import Reading, SetAside
from biomd.storage.store import Store

log = logging.getLogger(__name__)
TIDY = "reading.tidy"  # meta: bio.md lines in the rules' wording, for a turn to reword
SUMMARY = "reading.summary"  # meta: the Summary biomd wrote last, and from how many lines


class ReadingRounds:
    def __init__(
        self,
        reading: ReadingSettings,
        owner_names: tuple[str, ...],
        store: Store,
        searcher: Searcher,
        profile: Profile,
        backend: Backend,
        agent: Callable[[], Agent],
        cost: ReadingCost,
        budget: BioBudget,
        language: str = "",
    ) -> None:
        self.settings = reading
        self.language = language  # bio.md's, or "" for each source's own
        phrase = backend.reader if backend.small_calls else None
        self.people = PeopleSection(store, profile, owner_names, phrase, language)
        self.owner_names = owner_names
        self.store = store
        self.searcher = searcher
        self.profile = profile
        self.backend = backend
        self.agent = agent
        self.cost = cost
        self.budget = budget

    async def pending(self, include_set_aside: bool = False) -> list[Reading]:
        """Sources waiting to be read; with `include_set_aside`, those given up on too."""
        return await self.store.reading.pending(include_set_aside)

    async def set_aside(self) -> list[SetAside]:
        """Sources the biographer gave up on, and why."""
        return await self.store.reading.set_aside()

    async def mark_read(self, document_id: int) -> None:
        await self.store.reading.progress(document_id, 0, True)

    def notes_pass(self) -> NotesPass:
        return NotesPass(
            self.store,
            self.backend.reader(),
            part_chars=self.settings.part_chars,
            max_tokens=self.cost.reader.max_tokens,
            concurrency=self.backend.reader_concurrency,
            attempts=self.settings.attempts,
            owner_names=self.owner_names,
        )

    async def read_pending(
        self,
        on_step: StepFn | None = None,
        *,
        only: set[int] | None = None,
        retry: bool = False,
        approve: bool = False,
    ) -> list[TurnResult]:
        """Read every source not read yet (or those in `only`). A source whose estimate
        passes BIOMD_READ_CONFIRM_USD or _TOKENS waits for the owner's choice unless
        `approve`, and one held (not now) waits until chosen. The reader takes notes of each
        part not noted yet, each resting on a quote found in the part; then the notes go
        into bio.md, a batch that fits the model's window at a time, with bio.md kept within
        its budget between batches. A source is read once all of it is noted and every note
        was taken in; a part the reader could not note in BIOMD_READ_ATTEMPTS tries sets the
        source aside, with the reason. `retry` gives set-aside sources another round. An
        outage or the spend limit stops the notes, and what was noted before still goes in."""
        if retry:
            for doc in await self.store.reading.retry(only):
                await self.store.notes.forget_failures(doc)
        readings = await self._to_read(only, approve)
        if not readings:
            return []
        skipped = {r.document_id: await self.cost.skipped(r) for r in readings}
        guess = await self.cost.estimate_all(readings)
        round_id = await self.store.rounds.start(
            len(readings), guess.prompt_tokens + guess.completion_tokens, guess.usd
        )
        arrived = asyncio.Event()  # new notes were kept

        async def kept(_: Part) -> None:
            arrived.set()

        notes = asyncio.create_task(self._note(readings, skipped, kept))
        try:  # the notes go into bio.md as they come, while the reader goes on
            results = await self._take_in(readings, on_step, notes, arrived)
            report, stopped = await notes
        except BaseException:
            await _stopped(notes)
            for reading in readings:  # what was taken in before the failure counts
                await self._settle(reading, skipped[reading.document_id])
            raise
        finally:
            await self.store.rounds.finish(round_id)
        said = {r.document_id: await self._settle(r, skipped[r.document_id]) for r in readings}
        if stopped is not None:
            raise stopped
        raised = "; ".join(
            x
            for x in (await self.raise_leads(), await self.people.update(), await self.summed())
            if x
        )
        for result in reversed(results):  # each source's state, on its last turn
            states = [said.pop(d) for d in result.sources if d in said]
            result.reading = "; ".join(x for x in (*states, result.reading) if x)
        if results:
            results[-1].reading = "; ".join(
                x for x in (results[-1].reading, *said.values(), describe(report), raised) if x
            )
            await self.budget.keep_within()
        try:
            await self.searcher.notes.embed_new()
        except BiomdError as exc:  # found by keyword until the embedding model is back
            log.warning("the new notes have no vectors yet: %s", exc)
        return results

    async def _to_read(self, only: set[int] | None, approve: bool) -> list[Reading]:
        """The sources this round reads: waiting, not held, chosen or not needing a choice."""
        readings = [
            r
            for r in await self.pending()
            if (only is None or r.document_id in only) and not r.held
        ]
        if approve:
            return readings
        return [r for r in readings if not await self.cost.needs_choice(r)]

    async def _note(
        self,
        readings: Sequence[Reading],
        skipped: dict[int, list[tuple[int, int]]],
        on_part: Callable[[Part], Awaitable[None]] | None = None,
    ) -> tuple[NotesReport, BiomdError | None]:
        """The reader's notes of every part not noted yet; an outage or the spend limit
        that stopped it, after the calls under way were kept."""
        try:
            report = await self.notes_pass().run(
                [r for r in readings if r.text_length], on_part, skip=skipped
            )
        except (SpendLimitReached, LLMError) as exc:
            return NotesReport(), exc
        return report, None

    async def _take_in(
        self,
        readings: list[Reading],
        on_step: StepFn | None,
        notes: asyncio.Task[tuple[NotesReport, BiomdError | None]],
        arrived: asyncio.Event,
    ) -> list[TurnResult]:
        """The notes, into bio.md as the reader keeps them (`arrived`) until it is done
        (`notes`): with the default placement, every note by rules first, and the notes that
        need judgement (not dated events, facts and people) then to reading turns, each
        turn once a batch is full or the reader is done; with `model` placement, every note
        to a reading turn (its notes go in by rules if it places none). Turns over
        different batches run side by side, up to the backend's turn concurrency, over one
        bio.md and with one writer (reading_turn.py); bio.md is kept within its budget
        between rounds of turns."""
        by_doc = {r.document_id: r for r in readings}
        by_rules = self.settings.placement == "rules"
        writer = asyncio.Lock()  # bio.md's one writer while turns run side by side
        runner = self.backend.reading_runner(writer)
        results: list[TurnResult] = []  # the reading turns
        ruled: list[TurnResult] = []  # the placements by rules, shown when no turn ran
        placed: set[int] = set()  # notes placed by rules this round (again after a crash)
        while True:
            arrived.clear()
            done = notes.done()  # before looking: a note kept after this is seen next time
            waiting = [x for r in readings for x in await self.store.notes.waiting(r.document_id)]
            if by_rules and (fresh := [x for x in waiting if x.id not in placed]):
                await self.budget.make_room()
                for chunk in briefing.batches(fresh, await self._notes_room()):
                    ruled.append(await self._by_rules(chunk, by_doc))
                    placed.update(x.id for x in chunk)
                    await self.budget.keep_within(reading=True)
                continue  # what is left needs judgement
            room = await self._notes_room()
            full = briefing.batches(waiting, room)
            if not done and len(full) < 2:  # wait for a full batch, or the reader's end
                await _first(notes, arrived)
                continue
            if not waiting:
                return results or _together(ruled)
            await self.budget.make_room()  # first, so the batch is sized to bio.md as it will be
            wave = briefing.batches(waiting, await self._notes_room())
            wave = (
                wave[: self.backend.turn_concurrency]
                if done
                else wave[:-1][: self.backend.turn_concurrency]
            )
            bio = await self.profile.load()
            results += await asyncio.gather(
                *(self._turn(b, by_doc, runner, writer, bio, by_rules, on_step) for b in wave)
            )
            await self.budget.keep_within(reading=True)  # between rounds of turns

    async def _by_rules(self, batch: list[Note], by_doc: dict[int, Reading]) -> TurnResult:
        """A batch of notes placed by rules, as a turn of its own; the routine ones are taken
        in by it, and the rest wait for a reading turn to judge them."""
        docs = list(dict.fromkeys(x.document_id for x in batch))
        routine = [x for x in batch if is_routine(x)]
        said = f"{counted(len(batch), 'note')} placed by rules"
        turn_id = await self.store.turns.start("reading", said, docs[0] if len(docs) == 1 else None)
        before = await self.profile.load()
        n = await self._place_by_rules(batch, by_doc, "notes placed by rules")
        report = f"{counted(n, 'line')} added to bio.md by rules from {counted(len(batch), 'note')}"
        await self.store.turns.finish(turn_id, "done", report=report, steps=0, error=None)
        await self.store.notes.integrated([x.id for x in routine], turn_id)
        result = TurnResult(turn_id, "reading", report, 0, n)
        result.sources = docs
        result.sections_changed = changed_sections(before, await self.profile.load())
        return result

    async def _turn(
        self,
        batch: list[Note],
        by_doc: dict[int, Reading],
        runner: Runner,
        writer: asyncio.Lock,
        bio: str,
        placed: bool,
        on_step: StepFn | None,
    ) -> TurnResult:
        """One reading turn over a batch of notes (placed by rules before, or not)."""
        docs = list(dict.fromkeys(x.document_id for x in batch))
        request = briefing.request([by_doc[d] for d in docs], batch)
        if placed:
            request += "\n\n" + briefing.PLACED
        tidy = [x for x in await self._tidy() if x in bio and citations(x) & set(docs)]
        if tidy:
            request += "\n\n" + briefing.to_tidy(tidy)
        result = await self.agent().run(
            "reading",
            request,
            steps=self.settings.steps,
            document_id=docs[0] if len(docs) == 1 else None,
            given=frozenset(docs),
            on_step=on_step,
            runner=runner,
            bio=bio,
        )
        if not placed and result.edits == 0:  # a turn that placed nothing has not read
            async with writer:
                n = await self._place_by_rules(batch, by_doc, "the model placed none of its notes")
            result.reading = (
                f"the model placed none of its {counted(len(batch), 'note')}; {n} went in by rules"
            )
        await self.store.notes.integrated([x.id for x in batch], result.turn_id)
        result.sources = docs
        return result

    async def _place_by_rules(
        self, batch: Sequence[Note], by_doc: dict[int, Reading], reason: str
    ) -> int:
        """The notes into their sections of bio.md by kind (placement.py), as far as its
        budget (or the model's window) holds over the months their sources span, as one
        revision; how many lines went in."""
        sources = [by_doc[d] for d in dict.fromkeys(x.document_id for x in batch)]
        room = Room.within(await self.budget.held_to(), months_covered(by_doc.values()))
        _, placed_as_is = placing(await self.profile.load(), batch, room)
        chosen = [x for x in placed_as_is if x.kind != "gap"]  # a gap is asked as it is
        shown = await wording.shown(self.store, chosen, {r.document_id: r.name for r in sources})
        people = {p for x in batch for p in x.people}
        try:
            reader: JsonModel | None = self.backend.reader() if self.backend.small_calls else None
        except LLMError:  # no model: the rules' wording
            reader = None
        languages = {
            d: self.language or await self._language_of(d) for d in {x.document_id for x in chosen}
        }
        worded = await wording.word(reader, chosen, shown, self.owner_names, languages, people)
        texts: dict[int, list[str]] = {x.id: [] for x in batch}
        texts.update({x.id: [x.statement] for x in placed_as_is if x.kind == "gap"})
        texts.update(worded.texts)
        placed, n = place(await self.profile.load(), batch, room, texts)
        if worded.refused:
            log.info("lines refused: %s", "; ".join(worded.refused))
        if n:
            await self.profile.replace(placed, turn_id=None, mode="reading", reason=reason)
        await self._mark_tidy([line(x, t)[1] for x in batch for t in worded.tidy.get(x.id, [])])
        return n

    async def _language_of(self, doc_id: int) -> str:
        """The language a source is mostly in ('' when not known)."""
        source = await self.store.documents.get(doc_id)
        return source.languages.split(",")[0] if source else ""

    async def _tidy(self) -> list[str]:
        """The lines worded by rules that wait for a reading turn to reword them."""
        return list(json.loads(await self.store.meta.get(TIDY) or "[]"))

    async def _mark_tidy(self, lines: Sequence[str]) -> None:
        """Lines in the rules' wording, kept for the next reading turn (the latest 40; a line
        no longer in bio.md is dropped)."""
        bio = await self.profile.load()
        kept = [x for x in [*await self._tidy(), *lines] if x in bio]
        await self.store.meta.set({TIDY: json.dumps(list(dict.fromkeys(kept))[-40:])})

    async def raise_leads(self) -> str:
        """Open questions and contradictions found by rules in every note (leads.py), each
        raised once, into bio.md as one revision; what was added, in a few words, or ''."""
        bio = await self.profile.load()
        dated = [d for d in await self.store.documents.all("ready") if d.content_start]
        first = min(dated, key=lambda d: d.content_start or "", default=None)
        found = leads.leads(
            await self.store.notes.of_ready(),
            bio,
            self.owner_names,
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
            f"{counted(asks, 'open question')} and "
            f"{counted(len(added) - asks, 'possible contradiction')} found by rules"
        )

    async def summed(self) -> str:
        """The Summary and Identity written from bio.md's lines when it has facts but no
        Summary, or when bio.md has grown well past the Summary biomd wrote (summary.py);
        what was written, in a few words, or ''. An outage leaves it for the next round."""
        bio = await self.profile.load()
        ours = await self.store.meta.get(SUMMARY) or ""
        if not summary.wanted(bio, ours, int(await self.store.meta.get(f"{SUMMARY}.lines") or 0)):
            return ""
        try:
            top = await summary.write(self.backend.reader(), bio, self.owner_names, self.language)
        except (LLMError, SpendLimitReached) as exc:
            log.warning("no summary this round: %s", exc)
            return ""
        if not top.summary and not top.identity:
            return ""
        bio = summary.into(await self.profile.load(), top)
        await self.profile.replace(
            bio, turn_id=None, mode="reading", reason="summary from bio.md's lines"
        )
        lines = str(len(summary.numbered(bio)))
        await self.store.meta.set({SUMMARY: summary.written(bio), f"{SUMMARY}.lines": lines})
        return f"a Summary of {counted(len(top.summary), 'sentence')} written"

    async def _notes_room(self) -> int:
        """Characters of notes a reading turn can take now (reading_cost.notes_room)."""
        window = await self.backend.model().context_tokens()
        bio = await self.profile.load()
        b = self.budget
        return notes_room(window, b.reply_tokens, bio, b.limit, self.settings.notes_chars)

    async def _settle(self, reading: Reading, skipped: Sequence[tuple[int, int]] = ()) -> str:
        """Record how far a source is read (all noted and taken in, from the start, what
        the owner left out aside); what to tell the owner."""
        doc, total = reading.document_id, reading.text_length
        parts = await self.store.notes.parts(doc)
        noted = covered_to([(p.start, p.end) for p in parts if p.noted] + list(skipped), 0)
        waiting = await self.store.notes.waiting(doc)
        reached = min([noted, *(x.start for x in waiting)]) if total else 0
        name = f"#{doc} {reading.name}"
        if reached >= total:
            await self.store.reading.progress(doc, total, True)
            return f"read {name}"
        stuck = [p for p in parts if not p.noted and p.attempts >= self.settings.attempts]
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


def covered_to(ranges: list[tuple[int, int]], start: int) -> int:
    """How far from `start` the read ranges cover the text without a gap."""
    reached = start
    for lo, hi in sorted(ranges):
        if lo > reached:
            break
        reached = max(reached, hi)
    return reached


def _together(ruled: list[TurnResult]) -> list[TurnResult]:
    """The placements by rules of a round, as one result (the last, counting them all)."""
    if not ruled:
        return []
    last = ruled[-1]
    last.edits = sum(r.edits for r in ruled)
    last.sections_changed = list(dict.fromkeys(t for r in ruled for t in r.sections_changed))
    last.sources = list(dict.fromkeys(d for r in ruled for d in r.sources))
    last.report = f"{counted(last.edits, 'line')} added to bio.md by rules"
    return [last]


async def _first(task: asyncio.Task[Any], event: asyncio.Event) -> None:
    """Wait until the task is done or the event is set."""
    flag = asyncio.create_task(event.wait())
    try:
        await asyncio.wait({task, flag}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        flag.cancel()


async def _stopped(task: asyncio.Task[Any]) -> None:
    """The task cancelled (if it is still running) and waited for."""
    if not task.done():
        task.cancel()
    with contextlib.suppress(BaseException):
        await task
