"""The judging pass's candidates, made by rules from the reader's notes across the whole corpus,
for the model to judge one at a time (a weak model can say yes or no to one candidate; it
can't find patterns across three years of notes at once). Each kind of pattern has its rule:

- self-contradiction: two of the owner's own notes on the same subject (their statements'
  vectors close, and their quotes sharing a word of substance: "London", not "year") about
  the same people, at least 90 days apart, one saying no (never, not, stop…) where the
  other doesn't;
- stated reason vs circumstances: a decision that follows a hurt or a conflict within 14
  days, more than once (two such pairs or more make one candidate);
- avoidance: a hurt or worry about someone, raised in a journal or with someone else on two
  dates or more, with what the owner told that person around those dates; the owner raising
  a hurt with them then, on that subject, is counter-evidence;
- said vs did: an intention and the related notes of the year after it, on its subject (an
  intention with none is kept apart: it can become a question);
- recurring cycle: the same thing (close statements) coming back at three dates or more,
  over two years or more.

Pure functions over `Note`s and their vectors."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import date

import numpy as np
import numpy.typing as npt

from biomd.biographer.cues import DECISION, HURT, INTENTION, NEGATION, subjects

KINDS = ("self_contradiction", "stated_reason", "avoidance", "said_vs_did", "cycle")
OWN_KINDS = frozenset({"fact", "event", "feeling", "habit", "contradiction", "person"})

SAME_SUBJECT = 0.62  # cosine of two statements' vectors on the same subject
SAME_THING = 0.72  # ... that say nearly the same thing (a cycle)
RELATED = 0.5  # ... related (what followed an intention; a subject raised with someone)
APART_DAYS = 90  # a contradiction's two sides are at least this far apart
WITHIN_DAYS = 14  # a decision this soon after a hurt or conflict
FOLLOW_DAYS = 365  # what followed an intention: the year after it
AROUND_DAYS = 30  # the chat with a person around a complaint about them
SOON_DAYS = 7  # what the owner told them right then
LIMIT = 12  # candidates of each kind, the strongest


@dataclass(frozen=True, slots=True)
class DatedNote:
    """A reader's note as the mirror reads it. `day` is the ordinal of its date (a month
    counts as its 15th, a year as 1 July), None if undated; `mine` says the owner says it
    (a journal, or the owner's line of a chat); `chat_with` is the person whose 1:1 chat it
    comes from, by key."""

    id: int
    source_id: int
    kind: str
    statement: str
    quote: str
    start: int
    end: int
    date: str
    day: int | None
    precise: bool
    people: tuple[str, ...]  # person keys
    names: tuple[str, ...]  # as written
    mine: bool = True
    chat_with: str | None = None

    @property
    def text(self) -> str:
        return f"{self.statement} {self.quote}"


@dataclass(frozen=True, slots=True)
class Candidate:
    """A possible pattern: the notes for it, any against it, and how strong the rule found
    it (to keep the strongest of each kind)."""

    kind: str
    notes: tuple[int, ...]
    people: tuple[str, ...] = ()
    against: tuple[int, ...] = ()
    score: float = 0.0
    pairs: tuple[tuple[int, int], ...] = field(default=())  # stated reason: (hurt, decision)

    @property
    def key(self) -> str:
        raw = self.kind + ":" + ",".join(str(n) for n in sorted(self.notes))
        return hashlib.sha1(raw.encode("utf-8")).hexdigest()[:16]


def day_of(value: str | None) -> tuple[int | None, bool]:
    """A note's date as an ordinal day, and whether it is precise to the day."""
    if not value:
        return None, False
    try:
        if len(value) >= 10:
            return date.fromisoformat(value[:10]).toordinal(), True
        if len(value) >= 7:
            return date(int(value[:4]), int(value[5:7]), 15).toordinal(), False
        return date(int(value[:4]), 7, 1).toordinal(), False
    except ValueError:
        return None, False


Vectors = dict[int, npt.NDArray[np.float32]]


def _unit(ids: Sequence[int], vectors: Vectors) -> npt.NDArray[np.float32]:
    dim = next(iter(vectors.values())).shape[-1] if vectors else 1
    if not ids:
        return np.zeros((0, dim), np.float32)
    matrix = np.stack([vectors.get(i, np.zeros(dim, np.float32)) for i in ids]).astype(np.float32)
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    unit: npt.NDArray[np.float32] = (matrix / np.where(norms == 0, 1, norms)).astype(np.float32)
    return unit


def close_pairs(
    ids: Sequence[int], vectors: Vectors, threshold: float, block: int = 1024
) -> list[tuple[int, int, float]]:
    """(i, j, cosine) of every pair i < j of these notes whose vectors are at least
    `threshold` alike, a block of rows at a time (ten thousand notes never make a matrix
    of a hundred million cells)."""
    unit = _unit(ids, vectors)
    out = []
    for lo in range(0, len(ids), block):
        sims = unit[lo : lo + block] @ unit.T
        rows, cols = np.nonzero(sims >= threshold)
        for r, c in zip(rows.tolist(), cols.tolist(), strict=True):
            i = lo + r
            if i < c:
                out.append((i, c, float(sims[r, c])))
    return out


def _same_people(a: DatedNote, b: DatedNote) -> bool:
    return set(a.people) == set(b.people) or bool(set(a.people) & set(b.people))


def contradictions(notes: Sequence[DatedNote], vectors: Vectors) -> list[Candidate]:
    own = [n for n in notes if n.mine and n.day is not None and n.kind in OWN_KINDS]
    found = []
    for i, j, sim in close_pairs([n.id for n in own], vectors, SAME_SUBJECT):
        a, b = own[i], own[j]
        if abs((a.day or 0) - (b.day or 0)) < APART_DAYS or not _same_people(a, b):
            continue
        if NEGATION(a.quote) == NEGATION(b.quote):
            continue  # both say no, or both yes: more likely the same thing twice
        if not subjects(a.quote) & subjects(b.quote):
            continue  # close in meaning, but nothing they are both about
        first, second = sorted((a, b), key=lambda n: n.day or 0)
        found.append(
            Candidate(
                "self_contradiction", (first.id, second.id), _people(first, second), score=sim
            )
        )
    return _strongest(found, one_note_once=True)


def stated_reasons(notes: Sequence[DatedNote]) -> list[Candidate]:
    dated = sorted((n for n in notes if n.precise and n.day is not None), key=lambda n: n.day or 0)
    hurts = [n for n in dated if HURT(n.text)]
    decisions = [n for n in dated if n.mine and DECISION(n.text) and not HURT(n.text)]
    pairs: list[tuple[DatedNote, DatedNote]] = []
    used: set[int] = set()
    for d in decisions:
        before = [
            h
            for h in hurts
            if h.id != d.id and 0 <= (d.day or 0) - (h.day or 0) <= WITHIN_DAYS and h.id not in used
        ]
        if before:
            hurt = max(before, key=lambda h: h.day or 0)
            pairs.append((hurt, d))
            used.add(hurt.id)
    distinct = _distinct_pairs(pairs)
    if len(distinct) < 2:
        return []
    chosen = distinct[-3:]
    ids = tuple(n.id for pair in chosen for n in pair)
    return [
        Candidate(
            "stated_reason",
            ids,
            _people(*(n for pair in chosen for n in pair)),
            score=float(len(distinct)),
            pairs=tuple((h.id, d.id) for h, d in chosen),
        )
    ]


def _distinct_pairs(pairs: list[tuple[DatedNote, DatedNote]]) -> list[tuple[DatedNote, DatedNote]]:
    """Pairs whose decisions fall on different weeks (one decision noted twice is one)."""
    out: list[tuple[DatedNote, DatedNote]] = []
    for hurt, decision in pairs:
        if out and abs((decision.day or 0) - (out[-1][1].day or 0)) <= 7:
            continue
        out.append((hurt, decision))
    return out


def avoidances(notes: Sequence[DatedNote], vectors: Vectors) -> list[Candidate]:
    found = []
    people = {p for n in notes for p in n.people}
    for person in sorted(people):
        complaints = [
            n
            for n in notes
            if person in n.people and n.chat_with != person and n.day is not None and HURT(n.text)
        ]
        if len({n.day for n in complaints}) < 2:
            continue
        mine_to_them = [n for n in notes if n.chat_with == person and n.mine and n.day is not None]
        raised = [n for n in mine_to_them if HURT(n.text) and _near(n, complaints, vectors)]
        smoothed = [
            n
            for n in mine_to_them
            if n not in raised and _near(n, complaints, vectors, days=SOON_DAYS, related=0.0)
        ]
        complaints.sort(key=lambda n: n.day or 0)
        found.append(
            Candidate(
                "avoidance",
                tuple(n.id for n in complaints[:4]) + tuple(n.id for n in smoothed[:2]),
                (_name(complaints, person),),
                against=tuple(n.id for n in raised[:3]),
                score=float(len(complaints) - 2 * len(raised)),
            )
        )
    return _strongest(found)


def _name(notes: Sequence[DatedNote], key: str) -> str:
    """A person's name as the notes write it."""
    for n in notes:
        for k, name in zip(n.people, n.names, strict=True):
            if k == key:
                return name
    return key


def _near(
    note: DatedNote,
    complaints: Sequence[DatedNote],
    vectors: Vectors,
    days: int = AROUND_DAYS,
    related: float = RELATED,
) -> bool:
    """Whether a note of the chat with the person is around a complaint's date (and, with
    `related`, on its subject): what the owner told them then."""
    return any(
        abs((note.day or 0) - (c.day or 0)) <= days and _cos(vectors, note.id, c.id) >= related
        for c in complaints
    )


def _cos(vectors: Vectors, a: int, b: int) -> float:
    va, vb = vectors.get(a), vectors.get(b)
    if va is None or vb is None:
        return 0.0
    denominator = float(np.linalg.norm(va) * np.linalg.norm(vb)) or 1.0
    return float(va @ vb) / denominator


def intentions(
    notes: Sequence[DatedNote], vectors: Vectors
) -> tuple[list[Candidate], list[DatedNote]]:
    """Said vs did: each intention with what followed it; and the intentions nothing
    followed in the sources (each can become a question)."""
    dated = sorted((n for n in notes if n.day is not None), key=lambda n: n.day or 0)
    # the intention must be in the owner's own words (the quote), not only in the reader's
    # summary: a small reader summarised a chat's heading "WhatsApp chat: Leo" as a plan
    said = [n for n in dated if n.mine and INTENTION(n.quote) and n.kind != "gap"]
    found, open_ = [], []
    for s in said:
        later = [
            n
            for n in dated
            if n.id != s.id
            and 0 < (n.day or 0) - (s.day or 0) <= FOLLOW_DAYS
            and _cos(vectors, s.id, n.id) >= RELATED
            and (not s.people or _same_people(s, n))
            and not INTENTION(n.text)  # another promise is not what followed
            and subjects(s.quote) & subjects(n.quote)  # and it is about the same thing
        ]
        if later:
            best = sorted(later, key=lambda n: -_cos(vectors, s.id, n.id))[:3]
            best.sort(key=lambda n: n.day or 0)
            found.append(
                Candidate(
                    "said_vs_did",
                    (s.id, *(n.id for n in best)),
                    _people(s, *best),
                    score=max(_cos(vectors, s.id, n.id) for n in best),
                )
            )
        else:
            open_.append(s)
    return _strongest(found), open_


def cycles(notes: Sequence[DatedNote], vectors: Vectors) -> list[Candidate]:
    dated = [n for n in notes if n.day is not None and n.mine]
    parent = list(range(len(dated)))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for i, j, _ in close_pairs([n.id for n in dated], vectors, SAME_THING):
        parent[root(i)] = root(j)
    groups: dict[int, list[DatedNote]] = {}
    for i, n in enumerate(dated):
        groups.setdefault(root(i), []).append(n)
    found = []
    for group in groups.values():
        days = sorted({(n.day or 0) // 30 for n in group})
        years = {date.fromordinal(n.day or 1).year for n in group}
        if len(days) < 3 or len(years) < 2:
            continue
        group.sort(key=lambda n: n.day or 0)
        kept = _spread(group, 6)
        found.append(Candidate("cycle", tuple(n.id for n in kept), _people(*kept), score=len(days)))
    return _strongest(found)


def _spread(notes: list[DatedNote], most: int) -> list[DatedNote]:
    """At most `most` notes, one a month, spread over the whole span."""
    by_month: dict[int, DatedNote] = {}
    for n in notes:
        by_month.setdefault((n.day or 0) // 30, n)
    picked = list(by_month.values())
    if len(picked) <= most:
        return picked
    step = (len(picked) - 1) / (most - 1)
    return [picked[round(i * step)] for i in range(most)]


def _people(*notes: DatedNote) -> tuple[str, ...]:
    return tuple(dict.fromkeys(p for n in notes for p in n.names))


def _strongest(found: Iterable[Candidate], one_note_once: bool = False) -> list[Candidate]:
    ranked = sorted(found, key=lambda c: (-c.score, c.key))
    if not one_note_once:
        return ranked[:LIMIT]
    out: list[Candidate] = []
    used: set[int] = set()
    for c in ranked:
        if used & set(c.notes):
            continue
        out.append(c)
        used |= set(c.notes)
        if len(out) == LIMIT:
            break
    return out


def candidates(
    notes: Sequence[DatedNote], vectors: Vectors
) -> tuple[list[Candidate], list[DatedNote]]:
    """Every candidate of every kind, and the intentions with nothing after them."""
    said, open_ = intentions(notes, vectors)
    found = [
        *contradictions(notes, vectors),
        *stated_reasons(notes),
        *avoidances(notes, vectors),
        *said,
        *cycles(notes, vectors),
    ]
    return found, open_
