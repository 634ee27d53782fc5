"""Patterns: what the judging pass judged, made into what the owner reads. Each pattern has a
statement in behavioural terms, a confidence, the people involved, its evidence (the
notes' verbatim quotes with their sources, spans and dates: two dates or more, or it is
dropped) and its counter-evidence. A statement that labels or diagnoses is replaced by a
plain one. Pure functions."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import date

from biomd.app.mirror.candidates import DatedNote
from biomd.app.mirror.care import crisis, labels
from biomd.fold import fold
from biomd.retrieval.language import content_words
from biomd.storage.mirror import Judged, Verdict


@dataclass(frozen=True, slots=True)
class Evidence:
    note_id: int
    source_id: int
    start: int
    end: int
    quote: str
    date: str
    statement: str

    def as_json(self) -> dict[str, object]:
        return {
            "source_id": self.source_id,
            "start": self.start,
            "end": self.end,
            "quote": self.quote,
            "date": self.date,
            "note": self.statement,
            "note_id": self.note_id,
        }


@dataclass(frozen=True, slots=True)
class Pattern:
    id: str
    key: str
    kind: str
    statement: str
    confidence: str
    people: tuple[str, ...]
    evidence: tuple[Evidence, ...]
    counter: tuple[Evidence, ...]
    why: str = ""
    design: str = "judge"
    status: str = "new"
    answers: tuple[int, ...] = ()

    @property
    def notes(self) -> tuple[int, ...]:
        return tuple(e.note_id for e in self.evidence)

    @property
    def sources(self) -> tuple[int, ...]:
        return tuple(sorted({e.source_id for e in (*self.evidence, *self.counter)}))

    def as_json(self) -> dict[str, object]:
        return {
            "id": self.id,
            "kind": self.kind,
            "statement": self.statement,
            "confidence": self.confidence,
            "people": list(self.people),
            "evidence": [e.as_json() for e in self.evidence],
            "counter": [e.as_json() for e in self.counter],
            "why": self.why,
            "status": self.status,
            "answers": list(self.answers),
        }


def pattern_id(key: str) -> str:
    return "P" + key[:8]


def evidence(note: DatedNote) -> Evidence:
    return Evidence(
        note.id, note.source_id, note.start, note.end, note.quote, note.date, note.statement
    )


def _year(note_date: str) -> str:
    return note_date[:4]


def short(quote: str, limit: int = 90) -> str:
    """A quote as a statement cites it: whole, or cut at a space with an ellipsis."""
    quote = " ".join(quote.split()).strip(" .")
    if len(quote) <= limit:
        return quote
    return quote[: quote.rfind(" ", limit // 2, limit)].rstrip(" ,;") + "…"


def plain(kind: str, people: Sequence[str], pieces: Sequence[Evidence]) -> str:
    """A statement made by rule from the evidence itself (so it can't say what the sources
    don't), when the model's can't be used."""
    first, last = pieces[0], pieces[-1]
    person = people[0] if people else "them"

    def said(e: Evidence) -> str:
        return f"\u201c{short(e.quote)}\u201d ({when(e.date)})"

    if kind == "self_contradiction":
        return f"You said {said(first)}, and later the opposite: {said(last)}."
    if kind == "stated_reason":
        decisions = pieces[1::2]
        return (
            f"{len(decisions)} times a sudden decision came within days of a hurt or a "
            f"conflict: {said(pieces[0])}, then {said(pieces[1])}."
        )
    if kind == "avoidance":
        return f"You told others you were hurt by {person}, {said(first)}, but not {person}."
    if kind == "said_vs_did":
        return f"You said {said(first)}; what followed: {said(last)}."
    return (
        f"The same thing came back {len(pieces)} times from {first.date[:4]} to "
        f"{last.date[:4]}: {said(first)} … {said(last)}."
    )


LANGUAGES = ("en", "pt", "es", "de", "fr", "it", "nl")


def supported(statement: str, pieces: Sequence[Evidence]) -> bool:
    """Whether a model's statement says only what its evidence says, as far as words tell:
    most of its content words are in the quotes or the notes, and every number is."""
    source = fold(" ".join(f"{e.quote} {e.statement} {e.date}" for e in pieces))
    words = [fold(w) for w in content_words(statement, LANGUAGES) if len(w) >= 4 or w.isdigit()]
    if not words:
        return False
    numbers = [w for w in words if any(c.isdigit() for c in w)]
    if any(n not in source for n in numbers):
        return False
    found = sum(1 for w in words if w in source)
    return found >= 0.7 * len(words)


def usable_statement(text: str) -> bool:
    """A model's statement the owner may read: behaviour, no label, no crisis words."""
    return bool(text) and len(text) <= 400 and not labels(text) and not crisis(text)


def confidence(pieces: int, against: int, answer: str = "yes") -> str:
    if answer != "yes" or against > pieces // 2:
        return "low"
    if pieces >= 3 and not against:
        return "high"
    return "medium"


def assemble(judged: Sequence[Judged], notes: dict[int, DatedNote]) -> tuple[list[Pattern], int]:
    """The patterns the model said yes to, each with the notes it still rests on; and how
    many were dropped for resting on fewer than two dates (their notes gone, or unverified:
    `notes` holds only the notes whose quotes were verified)."""
    found, dropped = [], 0
    for j in judged:
        if j.verdict != "yes":
            continue
        pieces = [evidence(notes[n]) for n in j.notes_for if n in notes and notes[n].date]
        against = [evidence(notes[n]) for n in j.notes_against if n in notes]
        if len({p.date[:10] for p in pieces}) < 2:
            dropped += 1
            continue
        pieces.sort(key=lambda e: e.date)
        statement = j.statement if usable_statement(j.statement) else ""
        if statement and not supported(statement, pieces):
            statement = ""  # it says what the quotes don't: the plain one instead
        found.append(
            Pattern(
                id=pattern_id(j.key),
                key=j.key,
                kind=j.kind,
                statement=statement or plain(j.kind, j.people, pieces),
                confidence=confidence(len(pieces), len(against)),
                people=j.people,
                evidence=tuple(pieces),
                counter=tuple(against),
                why=j.why if usable_statement(j.why) else "",
                design=j.design,
            )
        )
    return _widest(found), dropped


def _widest(patterns: list[Pattern]) -> list[Pattern]:
    """One pattern for one thing: a pattern that shares half its notes or more (two at
    least) with a larger one of its kind, or with one as large judged later (the same cycle
    seen again with a new note), gives way to it; said-vs-did ones only when they are about
    the same intention. `patterns` are in the order judged."""
    kept: list[Pattern] = []
    for i, p in enumerate(patterns):
        mine = set(p.notes)
        need = max(2, (len(mine) + 1) // 2)
        if not any(
            j != i
            and q.kind == p.kind
            and len(mine & set(q.notes)) >= need
            and (p.kind != "said_vs_did" or p.notes[0] == q.notes[0])  # one intention each
            and (len(q.notes) > len(mine) or (len(q.notes) == len(mine) and j > i))
            for j, q in enumerate(patterns)
        ):
            kept.append(p)
    return kept


def with_status(p: Pattern, verdicts: Sequence[Verdict]) -> Pattern:
    """A pattern with the owner's word on it: its own, or one given on the same notes. A
    dismissal holds until a note it was not given on arrives; a confirmation holds for a
    pattern that grew from the one confirmed."""
    mine = set(p.notes)
    status = "new"
    for v in verdicts:
        if v.item != "pattern" or v.kind != p.kind:
            continue
        theirs = set(v.notes)
        if v.item_id == p.id:
            status = v.status
        elif v.status == "dismissed" and mine <= theirs:
            status = "dismissed"
        elif v.status == "confirmed" and len(mine & theirs) >= min(2, len(mine)):
            status = "confirmed"
    return replace(p, status=status)


def when(note_date: str) -> str:
    """A note's date for a sentence: '14 March 2022', 'March 2022' or '2022'."""
    try:
        if len(note_date) >= 10:
            d = date.fromisoformat(note_date[:10])
            return f"{d.day} {d:%B %Y}"
        if len(note_date) >= 7:
            return date(int(note_date[:4]), int(note_date[5:7]), 1).strftime("%B %Y")
    except ValueError:
        pass
    return note_date
