"""The mirror's picture of one person: messages each way per month (yours above the line,
theirs below), the median reply time each way (a log scale, a minute to a day), and the
share of conversations you start; a dashed line where a finding says something changed.
Laid out for the width it is drawn at (biomd.app.pictures.drawing), so it reads on a phone."""

from __future__ import annotations

import math
from collections.abc import Sequence

from biomd.app.mirror.dynamics import MonthFigures, Rhythm
from biomd.app.mirror.findings import Finding, duration
from biomd.app.mirror.service import MirrorView, PersonView
from biomd.app.pictures.drawing import (
    ALERT,
    DESK,
    FAINT,
    LINE,
    MUTED,
    OWNER,
    THEM,
    Drawing,
    PlotLine,
    Polyline,
    Rect,
    Text,
    fit,
    text_width,
    to_png,
)
from biomd.plural import counted

MINUTE, DAY = 60.0, 86400.0
Months = Sequence[MonthFigures]
PNG_PEOPLE = 6  # the bots' picture shows the people with the most messages
SHORT = {  # a finding on the picture: (when it went down, when it went up)
    "reply_delay_owner": ("you answer faster", "you answer slower"),
    "reply_delay_them": ("they answer faster", "they answer slower"),
    "length_owner": ("yours shorter", "yours longer"),
    "length_them": ("theirs shorter", "theirs longer"),
    "starts": ("you start less", "you start more"),
    "late_night": ("fewer late nights", "late nights"),
}


def _x(i: int, n: int, left: float, right: float) -> float:
    return left + (right - left) * (i + 0.5) / max(n, 1)


PAD = 5.0  # a panel's values stay this far inside its band, so a line at 0 or 100% shows


def _y(share: float, top: float, height: float) -> float:
    """Where a value at `share` (0 the bottom of the scale, 1 its top) lies in a panel."""
    share = min(max(share, 0.0), 1.0)
    return top + PAD + (height - 2 * PAD) * (1 - share)


def _label(d: Drawing, left: float, y: float, text: str) -> None:
    """A scale's label, level with the value it names."""
    d.add(Text(left - 4, y + 3.5, text, 10, MUTED, anchor="end"))


def _delay_y(seconds: float, top: float, height: float) -> float:
    s = min(max(seconds, MINUTE), DAY)
    return _y(math.log(s / MINUTE) / math.log(DAY / MINUTE), top, height)


def draw(person: PersonView, findings: Sequence[Finding], width: float) -> Drawing:
    """One person's panels, `width` wide."""
    months = person.months
    narrow = width < 500
    left, right = (40.0 if narrow else 56.0), width - 8.0
    first, last = (months[0].month, months[-1].month) if months else ("", "")
    mine = sum(m.messages_owner for m in months)
    theirs = sum(m.messages_them for m in months)
    label = (
        f"{person.name}, {first} to {last}: your {counted(mine, 'message')} and their "
        f"{theirs}, reply times and who starts, by month"
    )
    d = Drawing(width, 0, label)
    d.add(Text(0, 18, fit(person.name, 16, width * 0.45), 16, bold=True))
    sub = f"{first} – {last} · you {mine:,} · {person.name.split()[0]} {theirs:,}"
    d.add(Text(0, 36, fit(sub, 12, width - 4), 12, MUTED))
    _legend(d, person.name.split()[0], width - 8, 18)
    y = 72.0
    y = _messages(d, months, y, left, right)
    y = _delays(d, months, y + 8, left, right)
    y = _lengths(d, months, y + 8, left, right)
    y = _starts(d, months, y + 8, left, right)
    _years(d, months, y + 2, left, right)
    _marks(d, months, findings, 72.0, y, left, right)
    d.height = y + 22
    return d


def _legend(d: Drawing, them: str, right: float, y: float) -> None:
    """ "■ you ■ Maya", right-aligned."""
    them = fit(them, 12, 90)
    x = right - text_width(them, 12)
    d.add(Text(x, y, them, 12, THEM), Rect(x - 13, y - 9, 9, 9, THEM))
    x -= 22 + text_width("you", 12)
    d.add(Text(x, y, "you", 12, OWNER), Rect(x - 13, y - 9, 9, 9, OWNER))


def _panel_title(d: Drawing, text: str, y: float) -> float:
    d.add(Text(0, y + 11, text, 11, MUTED, bold=True))
    return y + 16


