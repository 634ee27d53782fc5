"""The timeline as a picture: one time axis with three layers, the events of bio.md's
Timeline (each linked to its citation), one bar per source for the dates it covers, and
the dated messages per month. Years that no source covers are shaded: those are the gaps
the biographer asks about. Drawn with matplotlib, as SVG for the web view and PNG for the
bots, from the same figure."""

from __future__ import annotations

import io
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date

from core.biographer.citations import in_order
from core.biographer.profile_text import timeline
from core.storage.store import Store

MAX_BARS = 40  # past this many sources, the bars become a count of sources per year
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


def size(tl: Timeline) -> tuple[float, float]:
    """The picture's width and height, in inches."""
    bars = len(tl.spans) if len(tl.spans) <= MAX_BARS else 0
    return 10.0, 3.2 + 0.16 * bars


def render(tl: Timeline, fmt: str = "svg", link: Callable[[int], str] | None = None) -> bytes:
    """The picture, as SVG (events linked with `link(source id)`) or PNG."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    date2num = _x

    years = tl.years or [date.today().year]
    lo, hi = date(years[0], 1, 1), date(years[-1], 12, 31)
    bars = tl.spans if len(tl.spans) <= MAX_BARS else []
    fig = Figure(figsize=size(tl), dpi=100)
    FigureCanvasAgg(fig)
    grid = fig.add_gridspec(3, 1, height_ratios=[1.2, 1 + 0.12 * len(bars), 1], hspace=0.08)
    axes = [fig.add_subplot(grid[i]) for i in range(3)]
    for ax in axes:
        ax.set_xlim(date2num(lo), date2num(hi))
        for y in tl.gaps:
            ax.axvspan(date2num(date(y, 1, 1)), date2num(date(y, 12, 31)), color="#f6d5cf", lw=0)
        ax.tick_params(labelsize=8)
        for side in ("top", "right", "left"):
            ax.spines[side].set_visible(False)
        ax.set_yticks([])
    ticks = [date2num(date(y, 1, 1)) for y in [*years, years[-1] + 1]]
    step = max(1, len(years) // 12)
    for ax in axes:
        ax.set_xticks(ticks[::step], [str(y) for y in [*years, years[-1] + 1]][::step])
        for x in ticks:
            ax.axvline(x, color="#e2e8f0", lw=0.6, zorder=0)
    for ax in axes[:2]:
        ax.tick_params(labelbottom=False)
    events, sources, messages = axes
    events.set_ylim(0, 1)
    events.set_title("Timeline of bio.md, sources, and messages per month", fontsize=9, loc="left")
    for i, e in enumerate(tl.events):
        x = date2num(e.when)
        dot = events.plot([x], [0.25], "o", color="#2b6cb0", ms=6)[0]
        text = events.text(
            x,
            0.38 + 0.18 * (i % 3),
            e.label[:28],
            fontsize=6.5,
            rotation=0,
            ha="center",
            color="#1a365d",
        )
        if link and e.cites:
            dot.set_url(link(e.cites[0]))
            text.set_url(link(e.cites[0]))
    events.set_ylabel("events", fontsize=8)
    if bars:
        for row, s in enumerate(bars):
            x0, x1 = date2num(s.start), date2num(s.end)
            bar = sources.barh(row, max(x1 - x0, 6), left=x0, height=0.7, color="#68a063")[0]
            name = sources.text(
                x1 + 12,
                row,
                f"#{s.document_id} {s.name[:30]}",
                fontsize=6,
                va="center",
                color="#22543d",
                clip_on=True,
            )
            if link:
                bar.set_url(link(s.document_id))
                name.set_url(link(s.document_id))
        sources.set_ylim(len(bars) - 0.4, -0.6)
    else:
        per_year = {y: sum(1 for s in tl.spans if s.start.year <= y <= s.end.year) for y in years}
        sources.bar(
            [date2num(date(y, 7, 1)) for y in years],
            list(per_year.values()),
            width=300,
            color="#68a063",
        )
    sources.set_ylabel("sources", fontsize=8)
    if tl.months:
        xs = [date2num(date(int(m[:4]), int(m[5:7]), 15)) for m in tl.months]
        messages.bar(xs, list(tl.months.values()), width=25, color="#805ad5")
    messages.set_ylabel("messages", fontsize=8)
    for y in tl.gaps:
        messages.text(
            date2num(date(y, 7, 1)),
            0,
            "no sources",
            fontsize=6,
            ha="center",
            va="bottom",
            color="#9b2c2c",
            transform=messages.get_xaxis_transform(),
        )
    out = io.BytesIO()
    fig.savefig(
        out, format=fmt, bbox_inches="tight", metadata={"Date": None} if fmt == "svg" else None
    )
    return out.getvalue()


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
