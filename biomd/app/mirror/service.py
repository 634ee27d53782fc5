"""The mirror, as every front-end sees it: the measured figures per person and month, the
findings and patterns with their evidence, and the owner's word on each. Confirming puts a
line in bio.md's Patterns (a revision like any, undone by /undo); dismissing keeps it from
coming back until new evidence arrives; answering keeps the answer as a source; an
intention with no outcome can become an open question, pushed like any."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field, replace
from datetime import datetime

from biomd.app.mirror.care import HELP, NOT_A_THERAPIST
from biomd.app.mirror.dynamics import LeftOut, MonthFigures, Rhythm
from biomd.app.mirror.findings import Finding
from biomd.app.mirror.measured import Measured, MeasuredSide
from biomd.app.mirror.notes import DatedNote, MirrorNotes, open_intentions
from biomd.app.mirror.patterns import Pattern, when, with_status
from biomd.app.mirror.shape_pass import ShapePass, ShapesPlan, ShapesReport
from biomd.app.pictures.people import same_person
from biomd.app.sources import Sources
from biomd.biographer.backend import Backend
from biomd.biographer.profile import Profile
from biomd.biographer.profile_text import MIRROR_MARK
from biomd.endpoints import Endpoint
from biomd.errors import BiomdError, NotFound
from biomd.settings.groups import MirrorSettings, OwnerSettings
from biomd.storage.mirror import Verdict
from biomd.storage.store import Store

log = logging.getLogger(__name__)

NEAR_MONTHS = 3  # a finding this close to one the owner gave their word on is the same


@dataclass(frozen=True, slots=True)
class PersonView:
    name: str
    sources: tuple[int, ...]
    months: list[MonthFigures]

    def as_json(self) -> dict[str, object]:
        return {
            "name": self.name,
            "sources": list(self.sources),
            "months": [_month_json(m) for m in self.months],
        }


def _month_json(m: MonthFigures) -> dict[str, object]:
    row: dict[str, object] = {}
    for name in MonthFigures.__slots__:
        value = getattr(m, name)
        row[name] = round(value, 1) if isinstance(value, float) else value
    return row


@dataclass(frozen=True, slots=True)
class Intention:
    """Something the owner said they would do, and nothing after it in the sources."""

    id: str
    note_id: int
    source_id: int
    date: str
    statement: str
    quote: str
    start: int
    end: int
    question: str

    def as_json(self) -> dict[str, object]:
        return {
            "id": self.id,
            "source_id": self.source_id,
            "date": self.date,
            "statement": self.statement,
            "quote": self.quote,
            "start": self.start,
            "end": self.end,
            "question": self.question,
        }


@dataclass
class MirrorView:
    people: list[PersonView]
    findings: list[Finding]
    patterns: list[Pattern]
    intentions: list[Intention] = field(default_factory=list)
    rhythm: list[Rhythm] = field(default_factory=list)
    left_out: list[LeftOut] = field(default_factory=list)
    care: bool = False
    dropped: dict[str, int] = field(default_factory=dict)

    def as_json(self) -> dict[str, object]:
        return {
            "people": [p.as_json() for p in self.people],
            "findings": [f.as_json() for f in self.findings],
            "patterns": [p.as_json() for p in self.patterns],
            "intentions": [i.as_json() for i in self.intentions],
            "late_night": [
                {
                    "month": r.month,
                    "messages_owner": r.messages_owner,
                    "late_night_owner": r.late_night_owner,
                }
                for r in self.rhythm
            ],
            "left_out": [
                {"source_id": x.source_id, "chat": x.chat, "reason": x.reason}
                for x in self.left_out
            ],
            "dropped": self.dropped,
            "note": NOT_A_THERAPIST,
            "care": HELP if self.care else None,
        }


class Mirror:
    def __init__(
        self,
        mirror: MirrorSettings,
        owner: OwnerSettings,
        reader: Endpoint,
        store: Store,
        profile: Profile,
        sources: Sources,
        backend: Backend,
    ) -> None:
        """The mirror's pass asks its questions of the reader (`reader`)."""
        self.settings = mirror
        self.owner = owner
        self.store = store
        self.profile = profile
        self.sources = sources
        self.backend = backend
        self.measured = MeasuredSide(mirror.silence_hours, owner.names, store)
        self.notes = MirrorNotes(store, self.measured)
        self.shapes = ShapePass(owner.names, owner.language, reader, store, backend, self.measured)

    async def warm(self) -> None:
        """What the mirror's page needs made once a change of the sources: the chats
        parsed, the owner's lines read and their signs of crisis counted, and with no model
        the shapes worth a look (a 50 MB export's rules take seconds; the page, then, not)."""
        await self.measured.warm()
        await self.shapes.in_crisis()
        if not self.backend.configured:
            await self.shapes.shapes()

    async def view(
        self, person: str | None = None, since: str | None = None, until: str | None = None
    ) -> MirrorView:
        """What the mirror shows now: everyone's figures (or one person's), the findings and
        the patterns, each with the owner's word on it; within [since, until] if given."""
        lo, hi = _window(since, "since"), _window(until, "until")
        if lo > hi:
            raise BiomdError(f"The start ({since}) comes after the end ({until}): swap them.")
        measured = await self.measured.get()
        verdicts = await self.store.mirror.verdicts()
        answers = await self.store.mirror.answers()
        people = [
            PersonView(p.name, p.sources, [m for m in p.months if lo <= m.month <= hi])
            for p in measured.dynamics.people
        ]
        findings = [
            replace(
                f,
                status=finding_status(f, verdicts),
                answers=tuple(answers.get(f.id, ())),
            )
            for f in measured.findings
            if lo <= f.month <= hi
        ]
        notes = await self.notes.view()
        patterns, dropped = await self._patterns()
        patterns = [
            replace(with_status(p, verdicts), answers=tuple(answers.get(p.id, ())))
            for p in patterns
            if any(lo <= e.date[:7] <= hi for e in p.evidence)
        ]
        usable = [n for i, n in notes.notes.items() if i not in notes.crisis]
        open_ = self._intentions(open_intentions(usable, notes.vectors), verdicts)
        open_ = [i for i in open_ if lo <= i.date[:7] <= hi]
        rhythm = [r for r in measured.dynamics.rhythm() if lo <= r.month <= hi]
        if person is not None:
            wanted = self._person(person, measured, patterns)
            people = [p for p in people if same_person(p.name, wanted)]
            findings = [f for f in findings if f.person and same_person(f.person, wanted)]
            patterns = [p for p in patterns if any(same_person(n, wanted) for n in p.people)]
            open_, rhythm = [], []
        order = {"new": 0, "confirmed": 1, "dismissed": 2}
        findings.sort(key=lambda f: order.get(f.status, 3))
        patterns.sort(key=lambda p: (order.get(p.status, 3), p.confidence != "high"))
        return MirrorView(
            people=people,
            findings=findings,
            patterns=patterns,
            intentions=open_,
            rhythm=rhythm,
            left_out=measured.dynamics.left_out,
            care=bool(notes.crisis) or bool(await self.shapes.in_crisis()),
            dropped={"findings": measured.dropped, "patterns": dropped},
        )

    async def _patterns(self) -> tuple[list[Pattern], int]:
        """The patterns the pass kept, and how many were dropped; with no model to ask, the
        strongest shapes as worth a look."""
        if not self.backend.configured:
            return await self.shapes.worth_a_look(), 0
        return await self.shapes.patterns()

    def _person(self, name: str, measured: Measured, patterns: list[Pattern]) -> str:
        """The person asked for, as the mirror knows them; NotFound with who it knows."""
        known = [p.name for p in measured.dynamics.people]
        known += [n for p in patterns for n in p.people]
        match = next((k for k in known if same_person(k, name)), None)
        unmarked = [
            c.title or f"source #{doc_id}"
            for doc_id, parsed in measured.parsed.items()
            for c in parsed.chats
            if not c.owner_messages and any(same_person(n, name) for n in c.speakers)
        ]
        if match is None and unmarked:
            raise NotFound(
                f"The chat with {name} ({', '.join(unmarked[:3])}) is left out: none of its "
                "lines is marked as yours, so the mirror can't tell your messages from theirs. "
                "Set BIOMD_OWNER_NAMES to your name as it appears there (`biomd config set "
                "BIOMD_OWNER_NAMES YourName`)."
            )
        groups = [
            c.title or f"source #{doc_id}"
            for doc_id, parsed in measured.parsed.items()
            for c in parsed.chats
            if len(c.speakers) > 1
            and c.owner_messages
            and any(same_person(n, name) for n in c.speakers)
        ]
        if match is None and groups:
            raise NotFound(
                f"{name} writes with you only in group chats ({', '.join(groups[:3])}), which "
                "the mirror leaves out of the people: replies and who starts have no clear "
                "meaning there. Your late-night rhythm counts them."
            )
        if match is None:
            listed = ", ".join(dict.fromkeys(known)) or "nobody yet (no 1:1 chat is in)"
            raise NotFound(
                f"The mirror knows no one called {name!r}. It knows the people you write "
                f"with one to one and those in its patterns: {listed}."
            )
        return match

    def _intentions(self, open_: list[DatedNote], verdicts: list[Verdict]) -> list[Intention]:
        """The open intentions as questions, but those the owner was asked already."""
        asked = {v.item_id for v in verdicts if v.item == "pattern" and v.kind == "intention"}
        out = []
        for n in open_:
            item = f"I{n.id}"
            if item in asked:
                continue
            said = n.statement.rstrip(".")
            question = (
                f"In {when(n.date)} you said: \u201c{n.quote[:160]}\u201d. Did you? "
                f"({said}) [#{n.source_id}]"
            )
            out.append(
                Intention(
                    item, n.id, n.source_id, n.date, n.statement, n.quote, n.start, n.end, question
                )
            )
        return out[-20:]

    # -- the owner's word -----------------------------------------------------------------

    async def _item(self, item_id: str) -> Finding | Pattern:
        view = await self.view()
        items: list[Finding | Pattern] = [*view.findings, *view.patterns]
        for item in items:
            if item.id.lower() == item_id.strip().lower():
                return item
        raise NotFound(f"There is no finding or pattern {item_id} in the mirror now.")

    async def confirm(self, item_id: str) -> str:
        """ "That's me": its line added to bio.md's Patterns, and kept as confirmed."""
        item = await self._item(item_id)
        placed = bool(await self._placed(item.id))
        if item.status == "confirmed" and placed:
            return f"{item.id} was confirmed already; it is in bio.md's Patterns."
        if not placed:
            cites = ", ".join(f"#{s}" for s in item.sources)
            line = f"- {item.statement} [{cites}] {MIRROR_MARK}{item.id}, confirmed by you)"
            await self._edit_patterns("", line, f"confirmed {item.id}")
        await self.store.mirror.give_verdict(_verdict(item, "confirmed"))
        return f"Confirmed {item.id}; it is in bio.md's Patterns now (/undo takes it out)."

    async def dismiss(self, item_id: str) -> str:
        """ "Not me": kept as dismissed (its line leaves bio.md if it was confirmed); it
        comes back only with new evidence."""
        item = await self._item(item_id)
        await self._unplace(item.id)
        await self.store.mirror.give_verdict(_verdict(item, "dismissed"))
        return (
            f"Dismissed {item.id}: it is set aside, and comes back only if a new source adds "
            "evidence to it."
        )

    async def _placed(self, item_id: str) -> list[str]:
        """The lines of bio.md that a confirmation of this item put there."""
        mark = f"{MIRROR_MARK}{item_id},".casefold()
        return [
            line for line in (await self.profile.load()).splitlines() if mark in line.casefold()
        ]

    async def _unplace(self, item_id: str) -> int:
        """Take the item's confirmed line out of bio.md, as a revision /undo reverts; how many
        lines went."""
        lines = await self._placed(item_id)
        for line in lines:
            await self._edit_patterns(line, "", f"took back {item_id}")
        return len(lines)

    async def _edit_patterns(self, old: str, new: str, reason: str) -> None:
        """One edit of bio.md's Patterns on the owner's word, as a turn of its own."""
        turn = await self.store.turns.start("mirror", reason)
        try:
            await self.profile.edit(
                old, new, section="patterns", turn_id=turn, mode="owner", reason=reason
            )
        except BiomdError as exc:
            await self.store.turns.finish(turn, "failed", error=exc.user_message)
            raise
        await self.store.turns.finish(turn, "done", report=reason)

    async def answer(self, item_id: str, text: str) -> int:
        """ "There's more to it": the owner's words kept as a source of their own, which the
        biographer reads like any; its id."""
        text = " ".join(text.split())
        if not text:
            raise BiomdError("Say what there is to it, for example: /mirror answer F1a2b3c4 …")
        item = await self._item(item_id)
        now = datetime.now(self.owner.zone)
        owner = self.owner.names[0] if self.owner.names else "Me"
        body = (
            f"Answer to the mirror's {item.id}: {item.statement}\n\n"
            f"[{now:%Y-%m-%d %H:%M}] {owner} (owner): {text}\n"
        )
        doc_id = await self.sources.keep_text(
            body, f"answer to {item.id} ({now:%Y-%m-%d %H:%M}).txt"
        )
        await self.store.mirror.add_answer(item.id, doc_id)
        return doc_id

    async def ask_later(self, intention_id: str) -> str:
        """An intention with no outcome in the sources, as an open question in bio.md (the
        scheduler pushes it like any)."""
        view = await self.view()
        found = next((i for i in view.intentions if i.id.lower() == intention_id.lower()), None)
        if found is None:
            raise NotFound(f"There is no open intention {intention_id} in the mirror now.")
        await self.profile.edit(
            "",
            f"- {found.question}",
            section="questions",
            turn_id=None,
            mode="owner",
            reason=f"the mirror asks about {found.id}",
        )
        await self.store.mirror.give_verdict(
            Verdict(found.id, "pattern", "intention", "", "", "", "confirmed", (found.source_id,),
                    (found.note_id,), found.question, "")
        )  # fmt: skip
        return "It is an open question now; I'll ask you at the usual time."

    async def take_back(self, item_id: str) -> str:
        """Forget the owner's word on an item: it is new again, and a line its confirmation
        put in bio.md is taken out."""
        item_id = item_id.strip()
        unplaced = await self._unplace(item_id)
        if not await self.store.mirror.take_back(item_id) and not unplaced:
            raise NotFound(
                f"You have said nothing of {item_id} in the mirror: nothing to take back."
            )
        return f"Took back your word on {item_id}: it is new again."

    # -- the pass ---------------------------------------------------------------------------

    async def plan(self) -> ShapesPlan:
        return await self.shapes.plan()

    async def refresh(
        self, on_progress: Callable[[int, int], Awaitable[None]] | None = None
    ) -> ShapesReport:
        """The mirror's pass: the questions of every shape not asked about yet."""
        if not self.backend.configured:
            raise BiomdError(
                "The mirror's patterns are found by a language model, and none is configured "
                f"({self.backend.missing}). The measured side works without one."
            )
        return await self.shapes.run(on_progress)


