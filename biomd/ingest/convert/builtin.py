"""biomd's own converters, registered as a default plugin through the same hook as any
other's. The order matters: a specific format comes before anything that would also take it
(a WhatsApp zip before a zip; docx, itself a zip, first of all)."""

from __future__ import annotations

from collections.abc import Callable

from biomd.plugins import hookimpl


@hookimpl(tryfirst=True)
def register_converters(register: Callable[..., None]) -> None:
    from biomd.ingest.convert.ai_chats import CHATGPT, CLAUDE, HERMES
    from biomd.ingest.convert.archive import ZipReader
    from biomd.ingest.convert.audio import AudioConverter
    from biomd.ingest.convert.discord import DiscordJson
    from biomd.ingest.convert.docx import DocxConverter
    from biomd.ingest.convert.email import EmlConverter, MboxConverter
    from biomd.ingest.convert.html import HtmlConverter
    from biomd.ingest.convert.image import ImageConverter
    from biomd.ingest.convert.imessage import IMessageDb, IMessageText
    from biomd.ingest.convert.messenger import MessengerJson, MetaExportZip
    from biomd.ingest.convert.pdf import PdfConverter
    from biomd.ingest.convert.telegram import TelegramJson
    from biomd.ingest.convert.text import CSV, JSON, MARKDOWN, PLAIN
    from biomd.ingest.convert.whatsapp import WhatsAppText, WhatsAppZip

    for converter in (
        PdfConverter(),
        DocxConverter(),
        WhatsAppZip(),
        MetaExportZip(),
        ImageConverter(),
        AudioConverter(),
        IMessageDb(),
        TelegramJson(),
        DiscordJson(),
        MessengerJson(),
        CHATGPT,
        CLAUDE,
        HERMES,
        MboxConverter(),
        EmlConverter(),
        WhatsAppText(),
        IMessageText(),
    ):
        register(converter)
    for fallback in (ZipReader(), HtmlConverter(), MARKDOWN, JSON, CSV, PLAIN):
        register(fallback, generic=True)
