"""Plain text in any common encoding, streamed: txt, Markdown, JSON, CSV and the like."""

from __future__ import annotations

import codecs
import io
import unicodedata
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from charset_normalizer import from_bytes

from biomd.errors import UnsupportedFormat
from biomd.ingest.convert.base import HEAD_BYTES, Probe
from biomd.ingest.convert.context import ConvertContext

PIECE_CHARS = 1 << 20

_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32"),
    (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF8, "utf-8-sig"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)
_TEXT_CONTROLS = {7, 8, 9, 10, 11, 12, 13, 27}
_BAD_CATEGORIES = {"Cc", "Cn", "Cs", "Co"}


def _utf16_without_bom(head: bytes) -> str | None:
    """'utf-16-le' or 'utf-16-be' when NULs sit in every other byte, as in UTF-16 text."""
    sample = head[: 4096 - 4096 % 2]
    if len(sample) < 4:
        return None
    even_nuls = sample[0::2].count(0) / (len(sample) / 2)
    odd_nuls = sample[1::2].count(0) / (len(sample) / 2)
    if odd_nuls > 0.3 and even_nuls < 0.05:
        return "utf-16-le"
    if even_nuls > 0.3 and odd_nuls < 0.05:
        return "utf-16-be"
    return None


def _plausible(text: str) -> bool:
    """True unless many characters are controls, unassigned or undecodable."""
    if not text:
        return True
    bad = sum(
        1
        for ch in text
        if ch == "\ufffd"
        or (unicodedata.category(ch) in _BAD_CATEGORIES and ch not in "\t\n\r\f\v\x1b")
    )
    return bad / len(text) <= 0.05


def looks_binary(head: bytes) -> bool:
    """True when the bytes are not text in any encoding we read."""
    if any(head.startswith(bom) for bom, _ in _BOMS) or _utf16_without_bom(head):
        sample = head[:8192]
        encoding = detect_encoding(sample)
        return not _plausible(sample.decode(encoding, errors="replace")[:-1])
    if b"\x00" in head:
        return True
    sample = head[:8192]
    if not sample:
        return False
    controls = sum(1 for b in sample if b < 32 and b not in _TEXT_CONTROLS)
    return controls / len(sample) > 0.05


def detect_encoding(head: bytes) -> str:
    """The encoding of a text file, from its first bytes. Never fails: the fallback is cp1252."""
    for bom, name in _BOMS:
        if head.startswith(bom):
            return name
    if utf16 := _utf16_without_bom(head):
        return utf16
    try:
        codecs.getincrementaldecoder("utf-8")().decode(head, final=False)
        return "utf-8"
    except UnicodeDecodeError:
        pass
    matches = list(from_bytes(head[:16384]))
    if not matches:
        return "cp1252"
    best = matches[0]
    tied = {m.encoding for m in matches if (m.chaos, m.coherence) == (best.chaos, best.coherence)}
    # Short Western text often scores the same in several code pages; cp1252 is the likeliest.
    return "cp1252" if "cp1252" in tied else str(best.encoding)


def _first_non_utf8(sample: bytes) -> int | None:
    """Where `sample`, cut anywhere from a longer file, stops being UTF-8; None if it never does."""
    start = 0
    while start < min(3, len(sample)) and 0x80 <= sample[start] <= 0xBF:
        start += 1  # continuation bytes of a character that began before the sample
    try:
        codecs.getincrementaldecoder("utf-8")().decode(sample[start:], final=False)
    except UnicodeDecodeError as exc:
        return start + exc.start
    return None


def detect_file_encoding(probe: Probe) -> str:
    """Like `detect_encoding`, but a file whose start looks like UTF-8 is also sampled in the
    middle and at the end, so a legacy-encoded file that opens in plain ASCII is caught."""
    encoding = detect_encoding(probe.head)
    if encoding != "utf-8":
        return encoding
    size = probe.path.stat().st_size
    if size <= len(probe.head):
        return encoding
    with probe.path.open("rb") as f:
        for offset in (size // 2, max(0, size - HEAD_BYTES)):
            f.seek(offset)
            sample = f.read(HEAD_BYTES)
            bad = _first_non_utf8(sample)
            if bad is not None:
                return detect_encoding(sample[max(0, bad - 4096) : bad + 12288])
    return encoding


def stream_text(probe: Probe, piece_chars: int = PIECE_CHARS) -> Iterator[str]:
    """Decode a file piece by piece; invalid bytes become U+FFFD, newlines become `\\n`."""
    encoding = detect_file_encoding(probe)
    with (
        probe.path.open("rb") as raw,
        io.TextIOWrapper(raw, encoding=encoding, errors="replace", newline=None) as text,
    ):
        while piece := text.read(piece_chars):
            yield piece.replace("\x00", "\ufffd")


def iter_lines(pieces: Iterable[str]) -> Iterator[str]:
    """Whole lines (without their newline) from text pieces."""
    tail = ""
    for piece in pieces:
        parts = (tail + piece).split("\n")
        tail = parts.pop()
        yield from parts
    if tail:
        yield tail


def read_text(probe: Probe) -> str:
    """The whole decoded text (for formats that need it all at once)."""
    return "".join(stream_text(probe))


@dataclass(frozen=True)
class TextConverter:
    """Text files. `extensions` picks the kind; the catch-all instance takes any text."""

    kind: str
    chat = False
    mime: str
    extensions: frozenset[str] = field(default_factory=frozenset)
    catch_all: bool = False

    def accepts(self, probe: Probe) -> bool:
        if not (self.catch_all or probe.suffix in self.extensions):
            return False
        if looks_binary(probe.head):
            if self.catch_all:
                raise UnsupportedFormat(
                    f"{probe.name}: this is binary data, not text, and not a format biomd reads."
                )
            return False
        return True

    def convert(self, probe: Probe, ctx: ConvertContext) -> Iterator[str]:
        return stream_text(probe)


MARKDOWN = TextConverter("markdown", "text/markdown", frozenset({".md", ".markdown", ".mdown"}))
JSON = TextConverter("json", "application/json", frozenset({".json", ".jsonl", ".ndjson"}))
CSV = TextConverter("csv", "text/csv", frozenset({".csv", ".tsv"}))
PLAIN = TextConverter("text", "text/plain", catch_all=True)
