"""The time a question is about: "in 2019", "in May 2021", "last summer", "two years ago",
"after I moved to Lisbon" become a range of days, in the owner's time zone, so that search
can put what happened then first. Pure functions; today and the timeline are given."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime, timedelta, tzinfo

MONTHS = {
    m: i
    for i, names in enumerate(
        (
            ("january", "jan"), ("february", "feb"), ("march", "mar"), ("april", "apr"),
            ("may",), ("june", "jun"), ("july", "jul"), ("august", "aug"),
            ("september", "sep", "sept"), ("october", "oct"), ("november", "nov"),
            ("december", "dec"),
        ),
        start=1,
    )
    for m in names
}  # fmt: skip
SEASONS = {
    "spring": (3, 5),
    "summer": (6, 8),
    "autumn": (9, 11),
    "fall": (9, 11),
    "winter": (12, 2),
}
NUMBERS = {"a": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
           "eight": 8, "nine": 9, "ten": 10, "a couple of": 2, "a few": 3}  # fmt: skip
_MONTH = "|".join(sorted(MONTHS, key=len, reverse=True))
_SEASON = "|".join(SEASONS)
_COUNT = r"\d+|" + "|".join(sorted(NUMBERS, key=len, reverse=True))
_UNIT = r"days?|weeks?|months?|years?"
_ISO_DAY = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b")
_DAY_MONTH_YEAR = re.compile(
    rf"\b(\d{{1,2}})(?:st|nd|rd|th)?\s+({_MONTH})\.?,?\s+(\d{{4}})\b", re.I
)
_MONTH_DAY_YEAR = re.compile(
    rf"\b({_MONTH})\.?\s+(\d{{1,2}})(?:st|nd|rd|th)?,?\s+(\d{{4}})\b", re.I
)
_MONTH_YEAR = re.compile(rf"\b({_MONTH})\.?,?\s+(?:of\s+)?(\d{{4}})\b", re.I)
_SEASON_YEAR = re.compile(rf"\b(?:the\s+)?({_SEASON})\s+(?:of\s+)?(\d{{4}})\b", re.I)
_DECADE = re.compile(r"\b(?:the\s+)?((?:19|20)\d)0'?s\b", re.I)
_SHORT_DECADE = re.compile(r"\b(?:the\s+)?'?(\d)0'?s\b", re.I)  # "the 90s", "the '80s"
_YEAR = re.compile(r"\b(?:in|during|of|since|from|by|around)?\s*((?:19|20)\d{2})\b", re.I)
_AGO = re.compile(rf"\b({_COUNT})\s+({_UNIT})\s+ago\b", re.I)
_LAST = re.compile(rf"\b(last|this|past|previous)\s+(year|month|week|{_SEASON}|{_MONTH})\b", re.I)
_DAY_WORD = re.compile(r"\b(yesterday|today)\b", re.I)
_ANCHOR = re.compile(r"\b(after|before|since|when|while|during)\s+(.{3,80}?)(?:[?.!,;]|$)", re.I)
_WORD = re.compile(r"\w+")
_MINOR = {"i", "we", "my", "our", "the", "a", "an", "to", "in", "at", "of", "was", "were", "had",
          "have", "did", "got", "first", "moved", "move", "went"}  # fmt: skip


@dataclass(frozen=True)
class Period:
    first: date
    last: date
    said: str  # the words that named it

    def holds(self, day: date) -> bool:
        return self.first <= day <= self.last

    def overlaps(self, first: date, last: date) -> bool:
        return self.first <= last and first <= self.last


def _month_end(year: int, month: int) -> date:
    following = date(year + (month == 12), month % 12 + 1, 1)
    return following - timedelta(days=1)


def _season(name: str, year: int) -> tuple[date, date]:
    first, last = SEASONS[name.lower()]
    if first > last:  # winter: December of `year` to February of the next
        return date(year, first, 1), _month_end(year + 1, last)
    return date(year, first, 1), _month_end(year, last)


def _count(word: str) -> int:
    return int(word) if word.isdigit() else NUMBERS.get(word.lower(), 1)


def period(question: str, today: date, timeline: Sequence[tuple[date, str]] = ()) -> Period | None:
    """The days `question` is about, if it names a time; `today` is in the owner's zone and
    `timeline` is bio.md's dated events (for "after I moved to Lisbon"). A date that can't
    be ("2021-02-30", "3000 years ago") names no time."""
    try:
        return _period(question, today, timeline)
    except (ValueError, OverflowError):
        return None


def _period(question: str, today: date, timeline: Sequence[tuple[date, str]]) -> Period | None:
    q = question
    if m := _ISO_DAY.search(q):
        d = date(int(m[1]), int(m[2]), int(m[3]))
        return Period(d, d, m[0])
    for rx, order in ((_DAY_MONTH_YEAR, (1, 2, 3)), (_MONTH_DAY_YEAR, (2, 1, 3))):
        if m := rx.search(q):
            day, month, year = (m.group(i) for i in order)
            try:
                d = date(int(year), MONTHS[month.lower()], int(day))
            except ValueError:
                continue
            return Period(d, d, m[0])
    if m := _MONTH_YEAR.search(q):
        year, month = int(m[2]), MONTHS[m[1].lower()]
        return Period(date(year, month, 1), _month_end(year, month), m[0])
    if m := _SEASON_YEAR.search(q):
        return Period(*_season(m[1], int(m[2])), m[0])
    if m := _DECADE.search(q):
        start = int(m[1]) * 10
        return Period(date(start, 1, 1), date(start + 9, 12, 31), m[0])
    if m := _SHORT_DECADE.search(q):
        start = 1900 + int(m[1]) * 10
        start += 100 if start + 100 <= today.year else 0  # the 20s: the 2020s, by now
        return Period(date(start, 1, 1), date(start + 9, 12, 31), m[0])
    if m := _AGO.search(q):
        return _ago(_count(m[1]), m[2].lower().rstrip("s"), today, m[0])
    if m := _LAST.search(q):
        return _last(m[1].lower(), m[2].lower(), today, m[0])
    if m := _DAY_WORD.search(q):
        d = today - timedelta(days=1) if m[1].lower() == "yesterday" else today
        return Period(d, d, m[0])
    if m := _YEAR.search(q):
        year = int(m[1])
        return Period(date(year, 1, 1), date(year, 12, 31), m[0].strip())
    if timeline and (m := _ANCHOR.search(q)):
        return _anchored(m[1].lower(), m[2], today, timeline, m[0])
    return None


def names_an_event(question: str) -> bool:
    """Whether the question may be anchored on a timeline event ("after I moved …")."""
    return _ANCHOR.search(question) is not None


def day_of(stamp: str | None) -> date | None:
    """The day of a stored date ("2019-04-07 10:32", "2019-04-07"), if it has one."""
    try:
        return date.fromisoformat(stamp[:10]) if stamp else None
    except ValueError:
        return None


def _ago(n: int, unit: str, today: date, said: str) -> Period:
    """ "two years ago": that year; "3 months ago": that month; "a week ago": that week."""
    if unit == "year":
        year = today.year - n
        return Period(date(year, 1, 1), date(year, 12, 31), said)
    if unit == "month":
        month = (today.month - 1 - n) % 12 + 1
        year = today.year + (today.month - 1 - n) // 12
        return Period(date(year, month, 1), _month_end(year, month), said)
    days = n * (7 if unit == "week" else 1)
    centre = today - timedelta(days=days)
    spread = timedelta(days=3 if unit == "week" else 0)
    return Period(centre - spread, centre + spread, said)


def _last(which: str, unit: str, today: date, said: str) -> Period:
    back = 0 if which == "this" else 1
    if unit == "year":
        year = today.year - back
        return Period(date(year, 1, 1), date(year, 12, 31), said)
    if unit == "month":
        return _ago(back, "month", today, said)
    if unit == "week":
        monday = today - timedelta(days=today.weekday() + 7 * back)
        return Period(monday, monday + timedelta(days=6), said)
    if unit in SEASONS:
        first, _ = _season(unit, today.year)
        year = today.year if (which == "this" or first <= today) else today.year - 1
        if which != "this" and _season(unit, year)[1] >= today:
            year -= 1  # "last summer" in July is the summer before
        return Period(*_season(unit, year), said)
    month = MONTHS[unit]  # "last May": the most recent May before this month
    year = today.year if (month < today.month or which == "this") else today.year - 1
    return Period(date(year, month, 1), _month_end(year, month), said)


def _anchored(
    how: str, what: str, today: date, timeline: Sequence[tuple[date, str]], said: str
) -> Period | None:
    """ "after I moved to Lisbon": from the day of the timeline event that says it."""
    words = {w.lower()[:5] for w in _WORD.findall(what) if w.lower() not in _MINOR}
    if not words:
        return None
    best, event = 0, None
    for day, label in timeline:
        have = {w.lower()[:5] for w in _WORD.findall(label)}
        shared = len(words & have)
        if shared > best:
            best, event = shared, day
    if event is None or best < min(2, len(words)):
        return None
    if how in ("after", "since"):
        return Period(event, today, said)
    if how == "before":
        return Period(date(1900, 1, 1), event, said)
    return Period(date(event.year, 1, 1), date(event.year, 12, 31), said)  # when, while, during


def today_in(zone: tzinfo, now: datetime | None = None) -> date:
    """The owner's today: the date in their time zone (not the machine's, not UTC's)."""
    return (now or datetime.now(zone)).astimezone(zone).date()


_EVENT = re.compile(r"^\s*(\d{4})(?:-(\d{2}))?(?:-(\d{2}))?\b\s*[:–—-]?\s*(.*)$")


def timeline_events(items: Sequence[str]) -> list[tuple[date, str]]:
    """bio.md's Timeline items ("2021-02: Moved to Lisbon [#3]") as (day, words)."""
    out = []
    for item in items:
        if m := _EVENT.match(item):
            try:
                out.append((date(int(m[1]), int(m[2] or 1), int(m[3] or 1)), m[4]))
            except ValueError:
                continue
    return out
