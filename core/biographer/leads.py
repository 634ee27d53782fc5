"""Open questions and contradictions found by rules from the reader's notes, so that a model
too weak to raise them still gets them into bio.md (a 1.5B model raised 0 of 4 gap questions
in the sample life). Each lead has a stable key, so one raised once is not raised again after
the owner answers or removes it. Pure functions.

- before the record: the sources begin in some year; what came before is a gap;
- a person without context: named in several notes, yet bio.md has no line on who they are;
- an open decision: the owner wrote that something is undecided or unanswered, and no later
  note says more about it;
- a count that disagrees: two sources give the same thing different numbers ("six years in
  that room" against "seven years in that room"), more than the time between them explains;
- a statement and its denial: the same words in two sources, one of them negated ("I am not
  fine for money", "I'm fine for money")."""

from __future__ import annotations

import hashlib
import re
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import date
from itertools import combinations

from core.biographer.mirror.candidates import subjects
from core.biographer.mirror.cues import NEGATION, words
from core.biographer.profile_text import section
from core.fold import fold
from core.storage.extracts import Extract

PEOPLE_SECTION = "People & relationships"
MOST_PEOPLE = 3  # people asked about in one round, the most noted first
MOST_DECISIONS = 2
MOST_CONFLICTS = 3
RELATIONS = frozenset(
    fold("""mum mom mother dad father mam mama papa parents brother sister son daughter wife
    husband partner boyfriend girlfriend grandma grandmother grandad grandfather granny aunt
    uncle cousin baby friend boss tutor teacher doctor mãe pai mutter vater madre padre mère
    père""").split()
)
"""Words a reader puts among a note's people that name a role, not a person (folded)."""
_PLACE_BEFORE = re.compile(r"\b(?:in|at|to|from|near|into|of|em|en|nach|à|a)\s+$", re.I)
UNDECIDED = re.compile(
    r"\b(?:need to decide|have to decide|haven't decided|have not decided|can't decide|"
    r"not sure (?:if|whether)|haven't answered|have not answered|haven't replied|"
    r"haven't told|have not told|still thinking about|deciding|undecided|torn between|"
    r"no sé si|não sei se|ainda não decidi|weiß nicht, ob|je ne sais pas si)\b",
    re.I,
)
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
_MONTHS = (
    "January February March April May June July August September October November December"
).split()


@dataclass(frozen=True, slots=True)
class Lead:
    """A line to add to bio.md: an open question or a contradiction, with its stable key (a
    digest, so that a forgotten source's names do not stay behind in it)."""

    key: str
    section: str  # "Open questions" or "Hypotheses"
    line: str


def _key(*parts: object) -> str:
    return hashlib.sha256(":".join(map(str, parts)).encode()).hexdigest()[:24]


def _when(value: str | None) -> str:
    return value[:10] if value else "undated"


def before_record(first: str | None, source: int | None) -> list[Lead]:
    """A question about the years before the first dated source."""
    if not first or source is None or not re.match(r"\d{4}", first):
        return []
    year = first[:4]
    month = f"{_MONTHS[int(first[5:7]) - 1]} {year}" if re.match(r"\d{4}-\d{2}", first) else year
    return [
        Lead(
            _key("before", year),
            "Open questions",
            f"- Where did you grow up, and what did you do before {year}? Your sources begin "
            f"in {month} [#{source}], so everything earlier is missing.",
        )
    ]


def _is_place(name: str, quotes: Iterable[str]) -> bool:
    """Whether a name reads as a place or an organisation in the notes' quotes ("in Lisbon",
    "from Lumen Health")."""
    for quote in quotes:
        for m in re.finditer(re.escape(name), quote):
            if _PLACE_BEFORE.search(quote[: m.start()]):
                return True
    return False


TIES = frozenset(
    """together married dating engaged partner girlfriend boyfriend wife husband brother
    sister mum mom mother dad father son daughter friend cousin aunt uncle boss colleague
    my""".split()
)
NEAR = 4  # words either side of a name where its tie to the owner is said


def _described(name: str, bio: str) -> bool:
    """Whether a line of bio.md says who `name` is to the owner, near the name ("Inês and I
    have been together…", "Tom, my brother…"; not "Tom's new baby")."""
    first = words(name).split()[0]
    for line in bio.splitlines():
        said = words(line).split()
        for i, w in enumerate(said):
            if w == first and TIES & set(said[max(0, i - NEAR) : i + NEAR + 1]):
                return True
    return False