def _messages(d: Drawing, months: Months, y: float, left: float, right: float) -> float:
    y = _panel_title(d, "Messages a month", y)
    half = 30.0
    axis = y + half
    top = max([max(m.messages_owner, m.messages_them) for m in months] or [1]) or 1
    n = len(months)
    w = max(1.0, (right - left) / max(n, 1) - 1)
    d.add(Rect(left, y, right - left, 2 * half, FAINT))
    for i, m in enumerate(months):
        x = left + (right - left) * i / max(n, 1)
        up = half * m.messages_owner / top
        down = half * m.messages_them / top
        tip = f"{m.month}: you {m.messages_owner}, them {m.messages_them}"
        d.add(Rect(x, axis - up, w, up, OWNER, tip), Rect(x, axis, w, down, THEM, tip))
    d.add(PlotLine(left, axis, right, axis, LINE))
    d.add(Text(left - 4, y + 10, str(top), 10, MUTED, anchor="end"))
    d.add(Text(left - 4, y + 2 * half, str(top), 10, MUTED, anchor="end"))
    return y + 2 * half


def _delays(d: Drawing, months: Months, y: float, left: float, right: float) -> float:
    y = _panel_title(d, "Reply time (median)", y)
    height = 64.0
    d.add(Rect(left, y, right - left, height, FAINT))
    for seconds, name in ((MINUTE, "1 min"), (3600.0, "1 h"), (DAY, "1 day")):
        gy = _delay_y(seconds, y, height)
        d.add(PlotLine(left, gy, right, gy, LINE))
        _label(d, left, gy, name)
    n = len(months)
    for attr, color in (("reply_median_owner_s", OWNER), ("reply_median_them_s", THEM)):
        points = tuple(
            None
            if getattr(m, attr) is None
            else (_x(i, n, left, right), _delay_y(float(getattr(m, attr)), y, height))
            for i, m in enumerate(months)
        )
        d.add(Polyline(points, color, 2.0))
    return y + height


def _lengths(d: Drawing, months: Months, y: float, left: float, right: float) -> float:
    y = _panel_title(d, "Message length (median characters)", y)
    height = 44.0
    d.add(Rect(left, y, right - left, height, FAINT))
    values = [
        v for m in months for v in (m.chars_median_owner, m.chars_median_them) if v is not None
    ]
    top = max(values or [1.0])
    top = max(10.0, math.ceil(top / 10) * 10)
    _label(d, left, _y(1, y, height), f"{top:.0f}")
    _label(d, left, _y(0, y, height), "0")
    n = len(months)
    for attr, color in (("chars_median_owner", OWNER), ("chars_median_them", THEM)):
        points = tuple(
            None
            if getattr(m, attr) is None
            else (_x(i, n, left, right), _y(float(getattr(m, attr)) / top, y, height))
            for i, m in enumerate(months)
        )
        d.add(Polyline(points, color, 2.0))
    return y + height


def _starts(d: Drawing, months: Months, y: float, left: float, right: float) -> float:
    y = _panel_title(d, "Conversations you start", y)
    height = 44.0
    d.add(Rect(left, y, right - left, height, FAINT))
    mid = _y(0.5, y, height)
    d.add(PlotLine(left, mid, right, mid, LINE, dash=True))
    for level, name in ((1.0, "100%"), (0.5, "50%"), (0.0, "0%")):
        _label(d, left, _y(level, y, height), name)
    n = len(months)
    points = []
    for i, m in enumerate(months):
        total = m.started_owner + m.started_them
        share = m.started_owner / total if total else None
        points.append(None if share is None else (_x(i, n, left, right), _y(share, y, height)))
    d.add(Polyline(tuple(points), OWNER, 2.0))
    return y + height


def _years(d: Drawing, months: Sequence[MonthFigures], y: float, left: float, right: float) -> None:
    n = len(months)
    years = [(i, m.month[:4]) for i, m in enumerate(months) if m.month.endswith("-01") or i == 0]
    room = (right - left) / max(len(years), 1)
    every = 1 if room >= 34 else math.ceil(34 / max(room, 1))
    wide = text_width("2024", 10)
    for k, (i, year) in enumerate(years):
        x = left + (right - left) * i / max(n, 1)
        if k % every == 0 and x + wide <= right:  # a year too near the edge is left out
            d.add(Text(x, y + 14, year, 10, MUTED))


