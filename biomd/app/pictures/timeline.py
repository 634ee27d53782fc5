"""The timeline as a picture: one time axis with three layers, the events of bio.md's
Timeline (each linked to its citation), one bar per source for the dates it covers, and
the dated messages per month. Years that no source covers are shaded: those are the gaps
the biographer asks about. Drawn with biomd.app.pictures.drawing, as SVG for the web view (at
a phone's width and a desk's) and PNG for the bots, from the same shapes."""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date

from biomd.app.pictures.drawing import (
    ALERT,
    DESK,
    LINE,
    MUTED,
    OWNER,
    Dot,
    Drawing,
    PlotLine,
    Rect,
    Shape,
    Text,
    label,
    text_width,
    to_png,
    to_svg,
    wrap,
)
from biomd.biographer.citations import in_order
from biomd.biographer.profile_text import timeline
from biomd.plural import counted
from biomd.storage.store import Store

MAX_BARS = 40  # past this many sources, the bars become a count of sources per year
GAP, SOURCE, BAD = "#fbe3dd", "#68a063", "#9b2c2c"
_DATE = re.compile(r"^\s*(\d{4})(?:-(\d{2}))?(?:-(\d{2}))?\b\s*[:–—-]?\s*(.*)$")


@dataclass(frozen=True, slots=True)
class Event:
    when: date  # where it goes on the axis: a month or a year alone counts from its first day
    label: str
    cites: tuple[int, ...]
    written: str = ""  # the date as bio.md gives it: 2021, 2021-03 or 2021-03-05

    @property
    def day(self) -> str:
        """The date as precise as bio.md has it."""
        return self.written or self.when.isoformat()


@dataclass(frozen=True, slots=True)
class Span:
    document_id: int
    name: str
    start: date
    end: date


@dataclass
class Timeline:
    events: list[Event] = field(default_factory=list)
    spans: list[Span] = field(default_factory=list)
    months: dict[str, int] = field(default_factory=dict)  # "YYYY-MM" → dated messages
    unplaced: list[tuple[int, str]] = field(default_factory=list)  # sources with no date

    @property
    def undated(self) -> int:
        """How many sources have no date to place them by."""
        return len(self.unplaced)

    @property
    def years(self) -> list[int]:
        """Every year from the first dated thing to the last."""
        found = [e.when.year for e in self.events] + [int(m[:4]) for m in self.months]
        found += [y for s in self.spans for y in (s.start.year, s.end.year)]
        return list(range(min(found), max(found) + 1)) if found else []

    @property
    def last(self) -> date | None:
        """The last dated day: of an event, a source's end, or a month of messages."""
        found = [e.when for e in self.events] + [s.end for s in self.spans]
        found += [date(int(m[:4]), int(m[5:7]), 28) for m in self.months]
        return max(found, default=None)

    @property
    def gaps(self) -> list[int]:
        """Years that no source covers and no message is dated in."""
        covered = {y for s in self.spans for y in range(s.start.year, s.end.year + 1)}
        covered |= {int(m[:4]) for m in self.months}
        return [y for y in self.years if y not in covered]


def events_of(bio: str) -> list[Event]:
    """bio.md's Timeline bullets that start with a date, oldest first."""
    out = []
    for item in timeline(bio):
        m = _DATE.match(item)
        if not m:
            continue
        year, month, day = int(m[1]), int(m[2] or 1), int(m[3] or 1)
        try:
            when = date(year, month, day)
        except ValueError:
            continue
        label = re.sub(r"\s*\[[^\]]*\]", "", m[4]).strip()
        written = "-".join(part for part in (m[1], m[2], m[3]) if part)
        out.append(Event(when, label, tuple(in_order(item)), written))
    return sorted(out, key=lambda e: e.when)


async def gather(store: Store, bio: str) -> Timeline:
    """Everything the picture shows, from bio.md and the store."""
    sources = await store.documents.all(status="ready")
    sources.sort(key=lambda d: (d.content_start or "9999", d.id))
    tl = Timeline(events=events_of(bio))
    for doc in sources:
        first, last = _day(doc.content_start), _day(doc.content_end or doc.content_start)
        if first is None or last is None:
            tl.unplaced.append((doc.id, doc.name))
            continue
        tl.spans.append(Span(doc.id, doc.name, first, max(first, last)))
    tl.months = await store.activity.months()
    return tl


def summary(tl: Timeline) -> list[str]:
    """What the picture covers, in a few lines: its years, the sources it could not place,
    and the years with no source at all."""
    lines = []
    if tl.years:
        n = len(tl.spans)
        lines.append(f"{tl.years[0]}–{tl.years[-1]}: {n} dated source{'' if n == 1 else 's'}")
    if tl.undated:
        lines.append(f"{tl.undated} source{' has' if tl.undated == 1 else 's have'} no date")
    if tl.gaps:
        lines.append("No sources at all for " + _ranges(tl.gaps))
    return lines


