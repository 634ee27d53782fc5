"""Conversion of sources to plain text: an ordered registry of converters.

Detection is by content first, with the file name only as a hint: the first converter that
accepts a source takes it, so specific formats (a WhatsApp export, a Telegram result.json)
come before the generic ones they would otherwise fall into (a zip, a JSON file, text).
"""

from __future__ import annotations

from core.errors import CorruptSource, UnsupportedFormat
from core.ingest.convert.ai_chats import CHATGPT, CLAUDE
from core.ingest.convert.archive import ZipReader
from core.ingest.convert.audio import AudioConverter
from core.ingest.convert.base import ArchiveReader, Converter, Member, Probe
from core.ingest.convert.context import ArchiveBudget, ConvertContext
from core.ingest.convert.discord import DiscordJson
from core.ingest.convert.docx import DocxConverter
from core.ingest.convert.email import EmlConverter, MboxConverter
from core.ingest.convert.html import HtmlConverter
from core.ingest.convert.image import ImageConverter
from core.ingest.convert.imessage import IMessageDb, IMessageText
from core.ingest.convert.messenger import MessengerJson, MetaExportZip
from core.ingest.convert.pdf import PdfConverter
from core.ingest.convert.sniff import describe_binary
from core.ingest.convert.telegram import TelegramJson
from core.ingest.convert.text import CSV, JSON, MARKDOWN, PLAIN
from core.ingest.convert.whatsapp import WhatsAppText, WhatsAppZip

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
