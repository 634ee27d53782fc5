"""The passage of a source that supports a claim in bio.md. Where the reader took a note of
the source that says what the claim says, the passage is that note's quote, at its exact
span, marked whole. Otherwise the source is searched for the claim's words, and the stretch
that holds most of them is returned with those words marked. Either way a citation opens on
the evidence rather than on the top of the file."""

from __future__ import annotations

import re
from dataclasses import dataclass

from biomd.fold import fold
from biomd.retrieval.fts_query import content_tokens, keyword_query
from biomd.storage.store import Store

WIDTH = 700  # characters of context shown around the evidence
_CITES = re.compile(r"\[[^\]]*(?:#\d+|chat \d{4}-\d{2}-\d{2})[^\]]*\]")
_WORD = re.compile(r"[^\W_]+", re.UNICODE)


@dataclass(frozen=True, slots=True)
class Passage:
    document_id: int
    name: str
    content_start: str | None
    start: int  # character offsets in the source's text
    end: int
    text: str
    marks: list[tuple[int, int]]  # spans of `text` that hold the claim's words
    matched: list[str]  # the claim's words that were found


def claim_words(claim: str) -> list[str]:
    """The words of a claim worth looking for: no citations, dates, numbers or common words."""
    text = _CITES.sub(" ", claim)
    return [w for w in content_tokens(text) if not w.isdigit() and len(w) > 2]


async def passage(store: Store, document_id: int, claim: str) -> Passage | None:
    """Where source `document_id` best supports `claim`; None if there is no such source."""
    doc = await store.documents.get(document_id)
    if doc is None or doc.status != "ready":
        return None
    words = claim_words(claim)
    query = keyword_query(" ".join(words)) if words else None
    if query and (quoted := await _quoted(store, document_id, words, query)) is not None:
        lo, hi = quoted
        start = max(0, lo - WIDTH // 3)
        text = await store.chunks.text(document_id, start, max(hi, start + WIDTH))
        return Passage(
            document_id,
            doc.name,
            doc.content_start,
            start,
            start + len(text),
            text,
            [(lo - start, hi - start)],
            sorted({w for w in words if _found(text, [w])}),
        )
    rows = await store.keywords.in_source(query, document_id, 8) if query else []
    if not rows:
        rows = [(c.start, c.text) for c in await store.chunks.of_source(document_id, limit=1)]
    if not rows:
        return None
    best = max(rows, key=lambda r: (len(_found(r[1], words)), -r[0]))
    start, text = best
    lo, hi = window(text, words)
    excerpt = text[lo:hi]
    marks = _marks(excerpt, words)
    matched = sorted({w for w in words if _found(excerpt, [w])})
    return Passage(
        document_id, doc.name, doc.content_start, start + lo, start + hi, excerpt, marks, matched
    )


async def _quoted(
    store: Store, document_id: int, words: list[str], query: str
) -> tuple[int, int] | None:
    """The span of the quote of the source's note that shares the most of the claim's
    words (at least half of them, and two), if there is one."""
    found = await store.notes.match(query, 20, document_id)
    best, best_score = None, 0
    for x in await store.notes.get([i for i, _ in found]):
        score = len(_found(f"{x.statement} {x.quote}", words))
        if score > best_score:
            best, best_score = x, score
    if best is None or best_score < max(2, (len(words) + 1) // 2):
        return None
    return best.start, best.end


def window(text: str, words: list[str], width: int = WIDTH) -> tuple[int, int]:
    """The stretch of `text`, about `width` long and cut at line or word breaks, around the
    line (or sentence) that holds the most different words of the claim."""
    if len(text) <= width:
        return 0, len(text)
    marks = _marks(text, words)
    if not marks:
        return 0, _cut_back(text, width)
    best, best_score = (0, len(text)), (-1, -1)
    for lo, hi in _segments(text):
        keys = [fold(text[s:e])[:5] for s, e in marks if lo <= s < hi]
        score = (len(set(keys)), len(keys))
        if score > best_score:
            best, best_score = (lo, hi), score
    lo, hi = best
    start = max(0, lo - width // 3)
    if start > 0:
        line = text.rfind("\n", start, lo)
        start = line + 1 if line >= 0 else text.rfind(" ", 0, start) + 1
    end = max(hi, start + _cut_back(text[start:], width))
    return start, min(len(text), end)


def _segments(text: str) -> list[tuple[int, int]]:
    """Lines, and the sentences of lines too long to show whole."""
    out = []
    for m in re.finditer(r"[^\n]+", text):
        if m.end() - m.start() <= WIDTH // 2:
            out.append((m.start(), m.end()))
            continue
        for s in re.finditer(r"[^.!?]+[.!?]*", m.group(0)):
            out.append((m.start() + s.start(), m.start() + s.end()))
    return out


def _cut_back(text: str, width: int) -> int:
    if len(text) <= width:
        return len(text)
    cut = text.rfind("\n", 0, width)
    if cut < width // 2:
        cut = text.rfind(" ", 0, width)
    return cut if cut > 0 else width


def _marks(text: str, words: list[str]) -> list[tuple[int, int]]:
    """Spans of the words of `text` that start like one of `words` (case and accents
    ignored; the first five letters, so "smoking" marks "smoke")."""
    keys = {fold(w)[:5] for w in words}
    return [
        (m.start(), m.end())
        for m in _WORD.finditer(text)
        if len(m.group(0)) > 2 and fold(m.group(0))[:5] in keys
    ]


def _found(text: str, words: list[str]) -> set[str]:
    folded = {fold(m.group(0))[:5] for m in _WORD.finditer(text)}
    return {w for w in words if fold(w)[:5] in folded}
