"""Placing the reader's notes in bio.md by rules, before the biographer judges them: a dated
event or fact into Timeline, a person into People & relationships, a feeling or habit into
Patterns, what someone says about the owner into Inferences as theirs, a gap into Open
questions; each line cited to its source. A note whose statement bio.md already holds (as
core.fold compares text: "Sofía" is "Sofia") is left out. For models too weak to place
notes themselves (BIOMD_READING_PLACEMENT=rules), the biographer then merges, judges and
asks. Pure functions."""

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
            find_section(bio, section)
            bio = apply_edit(bio, "", text, section)
        except ProfileEditError:
            continue
        held = fold(bio)
        added += 1
    return bio, added
