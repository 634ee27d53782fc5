"""What other assistants may see of bio.md when some sources are private: a line whose
citations are all private is withheld; a line that also cites a shared source is shown
without the private citations; a line the mirror put there (a confirmed pattern) is withheld
if it quotes a private source at all. An item's continuation lines go with it, and one that
cites only private sources goes on its own. A share (to a person the owner chooses) leaves
out what rests only on private sources, unless the owner picks it. Pure."""

from __future__ import annotations

import re
from collections.abc import Collection

from biomd.biographer.profile_text import MIRROR_MARK, citations

_GROUP = re.compile(r"\[(#\d+(?:\s*,\s*#\d+)*)\]")
_ITEM = re.compile(r"^\s*(?:[-*+]|\d{1,3}[.)])\s+")


def _uncited(line: str, private: frozenset[int]) -> str:
    """`line` without its citations of private sources (a group left empty goes)."""

    def keep(m: re.Match[str]) -> str:
        ids = [x.strip() for x in m.group(1).split(",")]
        shown = [x for x in ids if int(x[1:]) not in private]
        return f"[{', '.join(shown)}]" if shown else ""

    return re.sub(r"\s+(?=[.,;:]?$)", "", _GROUP.sub(keep, line)).rstrip()


def withheld(line: str, private: frozenset[int]) -> bool:
    """Whether an item of bio.md (with its continuation lines) rests on private sources."""
    cited = citations(line)
    if not cited or not cited & private:
        return False
    return MIRROR_MARK in line or cited <= private


def _items(bio: str) -> list[list[str]]:
    """bio.md's lines in items: a list item with its indented continuation lines, or a line
    of its own."""
    lines = bio.splitlines()
    out: list[list[str]] = []
    i = 0
    while i < len(lines):
        j = i + 1
        if _ITEM.match(lines[i]):
            while j < len(lines) and lines[j].strip() and lines[j][:1] in (" ", "\t"):
                if _ITEM.match(lines[j]):
                    break
                j += 1
        out.append(lines[i:j])
        i = j
    return out


def _only_private(item: list[str], private: frozenset[int]) -> bool:
    cited = citations(" ".join(item))
    return bool(cited) and cited <= private


def _said(item: list[str]) -> str:
    """An item as one line, without its list marker."""
    return _ITEM.sub("", " ".join(x.strip() for x in item), count=1)


def resting_on_private(bio: str, private: frozenset[int]) -> list[str]:
    """bio.md's items whose citations are all private sources, each as one line."""
    return [_said(item) for item in _items(bio) if _only_private(item, private)]


def leave_out(bio: str, private: frozenset[int], keep: Collection[str] = ()) -> str:
    """bio.md without the items resting only on private sources, but those in `keep` (as
    `resting_on_private` gives them): what a share is made from."""
    out: list[str] = []
    for item in _items(bio):
        if not _only_private(item, private) or _said(item) in keep:
            out += item
    return "\n".join(out) + ("\n" if bio.endswith("\n") else "")


def for_assistants(bio: str, private: frozenset[int]) -> str:
    """bio.md as other assistants may see it (see the module's docstring)."""
    if not private:
        return bio
    out: list[str] = []
    for item in _items(bio):
        if not withheld(" ".join(item), private):
            for x in item:  # a line of its own resting only on private sources goes too
                cited = citations(x)
                if not cited & private:
                    out.append(x)
                elif not cited <= private:
                    out.append(_uncited(x, private))
    return "\n".join(out) + ("\n" if bio.endswith("\n") else "")
