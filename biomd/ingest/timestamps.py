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


_MONTH_NAMES = {
    1: "january jan januar janvier enero ene janeiro gennaio genn",
    2: "february feb februar février fevrier febrero fevereiro fev febbraio",
    3: "march mar märz maerz mars marzo março marco",
    4: "april apr avril abril aprile",
    5: "may mai mayo maio maggio mag",
    6: "june jun juni juin junio junho giugno giu",
    7: "july jul juli juillet julio julho luglio lug",
    8: "august aug août aout agosto ago",
    9: "september sep sept septembre septiembre setiembre setembro settembre set",
    10: "october oct oktober octobre octubre outubro ottobre ott out",
    11: "november nov novembre noviembre novembro",
    12: "december dec dezember décembre decembre diciembre dic dezembro dez dicembre",
}
_MONTHS = {name: number for number, names in _MONTH_NAMES.items() for name in names.split()}
_MONTH = "(" + "|".join(sorted(map(re.escape, _MONTHS), key=len, reverse=True)) + r")\.?"
_NAMED = _MONTH.replace("(", "(?P<name>", 1)
_HEADING_DATES = (
    re.compile(r"\b(?P<y>\d{4})-(?P<m>\d{2})-(?P<d>\d{2})\b"),
    re.compile(
        rf"\b(?P<d>\d{{1,2}})(?:st|nd|rd|th|\.|º)?(?: de)? {_NAMED}(?: de)?,? (?P<y>\d{{4}})\b",
        re.IGNORECASE,
    ),
    re.compile(rf"\b{_NAMED} (?P<d>\d{{1,2}})(?:st|nd|rd|th)?,? (?P<y>\d{{4}})\b", re.IGNORECASE),
)


def date_in_heading(text: str) -> str | None:
    """The date a text's first line gives ("# Saturday 14 May 2022", "3 de mayo de 2021",
    "May 3rd, 2021", "2021-05-03"), as YYYY-MM-DD: a journal entry's own date."""
    first = next((line for line in text.splitlines() if line.strip()), "")[:160]
    for pattern in _HEADING_DATES:
        for m in pattern.finditer(first):
            month = int(m["m"]) if "m" in m.groupdict() else _MONTHS[m["name"].lower()]
            try:
                return date(int(m["y"]), month, int(m["d"])).isoformat()
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
