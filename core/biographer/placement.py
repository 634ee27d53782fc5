"""Placing the reader's notes in bio.md by rules, before the biographer judges them: a dated
event or fact into Timeline, a person into People & relationships, a feeling or habit into
Patterns, what someone says about the owner into Inferences as theirs, a gap into Open
questions; each line cited to its source. A note whose statement bio.md already holds (as
core.fold compares text: "Sofía" is "Sofia") is left out. For models too weak to place
notes themselves (BIOMD_READING_PLACEMENT=rules), the biographer then merges, judges and
asks. A person bio.md has a line for already gets the note on that line, not a new one.
Pure functions."""

from __future__ import annotations

from collections.abc import Sequence

from core.biographer.edits import apply_edit, find_section
from core.errors import ProfileEditError
from core.fold import fold
from core.storage.extracts import Extract

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


def is_routine(x: Extract) -> bool:
    return x.kind in ROUTINE


def line(x: Extract) -> tuple[str, str]:
    """(section, the line) for one note."""
    cite = f"[#{x.document_id}]"
    statement = x.statement.rstrip(".")
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


def place(bio: str, extracts: Sequence[Extract]) -> tuple[str, int]:
    """bio.md with the notes' lines added at the end of their sections (the Timeline in date
    order as written), and how many were added; a section bio.md lacks is skipped."""
    held = fold(bio)
    added = 0
    for x in sorted(extracts, key=lambda x: (x.date or "9999", x.document_id, x.start)):
        section, text = line(x)
        if fold(x.statement.rstrip(".")) in held:
            continue
        try:
            region = find_section(bio, section)
            known = _person_line(bio[region.body_start : region.end], x)
            if known:
                bio = apply_edit(bio, known, f"{known}; {text.split(': ', 1)[1]}", section)
            else:
                bio = apply_edit(bio, "", text, section)
        except ProfileEditError:
            continue
        held = fold(bio)
        added += 1
    return bio, added


def _person_line(section: str, x: Extract) -> str | None:
    """The line of People that is about this note's person already, if there is one and a
    note still fits on it."""
    if x.kind != "person" or not x.people:
        return None
    name = fold(x.people[0])
    for row in section.split("\n"):
        if row.startswith("- ") and fold(row[2:].split(":", 1)[0]) == name:
            return row if len(row) < PERSON_LINE else None
    return None
