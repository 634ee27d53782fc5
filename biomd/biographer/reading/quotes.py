"""Finding a reader's quote in the text it claims to quote. What the one fold (biomd.fold)
folds doesn't matter (case, accents, runs of whitespace, curly or straight quote marks,
dashes); every word does. A quote cut with "..." is found when each piece is, in order and
close together. Pure functions."""

from __future__ import annotations

import re

from biomd.fold import Folded, fold

MIN_CHARS = 8  # a shorter quote could be found almost anywhere
GAP = 400  # characters allowed between the pieces of a quote cut with "..."
_ELLIPSIS = re.compile(r"\s*(?:\.\.\.|\[\.\.\.\]|\(\.\.\.\)|\[…\]|…)\s*")
_EDGES = "\"' \t\n\r"


def _pieces(quote: str) -> list[str]:
    quote = quote.strip().strip(_EDGES).strip()
    return [p for p in (fold(q).strip() for q in _ELLIPSIS.split(quote)) if p]


def longest_piece(quote: str) -> str:
    """The longest piece of a quote cut with "...", as written: what to look for first."""
    return max(_ELLIPSIS.split(quote.strip().strip(_EDGES).strip()), key=len)


def locate(quote: str, folded: Folded) -> tuple[int, int] | None:
    """Where `quote` is in the text `folded` was made of: [start, end) in the original, or
    None when it isn't there (or is too short to tell)."""
    pieces = _pieces(quote)
    if not pieces or sum(len(p) for p in pieces) < MIN_CHARS:
        return None
    start = folded.text.find(pieces[0])
    while start >= 0:
        span = _rest(pieces, folded, start)
        if span is not None:
            return folded.span(*span)
        start = folded.text.find(pieces[0], start + 1)
    return None


def _rest(pieces: list[str], folded: Folded, start: int) -> tuple[int, int] | None:
    """The folded span of every piece from `start` on, each within GAP of the last."""
    end = start + len(pieces[0])
    for piece in pieces[1:]:
        at = folded.text.find(piece, end, end + GAP + len(piece))
        if at < 0:
            return None
        end = at + len(piece)
    return start, end


RUN_WORDS = 5  # the fewest words of a statement that count as a quote of its source


def longest_run(statement: str, folded: Folded) -> tuple[int, int] | None:
    """The longest stretch of at least RUN_WORDS consecutive words of `statement` found
    verbatim in the text (as `locate` finds quotes), or None."""
    words = statement.split()
    for n in range(len(words), RUN_WORDS - 1, -1):
        for i in range(len(words) - n + 1):
            piece = " ".join(words[i : i + n]).strip(_EDGES + ".,;:")
            if "..." in piece or "\u2026" in piece:
                continue
            span = locate(piece, folded)
            if span is not None:
                return span
    return None
