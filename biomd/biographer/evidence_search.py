"""The search behind evidence.py's block: the passages and the reader's notes biomd finds for
a message, each passage with its source's dates. A chat turn starts from them, and so does
what another assistant is shown before its model's call (app/assistants/recall.py)."""

from __future__ import annotations

from biomd.biographer import evidence
from biomd.retrieval.search import Searcher
from biomd.retrieval.when import day_of
from biomd.storage.notes import Note

PASSAGES = 8  # passages a chat turn starts from (its budget may show fewer)
NOTES = 6


async def gather(
    searcher: Searcher,
    message: str,
    before: str = "",
    passages: int = PASSAGES,
    hidden: frozenset[int] = frozenset(),
) -> tuple[list[evidence.ShownPassage], list[Note]]:
    """The passages and notes for `message` (with `before`, the owner's message before it,
    where it is a short follow-up); none for a message that needs no sources. A search that
    fails raises its BiomdError. Nothing comes from the sources in `hidden`."""
    if not evidence.wants_sources(message):
        return [], []
    wanted = evidence.query(message, before)
    hits = await searcher.search(wanted, passages, hidden=hidden)
    notes = await searcher.notes.search(wanted, NOTES, hidden)
    shown = []
    for h in hits:
        doc = await searcher.source(h.document_id)
        first = (doc.content_start or "")[:10] if doc else ""
        last = ((doc.content_end or doc.content_start) or "")[:10] if doc else ""
        dates = first if first == last else f"{first} to {last}"
        day = day_of(first) if first and first == last else None
        shown.append(evidence.ShownPassage(h.document_id, h.document, dates, day, h.passage))
    return shown, notes