def caption(tl: Timeline) -> str:
    """The picture in words: under the image on Telegram and Discord, and for screen readers."""
    lines = summary(tl)
    for e in tl.events[-12:]:
        cites = ", ".join(f"#{i}" for i in e.cites)
        lines.append(f"{e.day} {_short(e.label, 80)}" + (f" [{cites}]" if cites else ""))
    return "\n".join(lines) or "Nothing dated yet."


NO_EVENTS = "None yet: the biographer writes your life's dated events into bio.md as it reads."
NO_SPANS = "No dated source yet: chat exports, e-mails and dated notes show here."
NO_MONTHS = "No dated messages yet: they come from chat exports."


def draw(tl: Timeline, width: float, link: Callable[[int], str] | None = None) -> Drawing:
    """The picture laid out for `width`, in three lanes under one time axis: numbered event
    dots (the page lists them, linked), a bar per source (or sources per year, past
    MAX_BARS), messages per month; the years with no source shaded, and an empty lane
    saying what fills it."""
    years = tl.years or [date.today().year]
    lo, hi = date(years[0], 1, 1), _axis_end(tl.last, years[-1])
    left, right = 8.0, width - 8.0
    span = max(1.0, _x(hi) - _x(lo))

    def at(d: date) -> float:
        return min(right, left + (right - left) * (_x(d) - _x(lo)) / span)

    d = Drawing(width, 0, caption(tl).split("\n")[0] if tl.years else "Nothing dated yet.")
    narrow = width < 500
    title = (
        "Events, sources, messages"
        if narrow
        else "Events in bio.md, your sources, and your messages"
    )
    d.add(label(left, 16, title, 13, right - left, bold=True))
    lanes: list[tuple[float, float]] = []  # each lane's band, for the year lines
    notes: list[Shape] = []  # what an empty lane says, drawn over the shading

    def lane(y: float, name: str, height: float, empty: str) -> float:
        """A lane's name above its band from y; its band's top."""
        d.add(label(left, y + 10, name, 10, right - left, MUTED, bold=True))
        top = y + 14
        if not empty:
            lanes.append((top, top + height))
        else:
            for i, line in enumerate(wrap(empty, 10, right - left - 8)[:3]):
                notes.append(Text(left + 4, top + 12 + 13 * i, line, 10, MUTED))
        return top

    events_name = "Events in bio.md" + ("" if narrow or not tl.events else ", numbered as below")
    events_h = 34.0 if tl.events else 13.0 * len(wrap(NO_EVENTS, 10, right - left - 8)) + 6
    top = lane(28, events_name, events_h, "" if tl.events else NO_EVENTS)
    last = [-1e9, -1e9]  # where each row of numbers last put one
    for i, e in enumerate(tl.events, 1):
        x = at(e.when)
        href = link(e.cites[0]) if link and e.cites else ""
        d.add(Dot(x, top + events_h - 6, 4, OWNER, f"{e.day}: {e.label}", href))
        room = text_width(str(i), 10) + 4
        row = next((r for r in (0, 1) if x - last[r] >= room), None)
        if row is not None:  # crowded: the dot keeps its tooltip, the list below its number
            last[row] = x
            d.add(Text(x, top + 10 + 11 * row, str(i), 10, OWNER, anchor="middle", href=href))

    bars = tl.spans if len(tl.spans) <= MAX_BARS else []
    row_h = 14.0  # a source's bar and its label (10 units: readable on a phone)
    bar_h = row_h * len(bars) if bars else (40.0 if tl.spans else 20.0)
    y = lane(top + events_h + 4, "Sources", bar_h, "" if tl.spans else NO_SPANS)
    for row, sp in enumerate(bars):
        _bar(
            d,
            sp,
            y + row_h * row,
            at(sp.start),
            max(at(sp.end), at(sp.start) + 3),
            left,
            right,
            link,
        )
    if tl.spans and not bars:
        per_year = {yy: sum(s.start.year <= yy <= s.end.year for s in tl.spans) for yy in years}
        most = max(per_year.values()) or 1
        for yy, n in per_year.items():
            h = bar_h * n / most
            x0 = at(date(yy, 1, 1)) + 1
            w = at(date(yy + 1, 1, 1)) - x0 - 1
            d.add(Rect(x0, y + bar_h - h, w, h, SOURCE, f"{yy}: {counted(n, 'source')}"))

    messages_h = 52.0 if tl.months else 20.0
    y = lane(
        y + bar_h + 4, "Your dated messages a month", messages_h, "" if tl.months else NO_MONTHS
    )
    peak = float(max(tl.months.values(), default=0) or 1)
    for month, n in tl.months.items():
        first = date(int(month[:4]), int(month[5:7]), 1)
        nxt = _months_on(first, 1)
        h = messages_h * n / peak
        d.add(Rect(at(first), y + messages_h - h, max(1.0, at(nxt) - at(first) - 0.5), h, ALERT,
                   f"{month}: {counted(n, 'message')}"))  # fmt: skip
    bottom = y + messages_h
    for gap in tl.gaps:  # the years worth asking about, under everything else
        x0, x1 = at(date(gap, 1, 1)), at(date(gap + 1, 1, 1))
        d.shapes.insert(0, Rect(x0, 28, x1 - x0, bottom - 28, GAP, f"{gap}: no source at all"))
        if x1 - x0 >= text_width("no sources", 10):
            d.add(Text((x0 + x1) / 2, bottom - 2, "no sources", 10, BAD, anchor="middle"))
    for year in range(years[0], years[-1] + 2):
        x = at(date(year, 1, 1))
        for a, b in lanes:
            d.shapes.insert(len(tl.gaps), PlotLine(x, a, x, b, LINE, 0.6))
    step = max(1, math.ceil(34 / max(1.0, (right - left) / len(years))))
    for i, year in enumerate(years):
        if i % step == 0:
            d.add(Text(at(date(year, 1, 1)) + 2, bottom + 14, str(year), 10, MUTED))
    d.add(*notes)
    d.height = bottom + 22
    return d


