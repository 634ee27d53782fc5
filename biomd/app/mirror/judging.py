"""The found side's I/O: the reader's notes as the mirror reads them (dated, whose words,
which chat), the judging pass that judges the candidates (estimated first, metered, held to the
daily spend limit, each judgement kept as it comes, so a crash resumes with no duplicate),
and the patterns made of what was judged, their quotes checked against the sources."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime

import numpy as np

from biomd.app.mirror import judge
from biomd.app.mirror.candidates import KINDS, Candidate, DatedNote, Vectors, candidates, day_of
from biomd.app.mirror.care import crisis
from biomd.app.mirror.dynamics import person_key
from biomd.app.mirror.findings import stamp
from biomd.app.mirror.measured import MeasuredSide
from biomd.app.mirror.patterns import Pattern, assemble, confidence
from biomd.biographer.backend import Backend
from biomd.biographer.reading.estimate import Estimate, Prices
from biomd.endpoints import Endpoint
from biomd.errors import LLMError, SpendLimitReached
from biomd.ingest.convert import chat_kinds
from biomd.models.ledger import Usage
from biomd.models.llm import JsonModel
from biomd.models.pricing import prices
from biomd.retrieval.notes import NoteSearch
from biomd.storage.mirror import Judged
from biomd.storage.store import Store

log = logging.getLogger(__name__)

DESIGNS = ("judge", "whole")
FLIPS = (False, True)  # a candidate is asked twice, its answers in both orders, unless the
# first (with the answer that it holds listed first, where a small model's bias lies) says no
SEEN = "mirror_notes_seen"  # the newest note a finished pass looked at: later ones are new
JUDGE_TOKENS_OUT = 120  # a judgement's JSON
WHOLE_TOKENS_OUT = 1500
CHARS_PER_TOKEN = 4.0
WHOLE_CHARS = 40_000  # notes in one call of the whole design, at most


@dataclass
class JudgingPlan:
    """What a pass will do before it does it: the candidates still to judge and the cost."""

    design: str
    todo: list[Candidate]
    estimate: Estimate
    notes: int
    crisis: int  # notes left out for signs of crisis
    calls: int = 0

    @property
    def over(self) -> str:
        return f"{self.notes} note{'s' if self.notes != 1 else ''}"


@dataclass
class JudgingReport:
    design: str
    judged: int = 0
    yes: int = 0
    failed: int = 0
    dropped: int = 0  # proposals whose evidence did not hold (the whole design)
    prompt_tokens: int = 0
    completion_tokens: int = 0
    stopped: str = ""  # why the pass stopped early
    errors: list[str] = field(default_factory=list)


@dataclass
class NotesView:
    """Every note as the mirror reads it, and what was made of them."""

    notes: dict[int, DatedNote]
    vectors: Vectors
    crisis: set[int]
    where: dict[int, str]


class Judging:
    def __init__(
        self,
        owner_names: tuple[str, ...],
        reader: Endpoint,
        store: Store,
        backend: Backend,
        notes: NoteSearch,
        measured: MeasuredSide,
    ) -> None:
        """The judge is the reader (`reader`: what its calls cost, where it runs)."""
        self.owner_names = owner_names
        self.reader = reader
        self.store = store
        self.backend = backend
        self.note_search = notes
        self.measured = measured
        self._verified: dict[int, bool] = {}
        self._lock = asyncio.Lock()

    # -- the notes ------------------------------------------------------------------------

    async def view(self, embed: bool = False) -> NotesView:
        """Every note of a ready source, dated, with whose words and which chat it is; with
        `embed`, notes with no vector yet get one first (the pass needs them all)."""
        stored = await self.store.notes.of_ready()
        docs = {d.id: d for d in await self.store.documents.all("ready")}
        measured = await self.measured.get()
        notes: dict[int, DatedNote] = {}
        where: dict[int, str] = {}
        for x in stored:
            doc = docs.get(x.document_id)
            if doc is None:
                continue
            mine, chat_with, who, line_day = True, None, "", None
            parsed = measured.parsed.get(x.document_id)
            if parsed is not None and parsed.size:
                a = parsed.arrays
                i = int(np.searchsorted(a["start"], x.start, side="right")) - 1
                if i >= 0:
                    mine = bool(a["owner"][i])
                    conv = parsed.chats[int(a["chat"][i])]
                    if conv.owner_messages and len(conv.speakers) == 1:
                        who = conv.others[0]
                        chat_with = person_key(who)
                    line_day = stamp(int(a["minute"][i]))[:10]
            elif doc.kind in chat_kinds():
                mine = False
            note_date = x.date or line_day or _single_day(doc.content_start, doc.content_end)
            day, precise = day_of(note_date)
            notes[x.id] = DatedNote(
                id=x.id,
                source_id=x.document_id,
                kind=x.kind,
                statement=x.statement,
                quote=x.quote,
                start=x.start,
                end=x.end,
                date=note_date or "",
                day=day,
                precise=precise,
                people=tuple(person_key(p) for p in x.people),
                names=x.people,
                mine=mine,
                chat_with=chat_with,
            )
            where[x.id] = (
                (f"the owner writing to {who}" if mine else f"{who} writing to the owner")
                if who
                else doc.name
            )
        if embed:
            await self.note_search.embed_new()
        vectors = {
            i: np.frombuffer(b, dtype="<f4")
            for i, b in await self.store.notes.vectors()
            if i in notes
        }
        care = {i for i, n in notes.items() if crisis(n.text)}
        return NotesView(notes, vectors, care, where)

    # -- the pass -------------------------------------------------------------------------

    async def plan(self, design: str = "judge") -> JudgingPlan:
        """The candidates still to judge and what judging them will cost: those that rest on
        a note newer than the last finished pass (a new source re-examines only what it
        touches), and were not judged already (a pass cut short resumes)."""
        if design not in DESIGNS:
            raise ValueError(design)
        view = await self.view(embed=True)
        usable = [n for i, n in view.notes.items() if i not in view.crisis]
        if design == "whole":
            groups = _groups(usable, view.where)
            chars = sum(len(judge.whole_message(g)) for g in groups)
            calls = len(groups)
            estimate = await self._estimate(calls, chars, WHOLE_TOKENS_OUT)
            return JudgingPlan(design, [], estimate, len(usable), len(view.crisis), calls)
        found, _ = candidates(usable, view.vectors)
        judged = await self.store.mirror.judged_keys()
        seen = int(await self.store.meta.get(SEEN) or 0)
        todo = [c for c in found if c.key not in judged and max(c.notes) > seen]
        chars = len(FLIPS) * sum(len(judge.judge_message(c, view.notes, view.where)) for c in todo)
        calls = len(FLIPS) * len(todo)
        estimate = await self._estimate(calls, chars, JUDGE_TOKENS_OUT)
        return JudgingPlan(design, todo, estimate, len(usable), len(view.crisis), calls)

    async def _estimate(self, calls: int, chars: int, out_each: int) -> Estimate:
        system = len(judge.system_prompt(self.owner_names))
        prompt = int((chars + calls * system) / CHARS_PER_TOKEN)
        completion = calls * out_each
        reader = self.reader
        price = await prices(reader)
        usd = Prices(*price).usd(prompt, completion) if price is not None else None
        local = reader.is_local
        seconds = calls * (40.0 if local else 3.0) + (prompt / 80 if local else 0.0)
        return Estimate(calls, prompt, completion, usd, seconds)

    async def run(
        self,
        design: str = "judge",
        on_progress: Callable[[int, int], Awaitable[None]] | None = None,
        plan: JudgingPlan | None = None,
    ) -> JudgingReport:
        """Judge every candidate not judged yet (the judge design), or ask for the patterns
        in one call per group of notes (the whole design). Stops, keeping what is done, at
        the daily spend limit or when the model can't be reached."""
        async with self._lock:
            plan = plan or await self.plan(design)
            if design == "whole":
                return await self._whole(on_progress)
            report = JudgingReport(design)
            model = self.backend.reader()
            view = await self.view()
            system = judge.system_prompt(self.owner_names)
            for i, c in enumerate(plan.todo):
                if on_progress:
                    await on_progress(i, len(plan.todo))
                try:
                    asked = [await self._ask(model, system, c, view, False)]
                    if asked[0][0] is None or asked[0][0].answer != "no":
                        asked.append(await self._ask(model, system, c, view, True))
                except (SpendLimitReached, LLMError) as exc:
                    report.stopped = exc.user_message
                    break
                usage = Usage(
                    sum(u.prompt_tokens for _, u in asked),
                    sum(u.completion_tokens for _, u in asked),
                    sum(u.cost_usd for _, u in asked),
                )
                report.prompt_tokens += usage.prompt_tokens
                report.completion_tokens += usage.completion_tokens
                found = judge.agree(asked[0][0], asked[-1][0])
                if found is None:
                    report.failed += 1
                    report.errors.append(f"{c.kind}: the replies were not judgements")
                    verdict, statement, why = "failed", "", ""
                else:
                    verdict, statement, why = found.answer, found.statement, found.why
                report.judged += 1
                report.yes += verdict == "yes"
                sure = confidence(len(c.notes), len(c.against))
                await self.store.mirror.keep_judged(
                    _judged(c, "judge", verdict, statement, why, sure, usage)
                )
            if not report.stopped and view.notes:
                await self.store.meta.set({SEEN: str(max(view.notes))})
            if on_progress:
                await on_progress(len(plan.todo), len(plan.todo))
            return report

    async def _ask(
        self, model: JsonModel, system: str, c: Candidate, view: NotesView, flip: bool
    ) -> tuple[judge.Judgement | None, Usage]:
        """One of the two questions about a candidate (its answers in one order or the
        other), and what it cost."""
        await model.check_budget()
        reply = await model.complete_json(
            _messages(system, judge.judge_message(c, view.notes, view.where, flip)),
            judge.schema(c.kind),
            "mirror",
            400,
            steady=True,
        )
        return judge.read_judgement(reply.text, c.kind), reply.usage

    async def _whole(
        self, on_progress: Callable[[int, int], Awaitable[None]] | None
    ) -> JudgingReport:
        """The whole design: the notes grouped by person, one call a group (or several
        groups together), the model's patterns checked: known kinds, notes that exist, two
        dates or more. A run starts from nothing, so a crash leaves no duplicate."""
        report = JudgingReport("whole")
        await self.store.mirror.forget_judged("whole")
        view = await self.view()
        usable = [n for i, n in view.notes.items() if i not in view.crisis]
        model = self.backend.reader()
        system = judge.system_prompt(self.owner_names)
        groups = _groups(usable, view.where)
        for g, group in enumerate(groups):
            if on_progress:
                await on_progress(g, len(groups))
            numbers = {n: note.id for _, items in group for n, note, _ in items}
            try:
                await model.check_budget()
                reply = await model.complete_json(
                    _messages(system, judge.whole_message(group)),
                    judge.WHOLE_SCHEMA,
                    "mirror",
                    WHOLE_TOKENS_OUT,
                    steady=True,
                )
            except (SpendLimitReached, LLMError) as exc:
                report.stopped = exc.user_message
                break
            report.prompt_tokens += reply.usage.prompt_tokens
            report.completion_tokens += reply.usage.completion_tokens
            proposed = judge.read_patterns(reply.text)
            if proposed is None:
                report.failed += 1
                continue
            for p in proposed:
                ids = tuple(dict.fromkeys(numbers[n] for n in p.notes if n in numbers))
                dates = {view.notes[i].date[:10] for i in ids if view.notes[i].date}
                if p.kind not in KINDS or len(dates) < 2:
                    report.dropped += 1
                    continue
                against = tuple(numbers[n] for n in p.counter if n in numbers and n not in p.notes)
                people = tuple(dict.fromkeys(nm for i in ids for nm in view.notes[i].names))
                c = Candidate(p.kind, ids, people, against)
                sure = p.confidence if p.confidence in CONFIDENCES else "low"
                kept = await self.store.mirror.keep_judged(
                    _judged(c, "whole", "yes", p.statement, "", sure, reply.usage)
                )
                report.judged += 1
                report.yes += kept
        if on_progress:
            await on_progress(len(groups), len(groups))
        return report

    # -- the patterns ---------------------------------------------------------------------

    async def patterns(self, design: str) -> tuple[list[Pattern], int, NotesView]:
        """The patterns of one design, with their evidence checked against the sources; how
        many were dropped (evidence gone or not verified); and the notes."""
        view = await self.view()
        judged = await self.store.mirror.judged(design)
        wanted = {n for j in judged if j.verdict == "yes" for n in (*j.notes_for, *j.notes_against)}
        checked = {}
        for nid in wanted:
            note = view.notes.get(nid)
            if note is not None and nid not in view.crisis and await self._verify(note):
                checked[nid] = note
        found, dropped = assemble(judged, checked)
        return found, dropped, view

    async def _verify(self, note: DatedNote) -> bool:
        """Whether a note's quote is, verbatim, what its source has at its span."""
        if note.id not in self._verified:
            text = await self.store.chunks.text(note.source_id, note.start, note.end)
            self._verified[note.id] = bool(text) and text == note.quote
        return self._verified[note.id]


