"""Conversion of sources to plain text: an ordered registry of converters.

Detection is by content first, with the file name only as a hint: the first converter that
accepts a source takes it, so specific formats (a WhatsApp export, a Telegram result.json)
come before the generic ones they would otherwise fall into (a zip, a JSON file, text).
"""

from __future__ import annotations

from biomd.errors import CorruptSource, UnsupportedFormat
from biomd.ingest.convert.ai_chats import CHATGPT, CLAUDE
from biomd.ingest.convert.archive import ZipReader
from biomd.ingest.convert.audio import AudioConverter
from biomd.ingest.convert.base import ArchiveReader, Converter, Member, Probe
from biomd.ingest.convert.context import ArchiveBudget, ConvertContext
from biomd.ingest.convert.discord import DiscordJson
from biomd.ingest.convert.docx import DocxConverter
from biomd.ingest.convert.email import EmlConverter, MboxConverter
from biomd.ingest.convert.html import HtmlConverter
from biomd.ingest.convert.image import ImageConverter
from biomd.ingest.convert.imessage import IMessageDb, IMessageText
from biomd.ingest.convert.messenger import MessengerJson, MetaExportZip
from biomd.ingest.convert.pdf import PdfConverter
from biomd.ingest.convert.sniff import describe_binary
from biomd.ingest.convert.telegram import TelegramJson
from biomd.ingest.convert.text import CSV, JSON, MARKDOWN, PLAIN
from biomd.ingest.convert.whatsapp import WhatsAppText, WhatsAppZip

REGISTRY: list[Converter | ArchiveReader] = [
    PdfConverter(),
    DocxConverter(),
    WhatsAppZip(),
    MetaExportZip(),
    ZipReader(),
    ImageConverter(),
    AudioConverter(),
    IMessageDb(),
    TelegramJson(),
    DiscordJson(),
    MessengerJson(),
    CHATGPT,
    CLAUDE,
    MboxConverter(),
    EmlConverter(),
    WhatsAppText(),
    IMessageText(),
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
        raise UnsupportedFormat(f"{probe.name}: this is {known}, which biomd cannot read.")
    if PLAIN.accepts(probe):
        return PLAIN
    raise UnsupportedFormat(f"{probe.name}: not a format biomd reads.")  # pragma: no cover


__all__ = [
    "REGISTRY",
    "ArchiveBudget",
    "ArchiveReader",
    "ConvertContext",
    "Converter",
    "Member",
    "Probe",
    "detect",
]
