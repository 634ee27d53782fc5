"""A reading turn's request: the reader's new notes, grouped by month and with the people
they involve, and what to do with them. Pure functions."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from biomd.biographer.reading.packing import pack
from biomd.plural import counted
from biomd.storage.notes import Note
from biomd.storage.reading import Reading

UNDATED = "Undated"
PLACED = (
    "biomd has already added these notes, and the sources' dated events, facts and people, to "
    "bio.md by simple rules. Do not add them again. Judge them instead: merge lines that say "
    "the same thing, move what the rules misplaced, turn first-person notes into facts about "
    "the owner, give inferences their confidence, record contradictions with both sides, and "
    "add open questions for the gaps that matter."
)


QUOTE_SHOWN = 80  # characters of a note's quote the biographer sees; the rest is in the source


def line(x: Note) -> str:
    """One note as the biographer sees it: date, kind, people, statement, the start of
    its quote, and last its citation, written as bio.md writes it (a small model copies
    what it sees; a character offset there was taken for a source id)."""
    date = x.date or "undated"
    people = f" ({', '.join(x.people)})" if x.people else ""
    quote = x.quote
    if len(quote) > QUOTE_SHOWN:
        cut = quote.rfind(" ", 0, QUOTE_SHOWN)
        quote = quote[: cut if cut > 0 else QUOTE_SHOWN] + "…"
    return f'- {date} {x.kind}{people}: {x.statement} — "{quote}" [#{x.document_id}]'


def batches(notes: Sequence[Note], budget: int) -> list[list[Note]]:
    """Extracts in the order given, packed into turns of at most `budget` characters of
    lines (a single longer one goes alone)."""
    return pack(notes, lambda x: len(line(x)) + 1, budget)


def grouped(notes: Sequence[Note]) -> str:
    """The notes under a heading per month (undated last), in date order within it."""
    months: dict[str, list[Note]] = {}
    for x in notes:
        months.setdefault(x.date[:7] if x.date else UNDATED, []).append(x)
    order = sorted(k for k in months if k != UNDATED) + ([UNDATED] if UNDATED in months else [])
    blocks = []
    for month in order:
        items = sorted(months[month], key=lambda x: (x.date or "", x.document_id, x.start))
        blocks.append(f"### {month}\n" + "\n".join(line(x) for x in items))
    return "\n\n".join(blocks)


def people(notes: Sequence[Note]) -> str:
    counts = Counter(p for x in notes for p in x.people)
    return ", ".join(f"{name} ({n})" for name, n in counts.most_common(30))


TIDY = (
    "These lines of bio.md were put in words by simple rules, as the reader wrote them, and "
    "may read badly. Reword each in place (old_text the line, new_text the better line) as "
    "one sentence in the third person with who did what and when, keeping its citation:"
)


def to_tidy(lines: Sequence[str]) -> str:
    """The part of a reading turn's request that asks it to reword rules' lines ('' for
    none)."""
    return f"{TIDY}\n" + "\n".join(lines) if lines else ""


def request(sources: Sequence[Reading], notes: Sequence[Note]) -> str:
    """The message of a reading turn over these notes of these sources."""
    names = "; ".join(
        f"#{s.document_id} {s.name!r} ({s.kind}"
        + (f", {s.content_start} to {s.content_end}" if s.content_start else "")
        + ")"
        for s in sources
    )
    who = people(notes)
    who_line = f"People in them: {who}.\n" if who else ""
    return (
        f"New notes on {counted(len(sources), 'source')}: {names}.\n"
        f"biomd's reader took {counted(len(notes), 'note')}; every quote was checked against "
        "its source.\n"
        f"{who_line}\n"
        "End every line you write with the source id of the note it rests on, e.g. [#12]. Skip "
        "notes that add nothing; merge what bio.md already says.\n\n"
        f"<notes>\n{grouped(notes)}\n</notes>"
    )
