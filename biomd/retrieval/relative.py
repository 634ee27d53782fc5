"""Relative times in a source, resolved against the date of what says them: "yesterday" in a
message of 2023-05-07 is shown as "yesterday (2023-05-06)", "last Saturday" as "last Saturday
(2023-05-06)", "next month" as "next month (2023-06)". A model reading a passage years later
can then tell when things happened. Pure functions; English, and the everyday words of a few
other languages."""

from __future__ import annotations

import re
from datetime import date, timedelta

WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_DAY_WORDS: dict[str, int] = {
    "yesterday": -1, "today": 0, "tonight": 0, "tomorrow": 1, "last night": -1,
    "the day before yesterday": -2, "the day after tomorrow": 2,
    "gestern": -1, "heute": 0, "morgen": 1, "vorgestern": -2, "übermorgen": 2,
    "ayer": -1, "hoy": 0, "mañana": 1, "anteayer": -2,
    "hier": -1, "aujourd'hui": 0, "demain": 1, "avant-hier": -2,
    "ontem": -1, "hoje": 0, "amanhã": 1, "anteontem": -2,
    "ieri": -1, "oggi": 0, "domani": 1,
}  # fmt: skip
_NUMBERS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6}
_MONTHS = "(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)"  # "Friday 31 May" is a date
_DAY = "|".join(sorted((re.escape(w) for w in _DAY_WORDS), key=len, reverse=True))
_PATTERN = re.compile(
    rf"(?<![\w-])(?:(?P<day>{_DAY})"
    rf"|(?P<which>last|next|this|on) (?P<weekday>{'|'.join(WEEKDAYS)})"
    rf"(?!,? (?:the )?\d|,? {_MONTHS})"
    r"|(?P<which3>last|next|this) (?P<short>mon|tues?|wed|thu(?:rs?)?|fri|sat|sun)"
    rf"(?!,? (?:the )?\d|,? {_MONTHS})"
    r"|(?P<weekend>(?:last|next|this|the) weekend(?: before| after)?)"
    r"|(?P<which2>last|next|this) (?P<unit>week|month|year)"
    r"|(?P<n>\d+|a|an|one|two|three|four|five|six) (?P<unit2>days?|weeks?|months?|years?) ago)"
    r"(?![\w'’-])(?! \()",
    re.I,
)
_STAMP = re.compile(r"^\[(\d{4}-\d{2}-\d{2})[ T]\d{2}:\d{2}\]", re.M)


def _month(day: date, delta: int) -> str:
    index = day.year * 12 + day.month - 1 + delta
    return f"{index // 12:04d}-{index % 12 + 1:02d}"


def _weekend(words: str, day: date) -> str | None:
    """The Saturday and Sunday a weekend names: "last weekend" and "the weekend before" the
    one before `day`, "this weekend" the coming one (or this one, said on it), "next
    weekend" the one after; "the weekend" alone names none."""
    saturday = day - timedelta(days=(day.weekday() - 5) % 7)  # the last Saturday, or today
    if words in ("last weekend", "the weekend before"):
        start = saturday if day.weekday() not in (5, 6) else saturday - timedelta(weeks=1)
    elif words == "this weekend":
        start = saturday if day.weekday() in (5, 6) else saturday + timedelta(weeks=1)
    elif words in ("next weekend", "the weekend after"):
        start = saturday + timedelta(weeks=1)
    else:
        return None
    return f"{start.isoformat()} to {(start + timedelta(days=1)).isoformat()}"


def _resolve(m: re.Match[str], day: date) -> str | None:
    """The date a relative time names, said against `day`; None where it names none."""
    if m["day"]:
        return (day + timedelta(days=_DAY_WORDS[m["day"].lower()])).isoformat()
    if m["weekend"]:
        return _weekend(m["weekend"].lower(), day)
    if m["weekday"] or m["short"]:
        said = (m["weekday"] or m["short"]).lower()
        target = next(i for i, w in enumerate(WEEKDAYS) if w.startswith(said))
        which = (m["which"] or m["which3"]).lower()
        if which == "last":
            back = (day.weekday() - target) % 7 or 7
            return (day - timedelta(days=back)).isoformat()
        ahead = (target - day.weekday()) % 7
        if which == "next":
            ahead = ahead or 7
        return (day + timedelta(days=ahead)).isoformat()
    if m["unit"]:
        step = {"last": -1, "next": 1, "this": 0}[m["which2"].lower()]
        unit = m["unit"].lower()
        if unit == "year":
            return str(day.year + step)
        if unit == "month":
            return _month(day, step)
        monday = day - timedelta(days=day.weekday()) + timedelta(weeks=step)
        return f"week of {monday.isoformat()}"
    n = int(m["n"]) if m["n"].isdigit() else _NUMBERS[m["n"].lower()]
    unit = m["unit2"].lower().rstrip("s")
    if unit == "day":
        return (day - timedelta(days=n)).isoformat()
    if unit == "week":
        return f"week of {(day - timedelta(weeks=n) - timedelta(days=day.weekday())).isoformat()}"
    if unit == "month":
        return _month(day, -n)
    return str(day.year - n)


def resolve(text: str, day: date) -> str:
    """`text` with each relative time followed by the date it names, said on `day`."""

    def add(m: re.Match[str]) -> str:
        named = _resolve(m, day)
        return f"{m[0]} ({named})" if named else m[0]

    return _PATTERN.sub(add, text)


def resolve_lines(text: str, fallback: date | None = None) -> str:
    """A passage with its relative times resolved: in a transcript each line against its own
    time stamp (`[YYYY-MM-DD HH:MM] Name: …`), elsewhere against `fallback` (a source of one
    day) if given."""
    out = []
    for line in text.split("\n"):
        stamp = _STAMP.match(line)
        day = date.fromisoformat(stamp[1]) if stamp else fallback
        out.append(resolve(line, day) if day else line)
    return "\n".join(out)