CONFIDENCES = ("high", "medium", "low")


def _judged(
    c: Candidate, design: str, verdict: str, statement: str, why: str, sure: str, usage: Usage
) -> Judged:
    """A candidate with what the model made of it, as the store keeps it."""
    return Judged(
        key=c.key,
        kind=c.kind,
        design=design,
        people=c.people,
        verdict=verdict,
        statement=statement,
        why=why,
        confidence=sure,
        notes_for=c.notes,
        notes_against=c.against,
        prompt_tokens=usage.prompt_tokens,
        completion_tokens=usage.completion_tokens,
        judged_at=datetime.now(UTC).isoformat(timespec="seconds"),
    )


def _messages(system: str, user: str) -> list[dict[str, str]]:
    return [{"role": "system", "content": system}, {"role": "user", "content": user}]


def _single_day(start: str | None, end: str | None) -> str | None:
    """A source's date when it covers one day (a journal entry, a voice note)."""
    if start and (not end or end[:10] == start[:10]):
        return start[:10]
    return None


def _groups(
    notes: Sequence[DatedNote], where: dict[int, str]
) -> list[list[tuple[str, list[tuple[int, DatedNote, str]]]]]:
    """The notes by person (the owner's alone last), numbered from 1, cut into calls of at
    most WHOLE_CHARS."""
    by_person: dict[str, list[DatedNote]] = {}
    for n in sorted(notes, key=lambda n: (n.day or 0, n.id)):
        for name in n.names or ("(nobody else)",):
            by_person.setdefault(name, []).append(n)
    calls: list[list[tuple[str, list[tuple[int, DatedNote, str]]]]] = [[]]
    size, number = 0, 0
    for title in sorted(by_person, key=lambda t: (t == "(nobody else)", -len(by_person[t]), t)):
        items = []
        for n in by_person[title]:
            number += 1
            items.append((number, n, where.get(n.id, "a source")))
        chars = sum(len(judge.note_line(k, n, w)) for k, n, w in items)
        if size and size + chars > WHOLE_CHARS:
            calls.append([])
            size = 0
        calls[-1].append((title, items))
        size += chars
    return [c for c in calls if c]
