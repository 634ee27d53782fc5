"""Placing the reader's notes in bio.md by rules, before the biographer judges them: a dated
event or fact into Timeline, a person into People & relationships, a feeling or habit into
Patterns, what someone says about the owner into Inferences as theirs, a gap into Open
questions; each line cited to its source. A note whose statement bio.md already holds (as
biomd.fold compares text: "Sofía" is "Sofia") is left out. For models too weak to place
notes themselves (BIOMD_READING_PLACEMENT=rules), the biographer then merges, judges and
asks. A person bio.md has a line for already gets the note on that line, not a new one.

Rules fill bio.md only as far as its budget can hold (`Room`): at most so many Timeline
lines a month, and so many lines in each other section; past that, a note stays a note
(searchable, and cited by answers) without a line of its own. A big export would otherwise
put tens of thousands of lines into a bio.md of a few hundred, for the model to rewrite
away again and again. Pure functions."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from biomd.biographer.edits import apply_edit, find_section
from biomd.errors import ProfileEditError
from biomd.fold import fold
from biomd.storage.notes import Note
from biomd.storage.reading import Reading

SECTIONS = {
    "event": "Timeline",
    "person": "People & relationships",
    "feeling": "Patterns",
    "habit": "Patterns",
    "claim": "Inferences",
    "contradiction": "Hypotheses",
    "gap": "Open questions",
}
ROUTINE = frozenset({"event", "fact", "person"})
"""Kinds that rules place as well as a model would: what happened, plain facts, who is who.
The others (feelings, habits, claims, contradictions, gaps) need judgement."""
PERSON_LINE = 400  # characters a person's line may grow to with notes added to it
RULE_LINE = 90  # characters of a line placed by rules, as a rule of thumb
MONTH_LINES = 4  # Timeline lines a month may always get by rules
SECTION_LINES = 12  # lines any other section may always get by rules


@dataclass(frozen=True, slots=True)
class Room:
    """How far rules may fill bio.md: Timeline lines a month, lines in each other section
    (0: no limit)."""

    per_month: int = 0
    per_section: int = 0

    @classmethod
    def within(cls, budget: int, months: int) -> Room:
        """Room in a bio.md of `budget` characters over sources spanning `months`: 40% of it
        for the Timeline, shared by the months, 5% for each of six other sections; the rest
        is the model's, and what bio.md holds already."""
        timeline = int(budget * 0.4) // RULE_LINE
        section = int(budget * 0.05) // RULE_LINE
        return cls(max(MONTH_LINES, timeline // max(1, months)), max(SECTION_LINES, section))

    def chars(self, months: int) -> int:
        """The most characters of lines rules may add in all (for the cost preview)."""
        if not self.per_month:
            return 0
        return (self.per_month * max(1, months) + self.per_section * 6) * RULE_LINE


def is_routine(x: Note) -> bool:
    return x.kind in ROUTINE


def line(x: Note, worded: str | None = None) -> tuple[str, str]:
    """(section, the line) for one note, in its own words or as `worded`."""
    cite = f"[#{x.document_id}]"
    statement = (worded or x.statement).rstrip(".")
    if x.kind == "gap":
        return "Open questions", f"- {statement.rstrip('?')}? {cite}"
    if x.kind == "person" and x.people:
        return "People & relationships", f"- {x.people[0]}: {statement} {cite}"
    if x.kind == "claim":
        who = f"{', '.join(x.people)} says" if x.people else "A source says"
        return "Inferences", f"- {who}: {statement} (confidence: low) {cite}"
    if x.kind in ("event", "fact") and x.date:
        return "Timeline", f"- {x.date}: {statement} {cite}"
    section = SECTIONS.get(x.kind, "Identity")
    if section == "Timeline":  # an undated event
        section = "Identity"
    return section, f"- {statement} {cite}"


def place(
    bio: str,
    notes: Sequence[Note],
    room: Room = Room(),
    worded: Mapping[int, Sequence[str]] | None = None,
) -> tuple[str, int]:
    """bio.md with the notes' lines added at the end of their sections (the Timeline in date
    order as written), as far as `room` allows, and how many notes were given a line; a
    section bio.md lacks is skipped. With `worded`, a note's lines say what it holds for the
    note's id (wording.py: one a fact), and a note it holds none for has no line."""
    bio, placed = placing(bio, notes, room, worded)
    return bio, len(placed)


def placing(
    bio: str,
    notes: Sequence[Note],
    room: Room = Room(),
    worded: Mapping[int, Sequence[str]] | None = None,
) -> tuple[str, list[Note]]:
    """As place, with the notes that were given a line (the ones worth wording)."""
    held = fold(bio)
    placed: list[Note] = []
    for x in sorted(notes, key=lambda x: (x.date or "9999", x.document_id, x.start)):
        said = [x.statement] if worded is None else worded.get(x.id, [x.statement])
        added = False
        for statement in said:
            if fold(statement.rstrip(".")) in held:
                continue
            grown = _added(bio, x, statement, room)
            if grown is not bio:
                bio, held, added = grown, fold(grown), True
        if added:
            placed.append(x)
    return bio, placed


def _added(bio: str, x: Note, said: str, room: Room) -> str:
    """bio.md with one line of a note added, as far as its place holds (the same bio.md
    when its place is full, or bio.md lacks its section)."""
    section, text = line(x, said)
    try:
        region = find_section(bio, section)
        body = bio[region.body_start : region.end]
        known = _person_line(body, x)
        if known is not None:
            if len(known) >= PERSON_LINE:
                return bio  # their line is full: the note stays a note
            return apply_edit(bio, known, f"{known}; {text.split(': ', 1)[1]}", section)
        if _full(body, section, x, room):
            return bio
        return apply_edit(bio, "", text, section)
    except ProfileEditError:
        return bio


def _full(body: str, section: str, x: Note, room: Room) -> bool:
    """Whether rules have filled this note's place: its month of the Timeline, or its
    section."""
    if section == "Timeline" and x.date:
        month = re.compile(rf"^- {re.escape(x.date[:7])}\b", re.M)
        return bool(room.per_month) and len(month.findall(body)) >= room.per_month
    lines = sum(1 for row in body.split("\n") if row.startswith("- "))
    return bool(room.per_section) and lines >= room.per_section


def _person_line(section: str, x: Note) -> str | None:
    """The line of People that is about this note's person already, if there is one."""
    if x.kind != "person" or not x.people:
        return None
    name = fold(x.people[0])
    for row in section.split("\n"):
        if row.startswith("- ") and fold(row[2:].split(":", 1)[0]) == name:
            return row
    return None


def months_covered(readings: Iterable[Reading]) -> int:
    """How many months the sources' dates cover, each from its first date to its last (1 when
    they have none): a journal of five entries over five years covers five, not sixty, and
    a chat of three years thirty-six."""
    months: set[int] = set()
    for r in readings:
        first = _month(r.content_start or "")
        if first is None:
            continue
        last = _month(r.content_end or "") or first
        months.update(range(first, max(first, last) + 1))
    return max(1, len(months))


def _month(date: str) -> int | None:
    """A date's month as a count from year 0 ("2021" alone: its January)."""
    if not date[:4].isdigit():
        return None
    month = date[5:7]
    return int(date[:4]) * 12 + (int(month) - 1 if month.isdigit() else 0)
