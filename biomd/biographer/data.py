"""Source text as data: wrapped so the model can tell it from instructions, and escaped so
that it can never close its own wrapper (in any case: `</SOURCE_DATA>` too). The one
definition every prompt and tool result uses."""

from __future__ import annotations

import re

_CLOSE = re.compile(r"</(\s*source_data)", re.I)


def escape(text: str) -> str:
    """`text` with every closing tag of the wrapper defused."""
    return _CLOSE.sub(r"<\\/\1", text)


def wrap(text: str, attributes: str = "") -> str:
    """`text` inside <source_data …>, e.g. attributes=' id=12'."""
    return f"<source_data{attributes}>\n{escape(text)}\n</source_data>"
