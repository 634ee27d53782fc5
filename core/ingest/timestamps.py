"""Content timestamps: the `[YYYY-MM-DD HH:MM]` that opens each line of a chat transcript."""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import date

_LINE_STAMP = re.compile(r"^\[(\d{4}-\d{2}-\d{2}(?: \d{2}:\d{2})?)\] ?", re.MULTILINE)


def line_stamps(text: str) -> list[str]:
    """Every line-opening timestamp in `text`, in order of appearance."""
    return _LINE_STAMP.findall(text)


def span(stamps: list[str]) -> tuple[str | None, str | None]:
    """(earliest, latest) of ISO-like stamps, which sort as strings."""
    return (min(stamps), max(stamps)) if stamps else (None, None)


def strip_line_stamps(text: str) -> str:
    """`text` without the timestamp that opens each line."""
    return _LINE_STAMP.sub("", text)


_SPEAKER = re.compile(
    r"^\[\d{4}-\d{2}-\d{2}(?: \d{2}:\d{2})?\] (?!\(system\))([^:\n]{1,80}?)(?: \(owner\))?: ",
    re.MULTILINE,
)


def line_speakers(text: str) -> list[str]:
    """The speaker of each chat line in `text` (system lines have none)."""
    return _SPEAKER.findall(text)


_NAME_DATE = re.compile(
    r"(?<!\d)((?:19|20)\d{2})[-_.]?(0[1-9]|1[0-2])[-_.]?(0[1-9]|[12]\d|3[01])(?!\d)"
)


def date_in_name(name: str) -> str | None:
    """A date a file is named by (`2019-04-07.md`, `IMG_20190407.jpg`), as YYYY-MM-DD."""
    for m in _NAME_DATE.finditer(name):
        try:
            return date(int(m[1]), int(m[2]), int(m[3])).isoformat()
        except ValueError:
            continue
    return None


_MESSAGE = re.compile(
    r"^\[(\d{4}-\d{2})-\d{2}(?: \d{2}:\d{2})?\] ?"
    r"(?:(?!\(system\))([^:\n]{1,80}?)(?: \(owner\))?: )?",
    re.MULTILINE,
)


def line_months(text: str, start: int = 0) -> list[tuple[str, str]]:
    """(YYYY-MM, speaker) for each dated line of `text` that begins at or after `start`
    (so that lines in the overlap of two chunks are counted once)."""
    return [(m.group(1), m.group(2) or "") for m in _MESSAGE.finditer(text) if m.start() >= start]


_LINE = re.compile(
    r"^\[((\d{4}-\d{2})-\d{2}(?: \d{2}:\d{2})?)\]( ?)"
    r"(?:(?!\(system\))([^:\n]{1,80}?)(?: \(owner\))?: )?",
    re.MULTILINE,
)


def line_facts(text: str, start: int = 0) -> tuple[list[str], list[str], list[tuple[str, str]]]:
    """In one pass: `line_stamps(text)`, `line_speakers(text)` and `line_months(text,
    start)` (this runs on every chunk of a chat)."""
    stamps: list[str] = []
    speakers: list[str] = []
    months: list[tuple[str, str]] = []
    for m in _LINE.finditer(text):
        stamp, month, space, speaker = m.groups()
        stamps.append(stamp)
        if speaker and space:
            speakers.append(speaker)
        if m.start() >= start:
            months.append((month, speaker or ""))
    return stamps, speakers, months


def owner_speaks(text: str, owners: Sequence[str]) -> bool:
    """Whether a chat line in `text` is the owner's (by name, or marked `(owner)`)."""
    if "(owner): " in text:
        return True
    names = {o.casefold() for o in owners}
    return any(s.casefold() in names for s in line_speakers(text))
