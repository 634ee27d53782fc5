"""The shapes pass's I/O: the owner's own lines read from every ready source (each chat's
messages by the owner, each single-day prose source's sentences, and the reader's dated
notes on the other prose sources), the shapes the rules find
in them, each shape's questions asked one at a time (estimated first, metered, held to the
daily spend limit, each judgement kept as it comes, so a crash resumes with no duplicate),
and the patterns made of what was judged; with no model, the strongest shapes shown as
worth a look."""

from __future__ import annotations

import asyncio
import logging
from collections import Counter
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

from biomd.app.mirror import shape_questions as q
from biomd.app.mirror.care import crisis
from biomd.app.mirror.lines import (
    Line,
    chat_lines,
    day_of,
    owner_spans,
    prose_lines,
    single_day,
)
from biomd.app.mirror.measured import MeasuredSide
from biomd.app.mirror.patterns import Evidence, Pattern, pattern_id
from biomd.app.mirror.shape_statements import statement, worth_a_look
from biomd.app.mirror.shapes import Ask, Shape, shapes
from biomd.biographer.backend import Backend
from biomd.biographer.reading.estimate import Estimate, Prices
from biomd.endpoints import Endpoint
from biomd.errors import LLMError, SpendLimitReached
from biomd.models.ledger import Usage
from biomd.models.llm import JsonModel, WeighsYes
from biomd.models.pricing import prices
from biomd.storage.documents import Source
from biomd.storage.mirror import Judged, Span
from biomd.storage.store import Store

log = logging.getLogger(__name__)

DESIGN = "shapes"
PROSE_KINDS = frozenset({"markdown", "text", "audio", "docx", "pdf"})
BATCH = 2000  # chunks read at a time
SHOWN = 5  # shapes shown as worth a look with no model, the strongest
LOOK_SCORE = 2.0  # ... and only those the rules found this strong
CHARS_PER_TOKEN = 4.0


@dataclass
class ShapesPlan:
    todo: list[Shape]
    estimate: Estimate
    lines: int
    calls: int
    language: str = "en"

    @property
    def over(self) -> str:
        return f"{self.lines} line{'s' if self.lines != 1 else ''} of yours"


@dataclass
class ShapesReport:
    judged: int = 0
    yes: int = 0
    failed: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    stopped: str = ""
    calls: int = 0


