"""Patterns: what the mirror's pass kept, as the owner reads them. Each pattern has a
statement in behavioural terms, a confidence, the people involved, its evidence (the owner's
own lines, verbatim, with their sources, spans and dates) and any counter-evidence; and the
owner's word on it. Pure functions."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import date

from biomd.storage.mirror import Verdict


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


def short(quote: str, limit: int = 90) -> str:
    """A quote as a statement cites it: whole, or cut at a space with an ellipsis."""
    quote = " ".join(quote.split()).strip(" .")
    if len(quote) <= limit:
        return quote
    return quote[: quote.rfind(" ", limit // 2, limit)].rstrip(" ,;") + "…"


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
