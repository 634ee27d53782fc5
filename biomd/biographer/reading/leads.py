"""Open questions and contradictions found by rules from the reader's notes, so that a model
too weak to raise them still gets them into bio.md (a 1.5B model raised 0 of 4 gap questions
in the sample life). Each lead has a stable key, so one raised once is not raised again after
the owner answers or removes it. Pure functions.

- before the record: the sources begin in some year; what came before is a gap;
- a person without context: named in several notes, yet bio.md has no line on who they are;
- an open decision: the owner wrote that something is undecided or unanswered, and no later
  note says more about it;
- and two sources that may disagree (disagreements.py)."""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable, Sequence

from biomd.biographer.cues import subjects, words
from biomd.biographer.profile_text import section
from biomd.biographer.reading.disagreements import count_conflicts, denials
from biomd.biographer.reading.lead import Lead, key, short, when
from biomd.fold import fold
from biomd.storage.notes import Note

PEOPLE_SECTION = "People & relationships"
MOST_PEOPLE = 3  # people asked about in one round, the most noted first
MOST_DECISIONS = 2
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
_MONTHS = (
    "January February March April May June July August September October November December"
).split()


def before_record(first: str | None, source: int | None) -> list[Lead]:
    """A question about the years before the first dated source."""
    if not first or source is None or not re.match(r"\d{4}", first):
        return []
    year = first[:4]
    month = f"{_MONTHS[int(first[5:7]) - 1]} {year}" if re.match(r"\d{4}-\d{2}", first) else year
    return [
        Lead(
            key("before", year),
            "Open questions",
            f"- Where did you grow up, and what did you do before {year}? Your sources begin "
            f"in {month} [#{source}], so everything earlier is missing.",
        )
    ]


def _named_inside(name: str, quotes: Iterable[str]) -> bool:
    """Whether a name is in the sources' own words somewhere other than a sentence's start,
    where any word has a capital ("In-house, a team of eight")."""
    for quote in quotes:
        for m in re.finditer(re.escape(name), quote):
            before = quote[: m.start()].rstrip()
            if before and before[-1] not in '.!?:;"“(':
                return True
    return False


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
    notes: Sequence[Note], bio: str, owner_names: Sequence[str]
) -> list[Lead]:
    """A question about each person named in two notes or more whom bio.md's People section
    does not name: who they are to the owner, and where things stand."""
    known = fold(section(bio, PEOPLE_SECTION))
    owners = {fold(n) for n in owner_names}
    by_name: dict[str, list[Note]] = defaultdict(list)
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
            or not _named_inside(name, (n.quote for n in found))
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
                key("person", folded),
                "Open questions",
                f"- Who is {name} to you, and where do things stand between you now? {name} "
                f"comes up in {len(found)} notes{span}, but nothing says who they are to you "
                f"[{cites}].",
            )
        )
        if len(leads) == MOST_PEOPLE:
            break
    return leads


def open_decisions(notes: Sequence[Note]) -> list[Lead]:
    """A question about each thing the owner left undecided or unanswered that no later note
    takes up (by its people or its words), the latest first."""
    leads = []
    dated = sorted((n for n in notes if n.date), key=lambda n: n.date or "", reverse=True)
    about_of = {n.id: subjects(n.quote) for n in dated}  # once a note, not once a pair
    for n in dated:
        if not UNDECIDED.search(n.quote) and not UNDECIDED.search(n.statement):
            continue
        topic = set(n.people) | about_of[n.id]
        later = [
            m
            for m in dated
            if (m.date or "") > (n.date or "")
            and m.document_id != n.document_id
            and (set(m.people) & set(n.people) or about_of[m.id] & about_of[n.id])
        ]
        if later or not topic:
            continue
        about = f" (about {', '.join(n.people)})" if n.people else ""
        leads.append(
            Lead(
                key("decision", n.document_id, n.start),
                "Open questions",
                f"- What came of it: what did you decide{about}? On {when(n.date)} you wrote "
                f"“{short(n.quote)}” [#{n.document_id}], and no later source says.",
            )
        )
        if len(leads) == MOST_DECISIONS:
            break
    return leads


def leads(
    notes: Sequence[Note],
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
