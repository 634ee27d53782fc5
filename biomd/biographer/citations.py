"""Citations in bio.md and in answers: `[#12]`, `[#12, #40]`, `[chat 2024-05-01]`. Finding
them, and marking the ones that point at nothing. Pure functions."""

from __future__ import annotations

import re
from collections.abc import Callable

_GROUP = re.compile(r"\[((?:[^\[\]\n]*?)#\d+[^\[\]\n]*)\]")
_ID = re.compile(r"#(\d+)(\??)")
_CHAT = re.compile(r"\[chat (\d{4}-\d{2}-\d{2})\]")
_PAREN = re.compile(r"[(\[]\s*(?:sources?\s+)?(#\d+(?:\s*(?:,|and|&)\s*#\d+)*)\s*[)\]]", re.I)
_LINE_END = re.compile(r"(?<=[ \t])#(\d+)(?=[ \t]*[.;]?[ \t]*$)", re.M)
_NUMBERED = re.compile(r"\[(?:source\s+|sources?:\s*)?(\d{1,6})\]", re.I)  # "[9]"
_BEFORE_GROUP = re.compile(r"(?<=[ \t])#(\d+)[ \t]*(?=\[#)")  # "#27 [#4]"
FLAG = "?"
"""What follows an id that is not a real source, e.g. [#3, #25?]: shown, never linked."""


def bracket_bare(text: str) -> str:
    """Source ids written the loose ways models write them, "(#3)", "(sources #3 and #8)",
    "[source #3]" or a bare "#3" ending a line, as citations: [#3], [#3, #8]."""

    def group(m: re.Match[str]) -> str:
        return "[" + ", ".join(f"#{n}" for n in re.findall(r"#(\d+)", m.group(1))) + "]"

    text = _BEFORE_GROUP.sub(lambda m: f"[#{m.group(1)}] ", text)
    text = _NUMBERED.sub(lambda m: f"[#{m.group(1)}]", text)
    return _LINE_END.sub(lambda m: f"[#{m.group(1)}]", _PAREN.sub(group, text))


def source_ids(text: str) -> set[int]:
    """Every source id cited in `text` (not those already flagged as invented)."""
    return {int(n) for group in _GROUP.findall(text) for n, flag in _ID.findall(group) if not flag}


def in_order(text: str) -> list[int]:
    """Source ids cited in `text`, in order, each once (not those flagged as invented)."""
    ids: list[int] = []
    for group in _GROUP.findall(text):
        for n, flag in _ID.findall(group):
            if not flag and int(n) not in ids:
                ids.append(int(n))
    return ids


def chat_days(text: str) -> set[str]:
    """Every day cited as [chat YYYY-MM-DD]."""
    return set(_CHAT.findall(text))


def flag_invented(
    text: str, real: Callable[[int], bool], chat_dates: set[str]
) -> tuple[str, list[str]]:
    """`text` with every citation of a source that `real` denies, or of a chat day with no
    message, marked with FLAG; and the citations so marked, as written."""
    flagged: list[str] = []

    def group(m: re.Match[str]) -> str:
        def one(i: re.Match[str]) -> str:
            if i.group(2) or real(int(i.group(1))):
                return i.group(0)
            flagged.append(f"#{i.group(1)}")
            return f"#{i.group(1)}{FLAG}"

        return "[" + _ID.sub(one, m.group(1)) + "]"

    out = _GROUP.sub(group, text)

    def chat(m: re.Match[str]) -> str:
        if m.group(1) in chat_dates:
            return m.group(0)
        flagged.append(f"chat {m.group(1)}")
        return f"[chat {m.group(1)}{FLAG}]"

    return _CHAT.sub(chat, out), list(dict.fromkeys(flagged))