def _marks(
    d: Drawing,
    months: Sequence[MonthFigures],
    findings: Sequence[Finding],
    top: float,
    bottom: float,
    left: float,
    right: float,
) -> None:
    index = {m.month: i for i, m in enumerate(months)}
    n = len(months)
    at: dict[str, list[Finding]] = {}
    for f in findings:
        if f.month in index:
            at.setdefault(f.month, []).append(f)
    for month, here in at.items():
        x = left + (right - left) * index[month] / max(n, 1)
        d.add(PlotLine(x, top, x, bottom, ALERT, 1.5, dash=True))
        labels = list(dict.fromkeys(SHORT.get(f.kind, ("", ""))[f.up] for f in here))
        for j, label in enumerate(labels[:2]):
            room = right - x - 4
            start = room >= text_width(label, 10) or room >= x - left
            y = top - 4 - 12 * (min(len(labels), 2) - 1 - j)
            text = fit(label, 10, max(room, x - left))
            tx, anchor = (x + 3, "start") if start else (x - 3, "end")
            d.add(Text(tx, y, text, 10, ALERT, anchor=anchor, href=f"#{here[0].id}"))


def caption(view: MirrorView) -> str:
    """The picture in words, for a screen reader and under the bots' image."""
    lines = []
    for p in view.people:
        delays = [m.reply_median_owner_s for m in p.months if m.reply_median_owner_s is not None]
        typical = duration(sorted(delays)[len(delays) // 2]) if delays else "no replies"
        lines.append(f"{p.name}: {counted(len(p.months), 'month')}, your typical reply {typical}")
    return "\n".join(lines) or "No 1:1 chats yet."


def render_png(view: MirrorView, width: float = DESK * 0.6) -> bytes:
    """The bots' picture: the people with the most messages, one under the other."""
    people = sorted(
        view.people, key=lambda p: -sum(m.messages_owner + m.messages_them for m in p.months)
    )[:PNG_PEOPLE]
    parts = [draw(p, [f for f in view.findings if f.person == p.name], width) for p in people]
    whole = Drawing(width + 24, sum(p.height + 16 for p in parts) + 8, "The mirror")
    y = 12.0
    for part in parts:
        whole.place(part, 12.0, y)
        y += part.height + 16
    return to_png(whole)


def draw_rhythm(rhythm: Sequence[Rhythm], findings: Sequence[Finding], width: float) -> Drawing:
    """The owner's late nights: the share of their messages written between midnight and
    4 am, month by month, over every chat."""
    narrow = width < 500
    left, right = (40.0 if narrow else 56.0), width - 8.0
    total = sum(r.messages_owner for r in rhythm)
    late = sum(r.late_night_owner for r in rhythm)
    d = Drawing(
        width, 0, f"Your late nights: {late} of your {counted(total, 'message')}, month by month"
    )
    d.add(Text(0, 16, "Late nights (midnight to 4 am)", 14, bold=True))
    d.add(
        Text(
            0,
            34,
            fit(f"{late:,} of your {counted(total, 'message')}, in every chat", 12, width),
            12,
            MUTED,
        )
    )
    top, height = 56.0, 70.0
    d.add(Rect(left, top, right - left, height, FAINT))
    shares = [r.late_night_owner / r.messages_owner if r.messages_owner else 0.0 for r in rhythm]
    peak = max(0.1, math.ceil(max(shares or [0.1]) * 10) / 10)
    n = len(rhythm)
    w = max(1.0, (right - left) / max(n, 1) - 1)
    for i, (r, share) in enumerate(zip(rhythm, shares, strict=True)):
        h = height * share / peak
        tip = f"{r.month}: {r.late_night_owner} of {r.messages_owner} late at night"
        d.add(Rect(left + (right - left) * i / max(n, 1), top + height - h, w, h, ALERT, tip))
    d.add(Text(left - 4, top + 9, f"{round(peak * 100)}%", 10, MUTED, anchor="end"))
    d.add(Text(left - 4, top + height, "0%", 10, MUTED, anchor="end"))
    as_months = [MonthFigures(r.month, 0, 0, 0, 0, None, None, None, None, 0, 0) for r in rhythm]
    _years(d, as_months, top + height + 2, left, right)
    _marks(
        d,
        as_months,
        [f for f in findings if f.kind == "late_night"],
        top,
        top + height,
        left,
        right,
    )
    d.height = top + height + 22
    return d
