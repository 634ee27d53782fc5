"""Split text into overlapping chunks of at most 900 characters with exact spans.

A cut falls on the best boundary in the window, in this order: blank line, newline,
sentence end, space, and only then a hard cut. The next chunk starts about 150
characters before the cut, again on the best boundary near there, so a phrase cut at
one boundary appears whole in one of the two chunks. The chunker is streaming: feed it
pieces of any size and it gives the same chunks as for the whole text at once.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

MAX_CHARS = 900
OVERLAP = 150

_BLANK_LINE = re.compile(r"\n[ \t\r\f\v]*\n")
# A sentence ends at . ! ? … before a space, and at 。！？ (Chinese, Japanese), । (Devanagari),
# ؟ ۔ (Arabic script) and ። (Ethiopic), which need none.
_SENTENCE_END = re.compile(r"[.!?…][\"'”’»)\]]*\s|[。！？｡][」』）\"”’]*\s?|[।॥؟۔።][\"'”’)\]]*\s?")
_SPACE = re.compile(r"\s")


@dataclass(frozen=True, slots=True)
class Chunk:
    """One chunk: `text == document_text[start:end]`."""

    seq: int
    start: int
    end: int
    text: str


def _last_boundary_end(pattern: re.Pattern[str], text: str, lo: int, hi: int) -> int | None:
    """End of the last match of `pattern` that ends within (lo, hi], or None."""
    best = None
    for m in pattern.finditer(text, max(0, lo - 8), hi):
        if lo < m.end() <= hi:
            best = m.end()
    return best


def find_cut(window: str, min_len: int) -> int:
    """Where to end a chunk taken from the start of `window`: the best boundary past `min_len`."""
    limit = len(window)
    cut = _last_boundary_end(_BLANK_LINE, window, min_len, limit)
    if cut is not None:
        return cut
    newline = window.rfind("\n", min_len, limit)
    if newline >= 0:
        return newline + 1
    for pattern in (_SENTENCE_END, _SPACE):
        cut = _last_boundary_end(pattern, window, min_len, limit)
        if cut is not None:
            return cut
    return limit


def find_start(text: str, lo: int, hi: int, target: int) -> int:
    """Where the next chunk starts: the best boundary in [lo, hi], nearest to `target`."""
    before = text.rfind("\n", max(0, lo - 1), target)
    after = text.find("\n", target, hi)
    newlines = [i + 1 for i in (before, after) if i >= 0]
    if newlines:
        return min(newlines, key=lambda p: abs(p - target))
    for pattern in (_SENTENCE_END, _SPACE):
        ends = [m.end() for m in pattern.finditer(text, max(0, lo - 8), hi) if lo <= m.end() <= hi]
        if ends:
            return min(ends, key=lambda p: abs(p - target))
    return target


class Chunker:
    """Streaming chunker: `feed` pieces, then `finish`. Spans are absolute offsets."""

    def __init__(self, max_chars: int = MAX_CHARS, overlap: int = OVERLAP) -> None:
        if not 0 < overlap * 3 < max_chars:
            raise ValueError("overlap must be positive and under a third of max_chars")
        self.max_chars = max_chars
        self.overlap = overlap
        self._buf = ""
        self._base = 0  # absolute offset of _buf[0]
        self._start = 0  # absolute start of the next chunk
        self._seq = 0

    def feed(self, piece: str) -> list[Chunk]:
        """Add text; return the chunks that are now final."""
        self._buf += piece
        out: list[Chunk] = []
        while self._base + len(self._buf) - self._start > self.max_chars:
            out.append(self._emit_one())
        self._trim()
        return out

    def finish(self) -> list[Chunk]:
        """Return the last chunk(s) once the text has ended."""
        out: list[Chunk] = []
        rel = self._start - self._base
        if rel < len(self._buf):
            out.append(self._make(self._start, self._base + len(self._buf)))
            self._start = self._base + len(self._buf)
        self._trim()
        return out

    def _emit_one(self) -> Chunk:
        rel = self._start - self._base
        window = self._buf[rel : rel + self.max_chars]
        cut = rel + find_cut(window, self.max_chars // 2)
        chunk = self._make(self._start, self._base + cut)
        target = cut - self.overlap
        next_rel = find_start(self._buf, cut - self.overlap - 100, cut - self.overlap // 2, target)
        self._start = self._base + max(next_rel, rel + 1)
        return chunk

    def _make(self, start: int, end: int) -> Chunk:
        text = self._buf[start - self._base : end - self._base]
        chunk = Chunk(self._seq, start, end, text)
        self._seq += 1
        return chunk

    def _trim(self) -> None:
        drop = self._start - self._base
        if drop > 0:
            self._buf = self._buf[drop:]
            self._base = self._start


def iter_chunks(pieces: Iterable[str], max_chars: int = MAX_CHARS) -> Iterator[Chunk]:
    """Chunk a stream of text pieces."""
    chunker = Chunker(max_chars=max_chars)
    for piece in pieces:
        yield from chunker.feed(piece)
    yield from chunker.finish()


def chunk_text(text: str, max_chars: int = MAX_CHARS) -> list[Chunk]:
    """Chunk a whole text."""
    return list(iter_chunks([text], max_chars=max_chars))
