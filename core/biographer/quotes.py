"""Finding a reader's quote in the text it claims to quote. Case, runs of whitespace, curly
or straight quote marks and dashes don't matter; every word does. A quote cut with "..." is
found when each piece is, in order and close together. Pure functions."""

from __future__ import annotations

import re
from dataclasses import dataclass

MIN_CHARS = 8  # a shorter quote could be found almost anywhere
GAP = 400  # characters allowed between the pieces of a quote cut with "..."
_FOLD = str.maketrans(
    {
        "\u2018": "'",
        "\u2019": "'",
        "\u201a": "'",
        "\u201b": "'",
        "\u2032": "'",
        "`": "'",
        "\u201c": '"',
        "\u201d": '"',
        "\u201e": '"',
        "\u201f": '"',
        "\u00ab": '"',
        "\u00bb": '"',
        "\u2033": '"',
        "\u2010": "-",
        "\u2011": "-",
        "\u2012": "-",
        "\u2013": "-",
        "\u2014": "-",
        "\u2015": "-",
        "\u2212": "-",
        "\u00a0": " ",
        "\u2026": "...",
    }
)
_ELLIPSIS = re.compile(r"\s*(?:\.\.\.|\[\.\.\.\]|\(\.\.\.\)|\[…\]|…)\s*")
_EDGES = "\"' \t\n\r"


@dataclass(frozen=True, slots=True)
class Folded:
    """A text folded for matching, with where each folded character came from."""

    text: str
    origin: list[int]  # origin[i]: the index in the original text of folded character i

    @property
    def size(self) -> int:
        return len(self.text)


def fold(text: str) -> Folded:
    """`text` in lower case with one kind of quote mark and dash, and every run of
    whitespace as one space; with a map back to the original positions."""
    out: list[str] = []
    origin: list[int] = []
    space = False
    for i, ch in enumerate(text):
        if ch.isspace():
            space = True
            continue
        if space and out:
            out.append(" ")
            origin.append(i - 1)
        space = False
        for f in ch.translate(_FOLD).casefold():
            out.append(f)
            origin.append(i)
    return Folded("".join(out), origin)


def _pieces(quote: str) -> list[str]:
    quote = quote.strip().strip(_EDGES).strip()
    return [p for p in (fold(q).text for q in _ELLIPSIS.split(quote)) if p]


def locate(quote: str, folded: Folded, text_length: int) -> tuple[int, int] | None:
    """Where `quote` is in the text `folded` was made of: [start, end) in the original, or
    None when it isn't there (or is too short to tell)."""
    pieces = _pieces(quote)
    if not pieces or sum(len(p) for p in pieces) < MIN_CHARS:
        return None
    start = folded.text.find(pieces[0])
    while start >= 0:
        span = _rest(pieces, folded, start)
        if span is not None:
            lo, hi = span
            first = folded.origin[lo]
            last = folded.origin[hi - 1] + 1 if hi - 1 < folded.size else text_length
            return first, min(last, text_length)
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


def longest_run(statement: str, folded: Folded, text_length: int) -> tuple[int, int] | None:
    """The longest stretch of at least RUN_WORDS consecutive words of `statement` found
    verbatim in the text (as `locate` finds quotes), or None."""
    words = statement.split()
    for n in range(len(words), RUN_WORDS - 1, -1):
        for i in range(len(words) - n + 1):
            piece = " ".join(words[i : i + n]).strip(_EDGES + ".,;:")
            if "..." in piece or "\u2026" in piece:
                continue
            span = locate(piece, folded, text_length)
            if span is not None:
                return span
    return None