class ShapePass:
    def __init__(
        self,
        owner_names: tuple[str, ...],
        language: str,
        reader: Endpoint,
        store: Store,
        backend: Backend,
        measured: MeasuredSide,
    ) -> None:
        """`language`: the owner's chosen language for what the mirror says ('' = the
        language most of their sources are in)."""
        self.owner_names = owner_names
        self.language = language
        self.reader = reader
        self.store = store
        self.backend = backend
        self.measured = measured
        self._lock = asyncio.Lock()
        self._memo: tuple[object, list[Line]] | None = None
        self._crisis: int | None = None  # the lines in `_memo` with signs of crisis
        self._found: tuple[object, list[Shape]] | None = None

    @property
    def owner(self) -> str:
        return self.owner_names[0] if self.owner_names else "the owner"

    # -- the lines and their shapes -------------------------------------------------------

    async def lines(self) -> list[Line]:
        """The owner's own lines in every ready source (read again only when the sources
        change); the rules make no shape of one with signs of crisis."""
        docs = await self.store.documents.all("ready")
        key = (tuple(d.id for d in docs), self.owner_names)
        if self._memo is None or self._memo[0] != key:
            self._memo = (key, await self._read_lines(docs))
            self._crisis = None
        return self._memo[1]

    async def in_crisis(self) -> int:
        """How many of the owner's lines show signs of crisis (the mirror then says where
        to find help, with a model or without); counted once a change of the sources."""
        lines = await self.lines()
        if self._crisis is None:
            self._crisis = await asyncio.to_thread(lambda: sum(crisis(x.text) for x in lines))
        return self._crisis

    async def _read_lines(self, docs: Sequence[Source]) -> list[Line]:
        """The owner's lines in the ready sources `docs`."""
        measured = await self.measured.get()
        out: list[Line] = []
        for doc_id, parsed in measured.parsed.items():
            picked = owner_spans(parsed)
            a = parsed.arrays
            spans = list(
                zip(a["start"][picked].tolist(), a["length"][picked].tolist(), strict=True)
            )
            texts = await self._texts(doc_id, spans)
            out += chat_lines(doc_id, parsed, picked, texts)
        covered = set(measured.parsed)
        for doc in docs:
            day = day_of(single_day(doc.content_start, doc.content_end))
            if doc.kind in PROSE_KINDS and day is not None:
                text = await self.store.chunks.text(doc.id, 0, doc.text_length)
                out += prose_lines(doc.id, text, day)
                covered.add(doc.id)
        return out + await self._noted(covered, {d.id: d for d in docs})

    async def _noted(self, covered: set[int], docs: dict[int, Source]) -> list[Line]:
        """The reader's dated notes on the prose sources the rules don't read line by line
        (a journal of many days, a PDF, a document): each note's quote as a line."""
        out = []
        for x in await self.store.notes.of_ready():
            doc = docs.get(x.document_id)
            day = day_of(x.date)
            if doc is None or doc.id in covered or doc.kind not in PROSE_KINDS or day is None:
                continue
            out.append(Line(x.document_id, x.start, x.end, x.quote, day))
        return out

    async def _texts(self, doc_id: int, spans: Sequence[tuple[int, int]]) -> list[str]:
        """The texts at these spans (in order) of a source, read a batch of chunks at a time
        (a 50 MB export is never in memory whole)."""
        out: list[str] = []
        at, buffer, buffer_at, k = 0, "", 0, 0
        while k < len(spans):
            batch = await self.store.chunks.spans_from(doc_id, at, BATCH)
            if not batch:
                break
            pieces, seen = [buffer], buffer_at + len(buffer)
            for start, end, text in batch:  # joined once: adding to a string is a copy
                if end > seen:
                    pieces.append(text[max(0, seen - start) :])
                    seen = end
            buffer = "".join(pieces)
            at = batch[-1][0] + 1
            while k < len(spans) and spans[k][0] + spans[k][1] <= buffer_at + len(buffer):
                s, n = spans[k]
                out.append(buffer[s - buffer_at : s - buffer_at + n])
                k += 1
            keep_from = spans[k][0] if k < len(spans) else buffer_at + len(buffer)
            buffer, buffer_at = buffer[keep_from - buffer_at :], keep_from
        out += [""] * (len(spans) - len(out))
        return out

    async def people(self) -> dict[str, str]:
        """The people in the owner's life, by name: whom they write with, and the notes'."""
        measured = await self.measured.get()
        names = [p.name for p in measured.dynamics.people]
        names += [n for x in await self.store.notes.of_ready() for n in x.people]
        owners = {o.casefold() for o in self.owner_names}
        return {n: n for n in dict.fromkeys(names) if n.casefold() not in owners}

    async def languages(self) -> list[str]:
        counted: Counter[str] = Counter()
        for doc in await self.store.documents.all("ready"):
            counted.update(lang for lang in doc.languages.split(",")[:1] if lang)
        found = [lang for lang, _ in counted.most_common()]
        return [self.language, *found] if self.language else found or ["en"]

    async def shapes(self) -> tuple[list[Shape], str]:
        """Every shape in the owner's lines now, and the language to speak of them in (found
        again only when the lines, the people or the languages change: the mirror's page
        shows them at every load)."""
        lines = await self.lines()
        langs = await self.languages()
        people = await self.people()
        assert self._memo is not None  # what `lines` read, by the sources it read them from
        key = (self._memo[0], tuple(people), tuple(langs))
        if self._found is None or self._found[0] != key:
            found = await asyncio.to_thread(shapes, lines, self.owner, people, langs)
            self._found = (key, found)
        return self._found[1], langs[0]

    # -- the pass -------------------------------------------------------------------------

    async def plan(self) -> ShapesPlan:
        """The shapes not judged yet, and what asking their questions will cost."""
        found, language = await self.shapes()
        judged = await self.store.mirror.judged_keys()
        todo = [s for s in found if s.key not in judged]
        asks = [(s, a) for s in todo for a in s.asks]  # weighed, as most local servers can
        messages = [m for s, a in asks for m in q.weighed(s, a)]
        messages += dict.fromkeys(m for s, a in asks for m in q.weighed(s, a, blank=True))
        calls = len(messages)
        system = len(q.system_prompt(self.owner, weighed=True))
        chars = sum(len(m) for m in messages) + calls * system
        prompt = int(chars / CHARS_PER_TOKEN)
        completion = calls * q.TOKENS_OUT
        price = await prices(self.reader)
        usd = Prices(*price).usd(prompt, completion) if price is not None else None
        local = self.reader.is_local
        seconds = calls * (1.0 if local else 1.5) + (prompt / 120 if local else 0.0)
        estimate = Estimate(calls, prompt, completion, usd, seconds)
        spans = len({x.span for s in found for x in s.lines})
        return ShapesPlan(todo, estimate, spans, calls, language)

    async def run(
        self,
        on_progress: Callable[[int, int], Awaitable[None]] | None = None,
        plan: ShapesPlan | None = None,
    ) -> ShapesReport:
        """Ask each shape's questions; keep each shape with what its answers kept. Stops,
        keeping what is done, at the daily spend limit or when the model can't be reached."""
        async with self._lock:
            plan = plan or await self.plan()
            report = ShapesReport()
            model = self.backend.reader()
            system = q.system_prompt(self.owner)
            blanks: dict[str, float] = {}  # a blank question's chance of yes, asked once
            for n, shape in enumerate(plan.todo):
                if on_progress:
                    await on_progress(n, len(plan.todo))
                said: dict[int, bool] = {}
                usage = Usage(0, 0, 0.0)
                try:
                    for a, ask in enumerate(shape.asks):
                        yes, cost, calls = await self._weigh(model, shape, ask, blanks)
                        usage, report.calls = _plus(usage, cost), report.calls + calls
                        if yes is None:  # no probabilities from this endpoint: its answers
                            yes, cost, calls = await self._ask_twice(model, system, shape, ask)
                            usage, report.calls = _plus(usage, cost), report.calls + calls
                        said[a] = bool(yes)
                        report.failed += yes is None
                except (SpendLimitReached, LLMError) as exc:
                    report.stopped = exc.user_message
                    break
                report.prompt_tokens += usage.prompt_tokens
                report.completion_tokens += usage.completion_tokens
                kept = q.kept(shape, said)
                report.judged += 1
                report.yes += kept is not None
                said_so = statement(shape, kept, plan.language) if kept is not None else ""
                await self.store.mirror.keep_judged(_judged(shape, kept, said_so, usage))
            if on_progress:
                await on_progress(len(plan.todo), len(plan.todo))
            return report

    async def _weigh(
        self, model: JsonModel, shape: Shape, ask: Ask, blanks: dict[str, float]
    ) -> tuple[bool | None, Usage, int]:
        """An ask decided by the model's chance of yes in every order, against its chance
        for the same question about blank lines; None where the endpoint gives no chances."""
        usage, calls = Usage(0, 0, 0.0), 0
        if not isinstance(model, WeighsYes) or model.weighs is False:
            return None, usage, calls
        system = q.system_prompt(self.owner, weighed=True)
        chances: list[list[float]] = [[], []]
        for blank in (False, True):
            for text in q.weighed(shape, ask, blank):
                if blank and text in blanks:
                    chances[1].append(blanks[text])
                    continue
                await model.check_budget()
                messages = [
                    {"role": "system", "content": system},
                    {"role": "user", "content": text},
                ]
                chance, cost = await model.chance_of_yes(messages, "mirror")
                usage, calls = _plus(usage, cost), calls + 1
                if chance is None:
                    return None, usage, calls
                chances[blank].append(chance)
                if blank:
                    blanks[text] = chance
        return q.holds(chances[0], chances[1]), usage, calls

    async def _ask_twice(
        self, model: JsonModel, system: str, shape: Shape, ask: Ask
    ) -> tuple[bool | None, Usage, int]:
        """An ask decided by the model's yes asked twice (the second the other way round)."""
        yes, usage = await self._ask(model, system, shape, ask, False)
        if not yes:
            return yes, usage, 1
        yes, cost = await self._ask(model, system, shape, ask, True)
        return yes, _plus(usage, cost), 2

    async def _ask(
        self, model: JsonModel, system: str, shape: Shape, ask: Ask, second: bool
    ) -> tuple[bool | None, Usage]:
        await model.check_budget()
        reply = await model.complete_json(
            [
                {"role": "system", "content": system},
                {"role": "user", "content": q.message(shape, ask, second)},
            ],
            q.SCHEMA,
            "mirror",
            q.TOKENS_OUT * 4,
            steady=True,
        )
        return q.answer(reply.text), reply.usage

    # -- the patterns ---------------------------------------------------------------------

    async def patterns(self) -> tuple[list[Pattern], int]:
        """The patterns the questions kept, with their lines as the sources have them now:
        a pattern one of whose lines is gone (its source forgotten) is dropped, and the
        next pass finds what is left of it; and how many were dropped."""
        now = {x.span: x for x in await self.lines()}
        found, dropped = [], 0
        for j in await self.store.mirror.judged(DESIGN):
            if j.verdict != "yes":
                continue
            lines = [now.get(s) for s in j.lines_for]
            kept = sorted((x for x in lines if x is not None), key=lambda x: (x.day, x.start))
            if len(kept) < len(lines) or len({x.day for x in kept}) < 2:
                dropped += 1
                continue
            found.append(
                Pattern(
                    id=pattern_id(j.key),
                    key=j.key,
                    kind=j.kind,
                    statement=j.statement,
                    confidence=j.confidence,
                    people=j.people,
                    evidence=tuple(evidence(x) for x in kept),
                    counter=tuple(evidence(now[s]) for s in j.lines_against if s in now),
                )
            )
        return found, dropped

    async def worth_a_look(self) -> list[Pattern]:
        """With no model to ask: the strongest shapes, their lines and no claim."""
        found, language = await self.shapes()
        strong = sorted((s for s in found if s.score >= LOOK_SCORE), key=lambda s: -s.score)
        return [
            Pattern(
                id=pattern_id(s.key),
                key=s.key,
                kind=s.kind,
                statement=worth_a_look(s.lines, language),
                confidence="worth a look",
                people=s.people,
                evidence=tuple(evidence(x) for x in s.lines),
                counter=tuple(evidence(x) for x in s.against),
            )
            for s in strong[:SHOWN]
        ]


