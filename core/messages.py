"""Text for chat platforms: long replies split at the best boundary within a limit."""

from __future__ import annotations

import re

TELEGRAM_LIMIT = 4096
DISCORD_LIMIT = 2000

_CITATION = re.compile(r"\[#(\d+)(?:\s*,\s*#\d+)*\]")


def split_message(text: str, limit: int) -> list[str]:
    """Pieces of at most `limit` characters, cut at a paragraph break if one fits, else at a
    line break, a sentence end, a space, and only then anywhere. Nothing is lost but the
    whitespace at the cuts."""
    text = text.strip()
    pieces: list[str] = []
    while len(text) > limit:
        window = text[: limit + 1]
        cut = -1
        for sep in ("\n\n", "\n", ". ", " "):
            at = window.rfind(sep, limit // 3)
            if at > 0:
                cut = at + (1 if sep == ". " else 0)
                break
        if cut <= 0:
            cut = limit
        pieces.append(text[:cut].rstrip())
        text = text[cut:].lstrip()
    if text:
        pieces.append(text)
    return pieces


def cited_sources(text: str) -> list[int]:
    """Source ids cited in a reply, in order, each once."""
    ids: list[int] = []
    for m in re.finditer(r"\[(#\d+(?:\s*,\s*#\d+)*)\]", text):
        for n in re.findall(r"#(\d+)", m.group(1)):
            if int(n) not in ids:
                ids.append(int(n))
    return ids


def with_source_hint(reply: str) -> str:
    """A reply, plus how to open the sources it cites."""
    ids = cited_sources(reply)
    if not ids:
        return reply
    shown = ", ".join(f"/source {i}" for i in ids[:5])
    return f"{reply}\n\nSources: {shown}"