def finding_status(f: Finding, verdicts: list[Verdict]) -> str:
    """The owner's word on a finding: its own, or one given on the same shift (same kind,
    person and direction, within NEAR_MONTHS). A dismissal holds until a source it was not
    given on adds evidence."""
    status = "new"
    for v in verdicts:
        if v.item != "finding" or v.kind != f.kind or v.direction != f.direction:
            continue
        if v.person != (f.person_key or "") or not v.month:
            continue
        if v.item_id == f.id or abs(_months(v.month) - _months(f.month)) <= NEAR_MONTHS:
            if v.status == "dismissed" and not set(f.sources) <= set(v.sources):
                continue
            status = v.status
    return status


def _months(name: str) -> int:
    return int(name[:4]) * 12 + int(name[5:7])


def _verdict(item: Finding | Pattern, status: str) -> Verdict:
    if isinstance(item, Finding):
        return Verdict(
            item.id, "finding", item.kind, item.person_key or "", item.month, item.direction,
            status, item.sources, (), item.statement, "",
        )  # fmt: skip
    return Verdict(
        item.id, "pattern", item.kind, "", "", "", status, item.sources, item.notes,
        item.statement, "",
    )  # fmt: skip


def _window(value: str | None, name: str) -> str:
    """--since/--until as a month bound (YYYY-MM)."""
    if value is None or not value.strip():
        return "0000-00" if name == "since" else "9999-99"
    v = value.strip()
    try:
        if len(v) == 4:
            datetime(int(v), 1, 1)
            return f"{v}-01" if name == "since" else f"{v}-12"
        datetime.fromisoformat(v + "-01" if len(v) == 7 else v)
    except ValueError:
        raise BiomdError(
            f"{'From' if name == 'since' else 'To'} {value!r} is not a date: give YYYY, "
            "YYYY-MM or YYYY-MM-DD."
        ) from None
    return v[:7]
