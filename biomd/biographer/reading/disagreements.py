"""Two sources that may disagree, found by rules in the reader's notes: two counts of one
span ("six years in that room", "seven years in that room") that the time between them does
not explain, and the same words said in two sources, negated in only one ("I am not fine for
money", "I'm fine for money"). Pure functions."""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Sequence
from datetime import date
from itertools import combinations

from biomd.biographer.cues import NEGATION, subjects, words
from biomd.biographer.reading.lead import Lead, key, short, when
from biomd.storage.notes import Note

MOST_CONFLICTS = 3  # of each kind, in one round
_COUNT = re.compile(
    r"\b(\d{1,3}|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)\s+"
    r"(years?|months?|weeks?)\b",
    re.I,
)
_NUMBER_WORDS = {
    w: i
    for i, w in enumerate(
        "zero one two three four five six seven eight nine ten eleven twelve".split()
    )
}
_YEARS = {"year": 1.0, "month": 1 / 12, "week": 1 / 52}


def _counts(text: str) -> list[tuple[float, str]]:
    """The spans of time a text counts ("six years" → (6.0, "year")), in years."""
    found = []
    for m in _COUNT.finditer(text):
        n = m[1].lower()
        value = float(n) if n.isdigit() else float(_NUMBER_WORDS[n])
        unit = m[2].lower().rstrip("s")
        found.append((value * _YEARS[unit], unit))
    return found


def _years_between(a: str | None, b: str | None) -> float | None:
    try:
        da, db = date.fromisoformat(_full(a)), date.fromisoformat(_full(b))
    except (TypeError, ValueError):
        return None
    return abs((db - da).days) / 365.25


def _full(value: str | None) -> str:
    if not value:
        raise ValueError("undated")
    v = value[:10]
    return v + "-01-01"[len(v) - 4 :] if len(v) < 10 else v


def count_conflicts(notes: Sequence[Note]) -> list[Lead]:
    """Two sources that count the same span differently ("six years in that room",
    "seven years in that room"), by more than the time between them explains."""
    leads = []
    counted = [(n, c, subjects(_COUNT.sub(" ", n.quote))) for n in notes for c in _counts(n.quote)]
    for (a, (va, unit_a), sa), (b, (vb, unit_b), sb) in combinations(counted, 2):
        if a.document_id == b.document_id or unit_a != unit_b or va == vb or len(sa & sb) < 2:
            continue
        gap = _years_between(a.date, b.date)
        if gap is None or abs(abs(va - vb) - gap) <= 0.5:
            continue  # undated, or the difference is the time between them
        leads.append(_conflict("count", a, b))
    return _distinct(leads)[:MOST_CONFLICTS]


def denials(notes: Sequence[Note]) -> list[Lead]:
    """The same words said in two sources, negated in only one ("I am not fine for money" and
    "I'm fine for money"): three words in a row the two share once the negation is gone. Only
    notes that share such a run are compared (a lifetime's notes, not every pair of them)."""
    own = [n for n in notes if n.kind != "claim"]
    sharing: dict[tuple[str, ...], list[int]] = defaultdict(list)
    for i, n in enumerate(own):
        for gram in _runs(n.quote):
            sharing[gram].append(i)
    pairs = sorted({(i, j) for found in sharing.values() for i, j in combinations(found, 2)})
    leads = []
    for i, j in pairs:
        a, b = own[i], own[j]
        if a.document_id == b.document_id or NEGATION(a.quote) == NEGATION(b.quote):
            continue
        if subjects(a.quote) & subjects(b.quote):
            first, second = sorted((a, b), key=lambda n: n.date or "")
            leads.append(_conflict("denial", first, second))
    return _distinct(leads)[:MOST_CONFLICTS]


def _plain(text: str) -> list[str]:
    """A quote's folded words without its negations and contractions ("I'm" → "i", "m")."""
    negations = {"not", "no", "never", "n't", "nt", "dont", "don't", "isn't", "wasn't"}
    return [w for w in re.findall(r"\w+", words(text)) if w not in negations]


def _runs(text: str, n: int = 3) -> set[tuple[str, ...]]:
    """A quote's runs of n words (negations left out) with a word of substance among them."""
    plain = _plain(text)
    grams = {tuple(plain[i : i + n]) for i in range(max(0, len(plain) - n + 1))}
    return {g for g in grams if subjects(" ".join(g))}


def _conflict(kind: str, a: Note, b: Note) -> Lead:
    first, second = sorted((a, b), key=lambda n: (n.date or "", n.document_id))
    return Lead(
        key(kind, first.id, second.id),
        "Hypotheses",
        f"- Two sources may disagree: on {when(first.date)}, “{short(first.quote)}” "
        f"[#{first.document_id}]; on {when(second.date)}, “{short(second.quote)}” "
        f"[#{second.document_id}].",
    )


def _distinct(leads: list[Lead]) -> list[Lead]:
    return list({x.key: x for x in leads}.values())
