"""The timeline as a picture: one time axis with three layers, the events of bio.md's
Timeline (each linked to its citation), one bar per source for the dates it covers, and
the dated messages per month. Years that no source covers are shaded: those are the gaps
the biographer asks about. Drawn with core.app.pictures.drawing, as SVG for the web view (at
a phone's width and a desk's) and PNG for the bots, from the same shapes."""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date

from core.app.pictures.drawing import (
    ALERT,
    DESK,
    LINE,
    MUTED,
    OWNER,
    Dot,
    Drawing,
    Line,
    Rect,
    Text,
    fit,
    text_width,
    to_png,
    to_svg,
)
from core.biographer.citations import in_order
from core.biographer.profile_text import timeline
from core.plural import counted
from core.storage.store import Store

MAX_BARS = 40  # past this many sources, the bars become a count of sources per year
GAP, SOURCE, BAD = "#fbe3dd", "#68a063", "#9b2c2c"
_DATE = re.compile(r"^\s*(\d{4})(?:-(\d{2}))?(?:-(\d{2}))?\b\s*[:–—-]?\s*(.*)$")


@dataclass(frozen=True, slots=True)
class Event:
    when: date
    label: str
    cites: tuple[int, ...]


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
    undated: int = 0  # sources with no date to place them by

    @property
    def years(self) -> list[int]:
        """Every year from the first dated thing to the last."""
        found = [e.when.year for e in self.events] + [int(m[:4]) for m in self.months]
        found += [y for s in self.spans for y in (s.start.year, s.end.year)]
        return list(range(min(found), max(found) + 1)) if found else []

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
        out.append(Event(when, label, tuple(in_order(item))))
    return sorted(out, key=lambda e: e.when)


async def gather(store: Store, bio: str) -> Timeline:
    """Everything the picture shows, from bio.md and the store."""
    sources = await store.documents.all(status="ready")
    sources.sort(key=lambda d: (d.content_start or "9999", d.id))
    tl = Timeline(events=events_of(bio))
    for doc in sources:
        first, last = _day(doc.content_start), _day(doc.content_end or doc.content_start)
        if first is None or last is None:
            tl.undated += 1
            continue
        tl.spans.append(Span(doc.id, doc.name, first, max(first, last)))
    tl.months = await store.activity.months()
    return tl


def caption(tl: Timeline) -> str:
    """The picture in words: under the image on Telegram and Discord, and for screen readers."""
    lines = []
    if tl.years:
        lines.append(f"{tl.years[0]}–{tl.years[-1]}: {len(tl.spans)} dated sources")
    if tl.undated:
        lines.append(f"{tl.undated} source{' has' if tl.undated == 1 else 's have'} no date")
    if tl.gaps:
        lines.append("No sources at all for " + _ranges(tl.gaps))
    for e in tl.events[-12:]:
        cites = ", ".join(f"#{i}" for i in e.cites)
        lines.append(f"{e.when.isoformat()[:10]} {e.label[:80]}" + (f" [{cites}]" if cites else ""))
    return "\n".join(lines) or "Nothing dated yet."


