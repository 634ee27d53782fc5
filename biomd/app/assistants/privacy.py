"""What other assistants may see of bio.md when some sources are private: a line whose
citations are all private is withheld; a line that also cites a shared source is shown
without the private citations; a line the mirror put there (a confirmed pattern) is withheld
if it quotes a private source at all. An item's continuation lines go with it, and one that
cites only private sources goes on its own. Pure."""

from __future__ import annotations

import re

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


def for_assistants(bio: str, private: frozenset[int]) -> str:
    """bio.md as other assistants may see it (see the module's docstring)."""
    if not private:
        return bio
    lines = bio.splitlines()
    out: list[str] = []
    i = 0
    while i < len(lines):
        j = i + 1
        if _ITEM.match(lines[i]):  # an item and its indented continuation lines
            while j < len(lines) and lines[j].strip() and lines[j][:1] in (" ", "\t"):
                if _ITEM.match(lines[j]):
                    break
                j += 1
        item = lines[i:j]
        if not withheld(" ".join(item), private):
            for x in item:  # a line of its own resting only on private sources goes too
                cited = citations(x)
                if not cited & private:
                    out.append(x)
                elif not cited <= private:
                    out.append(_uncited(x, private))
        i = j
    return "\n".join(out) + ("\n" if bio.endswith("\n") else "")
