"""Conversion of sources to plain text: an ordered registry of converters.

Detection is by content first, with the file name only as a hint. New formats (chat
exports, audio, images) slot in by adding a converter to `REGISTRY` ahead of the
generic ones it is more specific than.
"""

from __future__ import annotations

from core.convert.archive import ZipReader
from core.convert.base import ArchiveBudget, ArchiveReader, Converter, Member, Probe
from core.convert.docx import DocxConverter
from core.convert.html import HtmlConverter
from core.convert.pdf import PdfConverter
from core.convert.sniff import describe_binary
from core.convert.text import CSV, JSON, MARKDOWN, PLAIN
from core.errors import CorruptSource, UnsupportedFormat

REGISTRY: list[Converter | ArchiveReader] = [
    PdfConverter(),
    DocxConverter(),
    ZipReader(),
    HtmlConverter(),
    MARKDOWN,
    JSON,
    CSV,
    PLAIN,
]


def detect(probe: Probe) -> Converter | ArchiveReader:
    """The first converter that accepts the source, or a clear error saying why none does."""
    if not probe.head:
        raise CorruptSource(f"{probe.name}: the file is empty.")
    for converter in REGISTRY[:-1]:
        if converter.accepts(probe):
            return converter
    known = describe_binary(probe.head)
    if known:
        raise UnsupportedFormat(f"{probe.name}: this is {known}, which biomd cannot read yet.")
    if PLAIN.accepts(probe):
        return PLAIN
    raise UnsupportedFormat(f"{probe.name}: not a format biomd reads.")  # pragma: no cover


__all__ = [
    "REGISTRY",
    "ArchiveBudget",
    "ArchiveReader",
    "Converter",
    "Member",
    "Probe",
    "detect",
]
