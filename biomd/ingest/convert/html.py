"""HTML to Markdown-flavoured text, with scripts and styles dropped (markitdown)."""

from __future__ import annotations

import re
from collections.abc import Iterator

from biomd.ingest.convert.base import Probe
from biomd.ingest.convert.context import ConvertContext
from biomd.ingest.convert.text import looks_binary, read_text

_HTML_START = re.compile(
    rb"^\s*(<!--.*?-->\s*)*<(!doctype\s+html|html|head|body)[\s>]", re.I | re.S
)


class HtmlConverter:
    kind = "html"
    chat = False
    mime = "text/html"

    def accepts(self, probe: Probe) -> bool:
        head = probe.head.lstrip(b"\xef\xbb\xbf")
        if looks_binary(head):
            return False
        return probe.suffix in {".html", ".htm", ".xhtml"} or bool(_HTML_START.match(head[:4096]))

    def convert(self, probe: Probe, ctx: ConvertContext) -> Iterator[str]:
        from markitdown.converters import HtmlConverter as MarkItDownHtml

        result = MarkItDownHtml().convert_string(read_text(probe))
        title = (result.title or "").strip()
        text = result.markdown
        if title and title not in text[: len(title) + 200]:
            text = f"# {title}\n\n{text}"
        yield text
