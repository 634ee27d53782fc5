"""PDF text, page by page (pypdf), so a long PDF never sits in memory as text."""

from __future__ import annotations

from collections.abc import Iterator

from biomd.errors import CorruptSource
from biomd.ingest.convert.base import Probe
from biomd.ingest.convert.context import ConvertContext


class PdfConverter:
    kind = "pdf"
    chat = False
    mime = "application/pdf"

    def accepts(self, probe: Probe) -> bool:
        return b"%PDF-" in probe.head[:1024]

    def convert(self, probe: Probe, ctx: ConvertContext) -> Iterator[str]:
        from pypdf import PdfReader
        from pypdf.errors import FileNotDecryptedError, PdfReadError

        try:
            reader = PdfReader(probe.path)
            if reader.is_encrypted and not reader.decrypt(""):
                raise CorruptSource(
                    f"{probe.name}: this PDF is password-protected. Remove the password "
                    "(for example by printing it to a new PDF) and send it again."
                )
            pages = len(reader.pages)
        except CorruptSource:
            raise
        except (PdfReadError, FileNotDecryptedError, ValueError, KeyError, OSError) as exc:
            raise CorruptSource(
                f"{probe.name}: this PDF is damaged and cannot be read ({exc})."
            ) from exc
        for number in range(pages):
            try:
                text = reader.pages[number].extract_text() or ""
            except Exception as exc:  # pypdf raises many kinds on broken pages
                raise CorruptSource(
                    f"{probe.name}: page {number + 1} of {pages} is damaged ({exc})."
                ) from exc
            if number:
                yield "\n\n"
            yield text.replace("\x00", "")
