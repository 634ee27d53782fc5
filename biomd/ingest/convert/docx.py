"""Word documents to Markdown-flavoured text, headings and tables kept (markitdown, mammoth)."""

from __future__ import annotations

from collections.abc import Iterator

from biomd.errors import CorruptSource
from biomd.ingest.convert.archive import zip_holds
from biomd.ingest.convert.base import Probe
from biomd.ingest.convert.context import ConvertContext


class DocxConverter:
    kind = "docx"
    chat = False
    mime = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"

    def accepts(self, probe: Probe) -> bool:
        if probe.suffix == ".docx" and probe.head.startswith(b"PK\x03\x04"):
            return True
        return zip_holds(probe, lambda z: "word/document.xml" in z.namelist())

    def convert(self, probe: Probe, ctx: ConvertContext) -> Iterator[str]:
        from markitdown import StreamInfo
        from markitdown.converters import DocxConverter as MarkItDownDocx

        try:
            with probe.path.open("rb") as f:
                result = MarkItDownDocx().convert(  # type: ignore[no-untyped-call]
                    f, StreamInfo(extension=".docx")
                )
        except Exception as exc:  # zipfile, lxml and mammoth each raise their own kinds
            reason = str(exc) or type(exc).__name__
            raise CorruptSource(
                f"{probe.name}: this Word document is damaged and cannot be read ({reason})."
            ) from exc
        yield result.markdown
