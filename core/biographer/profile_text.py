"""bio.md as text: the skeleton, surgical edits, and reading its sections. Pure functions."""

from __future__ import annotations

import re
from dataclasses import dataclass

SECTIONS = (
    "Summary",
    "Identity",
    "Timeline",
    "People & relationships",
    "Patterns",
    "Hypotheses",
    "Inferences",
    "Open questions",
)

SKELETON = """# bio.md

## Summary
_Nothing is known yet. This fills in as sources are read._

## Identity

## Timeline

## People & relationships

## Patterns

## Hypotheses

## Inferences

## Open questions
"""

_CITATION = re.compile(r"#(\d+)")
_CITE_GROUP = re.compile(r"\[(#\d+(?:\s*,\s*#\d+)*)\]")
_QUESTION_ID = re.compile(r"^\s*[-*]\s+\[(Q\d+)\]\s*(.*)$")
_BULLET = re.compile(r"^\s*[-*]\s+(.*)$")
_HEADING = re.compile(r"^##\s+(.+?)\s*$", re.MULTILINE)


@dataclass(frozen=True, slots=True)
class Question:
    id: str
    text: str


def citations(content: str) -> set[int]:
    """Every source id cited as [#12] or [#12, #14]."""
    return {int(n) for group in _CITE_GROUP.findall(content) for n in _CITATION.findall(group)}


def section(content: str, title: str) -> str:
    """The body of a `## title` section (case-insensitive), without its heading."""
    matches = list(_HEADING.finditer(content))
    for i, m in enumerate(matches):
        if m.group(1).strip().lower() == title.lower():
            end = matches[i + 1].start() if i + 1 < len(matches) else len(content)
            return content[m.end() : end].strip("\n")
    return ""


def section_titles(content: str) -> list[str]:
    return [m.group(1).strip() for m in _HEADING.finditer(content)]


def bullets(text: str) -> list[str]:
    """List items of a section; continuation lines join their item."""
    items: list[str] = []
    for line in text.splitlines():
        if m := _BULLET.match(line):
            items.append(m.group(1).strip())
        elif items and line.strip() and line.startswith((" ", "\t")):
            items[-1] += " " + line.strip()
    return items


def open_questions(content: str) -> list[Question]:
    out = []
    for line in section(content, "Open questions").splitlines():
        if m := _QUESTION_ID.match(line):
            out.append(Question(m.group(1), m.group(2).strip()))
    return out


def timeline(content: str) -> list[str]:
    return bullets(section(content, "Timeline"))


def number_questions(content: str, next_id: int) -> tuple[str, int]:
    """Give every open question without an id the next `[Qn]`, so answers can find it."""
    matches = list(_HEADING.finditer(content))
    for i, m in enumerate(matches):
        if m.group(1).strip().lower() != "open questions":
            continue
        end = matches[i + 1].start() if i + 1 < len(matches) else len(content)
        lines = content[m.end() : end].split("\n")
        for j, line in enumerate(lines):
            bullet = _BULLET.match(line)
            if bullet and not _QUESTION_ID.match(line):
                indent = line[: len(line) - len(line.lstrip())]
                lines[j] = f"{indent}- [Q{next_id}] {bullet.group(1).strip()}"
                next_id += 1
        return content[: m.end()] + "\n".join(lines) + content[end:], next_id
    return content, next_id


def changed_sections(before: str, after: str) -> list[str]:
    """Titles of the sections whose text differs."""
    titles = list(dict.fromkeys(section_titles(before) + section_titles(after)))
    return [t for t in titles if section(before, t) != section(after, t)]