def evidence(line: Line) -> Evidence:
    return Evidence(line_id(line.span), line.source_id, line.start, line.end, line.text,
                    line.date, "")  # fmt: skip


def line_id(span: Span) -> int:
    """A line's number where a note's id would be (the owner's word on a pattern is kept
    by these): negative, so it is never a note's."""
    doc_id, start, _ = span
    return -(doc_id * 1_000_000_000 + start)


def _plus(a: Usage, b: Usage) -> Usage:
    return Usage(
        a.prompt_tokens + b.prompt_tokens,
        a.completion_tokens + b.completion_tokens,
        a.cost_usd + b.cost_usd,
    )


def _judged(shape: Shape, kept: tuple[int, ...] | None, said: str, usage: Usage) -> Judged:
    lines = shape.lines if kept is None else tuple(shape.lines[i] for i in kept)
    return Judged(
        key=shape.key,
        kind=shape.kind,
        design=DESIGN,
        people=tuple(dict.fromkeys((shape.about, *shape.people)))
        if shape.kind == "avoidance"
        else shape.people,
        verdict="yes" if kept is not None else "no",
        statement=said,
        why="",
        confidence="high" if kept is not None and len(kept) >= 3 else "medium",
        notes_for=(),
        notes_against=(),
        prompt_tokens=usage.prompt_tokens,
        completion_tokens=usage.completion_tokens,
        judged_at=datetime.now(UTC).isoformat(timespec="seconds"),
        lines_for=tuple(x.span for x in lines),
        lines_against=tuple(x.span for x in shape.against),
    )