def people_without_context(
    notes: Sequence[Extract], bio: str, owner_names: Sequence[str]
) -> list[Lead]:
    """A question about each person named in two notes or more whom bio.md's People section
    does not name: who they are to the owner, and where things stand."""
    known = fold(section(bio, PEOPLE_SECTION))
    owners = {fold(n) for n in owner_names}
    by_name: dict[str, list[Extract]] = defaultdict(list)
    for n in notes:
        for name in dict.fromkeys(n.people):
            by_name[name.strip()].append(n)
    leads = []
    for name, found in sorted(by_name.items(), key=lambda kv: -len(kv[1])):
        folded = fold(name)
        if (
            len(found) < 2
            or not name[:1].isupper()
            or folded in owners
            or folded.split()[0] in owners
            or folded in RELATIONS
            or folded in known
            or _described(name, bio)
            or not any(name in n.quote for n in found)  # a name in the source's own words
            or _is_place(name, (n.quote for n in found))
        ):
            continue
        ids = sorted({n.document_id for n in found})
        years = sorted({n.date[:4] for n in found if n.date})
        span = (
            f" in {years[0]}"
            if len(years) == 1
            else (f" from {years[0]} to {years[-1]}" if years else "")
        )
        cites = ", ".join(f"#{i}" for i in ids)
        leads.append(
            Lead(
                _key("person", folded),
                "Open questions",
                f"- Who is {name} to you, and where do things stand between you now? {name} "
                f"comes up in {len(found)} notes{span}, but nothing says who they are to you "
                f"[{cites}].",
            )
        )
        if len(leads) == MOST_PEOPLE:
            break
    return leads


def open_decisions(notes: Sequence[Extract]) -> list[Lead]:
    """A question about each thing the owner left undecided or unanswered that no later note
    takes up (by its people or its words), the latest first."""
    leads = []
    dated = sorted((n for n in notes if n.date), key=lambda n: n.date or "", reverse=True)
    for n in dated:
        if not UNDECIDED.search(n.quote) and not UNDECIDED.search(n.statement):
            continue
        topic = set(n.people) | subjects(n.quote)
        later = [
            m
            for m in dated
            if (m.date or "") > (n.date or "")
            and m.document_id != n.document_id
            and (set(m.people) & set(n.people) or subjects(m.quote) & subjects(n.quote))
        ]
        if later or not topic:
            continue
        about = f" (about {', '.join(n.people)})" if n.people else ""
        leads.append(
            Lead(
                _key("decision", n.document_id, n.start),
                "Open questions",
                f"- What came of it: what did you decide{about}? On {_when(n.date)} you wrote "
                f"“{_short(n.quote)}” [#{n.document_id}], and no later source says.",
            )
        )
        if len(leads) == MOST_DECISIONS:
            break
    return leads


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


def count_conflicts(notes: Sequence[Extract]) -> list[Lead]:
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


def denials(notes: Sequence[Extract]) -> list[Lead]:
    """The same words said in two sources, negated in only one ("I am not fine for money" and
    "I'm fine for money"): three words in a row the two share once the negation is gone."""
    leads = []
    own = [n for n in notes if n.kind != "claim"]
    for a, b in combinations(own, 2):
        if a.document_id == b.document_id or NEGATION(a.quote) == NEGATION(b.quote):
            continue
        if _shared_run(a.quote, b.quote) and subjects(a.quote) & subjects(b.quote):
            first, second = sorted((a, b), key=lambda n: n.date or "")
            leads.append(_conflict("denial", first, second))
    return _distinct(leads)[:MOST_CONFLICTS]


def _plain(text: str) -> list[str]:
    """A quote's folded words without its negations and contractions ("I'm" → "i", "m")."""
    negations = {"not", "no", "never", "n't", "nt", "dont", "don't", "isn't", "wasn't"}
    return [w for w in re.findall(r"\w+", words(text)) if w not in negations]


def _shared_run(a: str, b: str, n: int = 3) -> bool:
    """Whether two quotes share n words in a row, one of them a word of substance."""
    grams = {tuple(_plain(a)[i : i + n]) for i in range(max(0, len(_plain(a)) - n + 1))}
    wb = _plain(b)
    for i in range(max(0, len(wb) - n + 1)):
        gram = tuple(wb[i : i + n])
        if gram in grams and subjects(" ".join(gram)):
            return True
    return False


def _conflict(kind: str, a: Extract, b: Extract) -> Lead:
    first, second = sorted((a, b), key=lambda n: (n.date or "", n.document_id))
    return Lead(
        _key(kind, first.id, second.id),
        "Hypotheses",
        f"- Two sources may disagree: on {_when(first.date)}, “{_short(first.quote)}” "
        f"[#{first.document_id}]; on {_when(second.date)}, “{_short(second.quote)}” "
        f"[#{second.document_id}].",
    )


def _distinct(leads: list[Lead]) -> list[Lead]:
    return list({x.key: x for x in leads}.values())


def _short(quote: str, most: int = 160) -> str:
    text = " ".join(quote.split())
    return text if len(text) <= most else text[: most - 1].rsplit(" ", 1)[0] + "…"


def leads(
    notes: Sequence[Extract],
    bio: str,
    owner_names: Sequence[str],
    first: str | None,
    first_source: int | None,
    raised: Iterable[str],
) -> list[Lead]:
    """Every lead not raised before, nor already in bio.md in the same words."""
    done = set(raised)
    found = [
        *before_record(first, first_source),
        *people_without_context(notes, bio, owner_names),
        *open_decisions(notes),
        *count_conflicts(notes),
        *denials(notes),
    ]
    held = set(bio.splitlines())
    return [x for x in found if x.key not in done and x.line not in held]
