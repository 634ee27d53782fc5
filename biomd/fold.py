"""The one text fold: how biomd compares text when case, accents and typography must not
matter (grep, quotes found in their source, names, statements bio.md already holds). Every
character folds the same way wherever it is compared:

- case is folded (`str.casefold`): "Straße" is "strasse", Greek final "ς" is "σ", and
  Turkish "İ" and "ı" are "i";
- accents and other combining marks are dropped, composed or not ("é" and "e" + U+0301 are
  both "e"), and compatibility forms are expanded ("ﬁ" is "fi", "Ａ" is "a"); letters drawn
  with a stroke or joined fold to their plain letters ("ł" "l", "ø" "o", "æ" "ae");
- Cyrillic "й" and "ў" are letters of their own, not "и" and "у" with an accent, and are
  kept; "ё" is "е", as Russian writes it either way;
- Chinese, Japanese and Korean are left exactly as written (a kana's voicing mark is part
  of it);
- curly and straight quote marks are one (' and "), every dash is "-", and each run of
  whitespace is one space.

The keyword index folds by its own rule (SQLite's `unicode61 remove_diacritics 2`, mirrored
by biomd.retrieval.language.fts_fold); this fold only compares text already found. Pure."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache

_PUNCTUATION = str.maketrans(
    {c: "'" for c in "‘’‚‛′`´"} | {c: '"' for c in "“”„‟″«»"} | {c: "-" for c in "‐‑‒–—―−"}
)
_LETTERS = str.maketrans(
    {"ı": "i", "ł": "l", "ø": "o", "đ": "d", "ħ": "h", "ŧ": "t", "æ": "ae", "œ": "oe"}
)
_KEPT = frozenset("йў")
_CJK = re.compile(
    "[\u1100-\u11ff\u3040-\u30ff\u3130-\u318f\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff"
    "\uac00-\ud7af\uf900-\ufaff\uff65-\uffdc]"
)
# The marks that may change a letter folded whole (й, が) when they follow it decomposed.
_MARKS = "\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f\u3099\u309a"
_PIECE = re.compile(
    rf"(?P<space>\s+)|(?P<plain>(?:[!-_a-~](?![{_MARKS}]))+)|(?P<other>.[{_MARKS}]*)", re.S
)
_SPACES = re.compile(r"\s+")


@dataclass(frozen=True, slots=True)
class Folded:
    """A text folded, with where in the original each folded character came from."""

    text: str
    starts: list[int]  # starts[i]: where the original of folded character i begins
    ends: list[int]  # ends[i]: where it ends (a folded "ss" both end after the "ß")

    def span(self, lo: int, hi: int) -> tuple[int, int]:
        """The original [start, end) that folded text[lo:hi] (not empty) came from."""
        return self.starts[lo], self.ends[hi - 1]


def fold(text: str) -> str:
    """`text` folded (see the module docstring for the rule)."""
    if text.isascii() and "`" not in text:
        return _SPACES.sub(" ", text.lower())
    return "".join(piece for _, _, piece, _ in _pieces(text))


def fold_mapped(text: str) -> Folded:
    """`text` folded as `fold` does, with a map back to the original positions, so that
    what is found in the folded text is a span of the original."""
    out: list[str] = []
    starts: list[int] = []
    ends: list[int] = []
    for start, end, piece, one_for_one in _pieces(text):
        out.append(piece)
        if one_for_one:
            starts.extend(range(start, end))
            ends.extend(range(start + 1, end + 1))
        else:
            starts.extend([start] * len(piece))
            ends.extend([end] * len(piece))
    return Folded("".join(out), starts, ends)


def _pieces(text: str) -> Iterator[tuple[int, int, str, bool]]:
    """(start, end, folded, whether one for one) for each piece of `text`: a whitespace run,
    a run of plain ASCII, or one character with the marks that follow it."""
    for m in _PIECE.finditer(text):
        if m.lastgroup == "space":
            yield m.start(), m.end(), " ", False
        elif m.lastgroup == "plain":
            yield m.start(), m.end(), m.group().lower(), True
        else:
            yield m.start(), m.end(), _fold_cluster(m.group()), False


@cache
def _fold_cluster(cluster: str) -> str:
    return "".join(map(_fold_char, unicodedata.normalize("NFC", cluster)))


@cache
def _fold_char(c: str) -> str:
    if _CJK.match(c):
        return c
    low = c.casefold()
    if low in _KEPT:
        return low
    decomposed = unicodedata.normalize("NFKD", low.translate(_PUNCTUATION))
    bare = "".join(d for d in decomposed if not unicodedata.combining(d))
    return bare.casefold().translate(_LETTERS)