def _bar(
    d: Drawing,
    sp: Span,
    y: float,
    x0: float,
    x1: float,
    left: float,
    right: float,
    link: Callable[[int], str] | None,
) -> None:
    """A source's bar and its name: after it, on it or before it, the first where it fits
    whole, else where there is most room (cut after a word, whole in its tooltip)."""
    href = link(sp.document_id) if link else ""
    tip = f"#{sp.document_id} {sp.name}: {sp.start} to {sp.end}"
    d.add(Rect(x0, y + 1, x1 - x0, 12, SOURCE, tip, href))
    name = f"#{sp.document_id} {sp.name}"
    base = y + 11
    rooms = {"after": right - x1 - 4, "inside": x1 - x0 - 8, "before": x0 - left - 4}
    need = text_width(name, 10)
    where = next(
        (w for w, room in rooms.items() if room >= need), max(rooms, key=rooms.__getitem__)
    )
    room = rooms[where]
    if room < 24:  # no room anywhere: the bar keeps its tooltip
        return
    if where == "after":
        d.add(label(x1 + 4, base, name, 10, room, MUTED, href=href))
    elif where == "inside":  # a source that spans the years: its name on its bar
        d.add(label(x0 + 4, base - 0.5, name, 10, room, "#ffffff", href=href))
    else:
        d.add(label(x0 - 4, base, name, 10, room, MUTED, "end", href=href))


def render(tl: Timeline, fmt: str = "svg", link: Callable[[int], str] | None = None) -> bytes:
    """The picture as a standalone SVG (events and sources linked with `link(source id)`)
    or a PNG, drawn for a desk's width (the page draws a phone's too)."""
    drawing = draw(tl, DESK if fmt == "svg" else DESK * 0.7, link)
    return to_svg(drawing).encode("utf-8") if fmt == "svg" else to_png(drawing)


def _axis_end(last: date | None, year: int) -> date:
    """Where the axis ends: a month past the last dated day (not the end of its year, which
    left the right of the picture empty), and never before the last year's first quarter
    (its label needs the room)."""
    if last is None:
        return date(year + 1, 1, 1)
    return max(_months_on(last, 2), date(year, 4, 1))  # its month's end, and a month more


def _months_on(day: date, n: int) -> date:
    """The first day of the month `n` months after `day`'s."""
    months = day.year * 12 + day.month - 1 + n
    return date(months // 12, months % 12 + 1, 1)


def _x(d: date) -> float:
    """Where a day goes on the axis: days since 1970, as matplotlib counts them."""
    return float((d - date(1970, 1, 1)).days)


def _day(value: object) -> date | None:
    if not value:
        return None
    try:
        return date.fromisoformat(str(value)[:10])
    except ValueError:
        return None


def _short(text: str, most: int) -> str:
    """`text` in at most `most` characters, cut after a word."""
    if len(text) <= most:
        return text
    cut = text[: most - 1].rsplit(" ", 1)[0] if " " in text[: most - 1] else text[: most - 1]
    return cut.rstrip(" ,;:–—-") + "…"


def _ranges(years: list[int]) -> str:
    """[2012, 2013, 2014, 2017] → '2012–2014, 2017'."""
    out: list[str] = []
    start = prev = years[0]
    for y in [*years[1:], None]:
        if y is not None and y == prev + 1:
            prev = y
            continue
        out.append(str(start) if start == prev else f"{start}–{prev}")
        if y is not None:
            start = prev = y
    return ", ".join(out)