def draw(tl: Timeline, width: float, link: Callable[[int], str] | None = None) -> Drawing:
    """The picture laid out for `width`: numbered event dots (the page lists them, linked),
    a bar per source (or sources per year, past MAX_BARS), messages per month, and the
    years with no source shaded."""
    years = tl.years or [date.today().year]
    lo, hi = date(years[0], 1, 1), date(years[-1] + 1, 1, 1)
    left, right = 8.0, width - 8.0
    span = max(1.0, _x(hi) - _x(lo))

    def at(d: date) -> float:
        return left + (right - left) * (_x(d) - _x(lo)) / span

    d = Drawing(width, 0, caption(tl).split("\n")[0] if tl.years else "Nothing dated yet.")
    narrow = width < 500
    title = (
        "Events, sources and messages"
        if narrow
        else "Events in bio.md, your sources, and your messages"
    )
    d.add(Text(left, 16, fit(title, 13, right - left, bold=True), 13, bold=True))
    top = 28.0
    bars = tl.spans if len(tl.spans) <= MAX_BARS else []
    row_h = 14.0  # a source's bar and its label (10 units: readable on a phone)
    events_h, bar_h, messages_h = 34.0, (row_h * len(bars) if bars else 40.0), 52.0
    bottom = top + events_h + 14 + bar_h + 14 + messages_h
    for gap in tl.gaps:  # the years worth asking about
        x0, x1 = at(date(gap, 1, 1)), at(date(gap + 1, 1, 1))
        d.add(Rect(x0, top, x1 - x0, bottom - top, GAP, f"{gap}: no source at all"))
    for year in range(years[0], years[-1] + 2):
        d.add(Line(at(date(year, 1, 1)), top, at(date(year, 1, 1)), bottom, LINE, 0.6))
    step = max(1, math.ceil(34 / max(1.0, (right - left) / len(years))))
    for i, year in enumerate(years):
        if i % step == 0:
            d.add(Text(at(date(year, 1, 1)) + 2, bottom + 14, str(year), 10, MUTED))
    last = [-1e9, -1e9]  # where each row of numbers last put one
    for i, e in enumerate(tl.events, 1):
        x = at(e.when)
        href = link(e.cites[0]) if link and e.cites else ""
        d.add(Dot(x, top + events_h - 6, 4, OWNER, f"{e.when.isoformat()}: {e.label}", href))
        room = text_width(str(i), 10) + 4
        row = next((r for r in (0, 1) if x - last[r] >= room), None)
        if row is not None:  # crowded: the dot keeps its tooltip, the list below its number
            last[row] = x
            d.add(Text(x, top + 12 + 11 * row, str(i), 10, OWNER, anchor="middle", href=href))
    y = top + events_h + 14
    d.add(Text(left, y - 3, "Sources", 10, MUTED, bold=True))
    if bars:
        for row, sp in enumerate(bars):
            x0 = at(sp.start)
            x1 = max(at(sp.end), x0 + 3)
            href = link(sp.document_id) if link else ""
            tip = f"#{sp.document_id} {sp.name}: {sp.start} to {sp.end}"
            d.add(Rect(x0, y + row_h * row + 1, x1 - x0, 12, SOURCE, tip, href))
            label = f"#{sp.document_id} {sp.name}"
            after, before, inside = right - x1 - 4, x0 - left - 4, x1 - x0 - 8
            base = y + row_h * row + 11
            if after > 60 or (after >= max(before, inside) and after > 24):
                d.add(Text(x1 + 4, base, fit(label, 10, after), 10, MUTED, href=href))
            elif before > 60 or (before >= inside and before > 24):
                d.add(Text(x0 - 4, base, fit(label, 10, before), 10, MUTED, "end", href=href))
            elif inside > 24:  # a source that spans the years: its name on its bar
                d.add(Text(x0 + 4, base - 0.5, fit(label, 10, inside), 10, "#ffffff", href=href))
    else:
        per_year = {yy: sum(s.start.year <= yy <= s.end.year for s in tl.spans) for yy in years}
        most = max(per_year.values()) or 1
        for yy, n in per_year.items():
            h = bar_h * n / most
            x0 = at(date(yy, 1, 1)) + 1
            w = at(date(yy + 1, 1, 1)) - x0 - 1
            d.add(Rect(x0, y + bar_h - h, w, h, SOURCE, f"{yy}: {counted(n, 'source')}"))
    y += bar_h + 14
    d.add(Text(left, y - 3, "Your dated messages a month", 10, MUTED, bold=True))
    peak = float(max(tl.months.values(), default=0) or 1)
    for month, n in tl.months.items():
        first = date(int(month[:4]), int(month[5:7]), 1)
        nxt = date(first.year + first.month // 12, first.month % 12 + 1, 1)
        h = messages_h * n / peak
        d.add(Rect(at(first), y + messages_h - h, max(1.0, at(nxt) - at(first) - 0.5), h, ALERT,
                   f"{month}: {counted(n, 'message')}"))  # fmt: skip
    for yy in tl.gaps:
        d.add(Text(at(date(yy, 7, 1)), y + messages_h - 2, "no sources", 10, BAD, anchor="middle"))
    d.height = bottom + 22
    return d


def render(tl: Timeline, fmt: str = "svg", link: Callable[[int], str] | None = None) -> bytes:
    """The picture as a standalone SVG (events and sources linked with `link(source id)`)
    or a PNG, drawn for a desk's width (the page draws a phone's too)."""
    drawing = draw(tl, DESK if fmt == "svg" else DESK * 0.7, link)
    return to_svg(drawing).encode("utf-8") if fmt == "svg" else to_png(drawing)


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
