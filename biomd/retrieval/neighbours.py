"""A chat hit's neighbouring messages: the line before a chunk and the line after it, so an
answer that spans two messages (a question and its reply) is seen whole, without spending a
result slot. Pure functions over the text either side of a chunk."""

from __future__ import annotations

import re

REACH = 600  # characters read either side of a chunk
_CHAT_LINE = re.compile(r"\[\d{4}-\d{2}-\d{2}[ \]]")


def is_chat(text: str) -> bool:
    """Whether a chunk is part of a chat transcript (its lines open with a date)."""
    return any(_CHAT_LINE.match(line) for line in text.split("\n", 3)[:3])


def before(prefix: str) -> str:
    """From the text just before a chunk: the rest of the line the chunk starts inside, with
    the whole message before it ("" when there is none within reach)."""
    cut = prefix.rfind("\n")
    if cut < 0:
        return prefix if len(prefix) < REACH else ""  # the source's first line, or too long
    line_start = prefix.rfind("\n", 0, cut) + 1
    if line_start == 0 and len(prefix) >= REACH:
        return prefix[cut + 1 :]  # the message before is longer than the reach
    if not _CHAT_LINE.match(prefix[line_start:cut]):
        return prefix[cut + 1 :]
    return prefix[line_start:]


def after(suffix: str) -> str:
    """From the text just after a chunk: the rest of the line the chunk ends inside, with
    the whole message after it."""
    cut = suffix.find("\n")
    if cut < 0:
        return suffix if len(suffix) < REACH else ""
    end = suffix.find("\n", cut + 1)
    if end < 0:
        if len(suffix) >= REACH:
            return suffix[:cut]  # the next message is longer than the reach
        end = len(suffix)
    if not _CHAT_LINE.match(suffix[cut + 1 : end]):
        return suffix[:cut]
    return suffix[:end]
