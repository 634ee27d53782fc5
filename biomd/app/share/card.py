"""A one-page card of a portrait, for sending from a phone: the name, who it is for, the
summary, and the portrait's own timeline (its years and events, with people as the portrait
shows them; never the source bars of the timeline picture, which name sources). PNG, drawn
with matplotlib."""

from __future__ import annotations

import io
import re
import textwrap

from biomd.app.share.portrait import Portrait
from biomd.app.share.render import sentence

WIDTH, HEIGHT, DPI = 6.0, 7.5, 180  # inches: 1080 x 1350 pixels, a phone's portrait
_YEAR = re.compile(r"^\s*(\d{4})(?:-(\d{2}))?")
EVENTS = 8  # the most recent events on the card


def events(portrait: Portrait) -> list[tuple[float, str]]:
    """(year, with the month as a fraction; the event's words) of the portrait's timeline."""
    out = []
    for part in portrait.parts:
        if part.key != "timeline":
            continue
        for item in part.items:
            m = _YEAR.match(item.text)
            if m:
                when = int(m.group(1)) + (int(m.group(2)) - 1) / 12 if m.group(2) else 0
                label = item.text[m.end() :].lstrip("-0123456789: –—").strip()
                out.append((float(when or int(m.group(1))), label))
    return sorted(out)[-EVENTS:]


def render(portrait: Portrait) -> bytes:
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(WIDTH, HEIGHT), dpi=DPI, facecolor="#fbf8f3")
    FigureCanvasAgg(fig)
    ink, soft, accent = "#1f2328", "#59636e", "#7a4e2d"
    fig.text(
        0.07,
        0.94,
        portrait.title or "A portrait",
        fontsize=20,
        color=ink,
        weight="bold",
        parse_math=False,
    )
    fig.text(
        0.07, 0.905, f"For {portrait.audience.title}", fontsize=9, color=soft, parse_math=False
    )
    summary = " ".join(
        sentence(i.text)
        for p in portrait.parts
        if p.key in ("summary", "identity")
        for i in p.items
    )
    dated = events(portrait)
    wrapped = textwrap.wrap(summary, 58)
    lines = wrapped[: 14 if dated else 26]
    if len(wrapped) > len(lines):
        lines[-1] = lines[-1].rstrip(" .,;") + " …"
    fig.text(
        0.07,
        0.87,
        "\n".join(lines),
        fontsize=10,
        color=ink,
        va="top",
        linespacing=1.5,
        parse_math=False,
    )
    if dated:
        top = 0.87 - 0.034 * len(lines) - 0.05
        ax = fig.add_axes((0.07, 0.06, 0.86, max(0.3, top - 0.06)))
        ax.set_facecolor("#fbf8f3")
        for side in ("left", "right", "top"):
            ax.spines[side].set_visible(False)
        ax.set_yticks([])
        years = [w for w, _ in dated]
        lo, hi = min(years) - 0.5, max(years) + 0.5
        ax.set_xlim(lo, hi)
        ax.set_ylim(0, len(dated) + 0.5)
        for row, (when, label) in enumerate(dated, start=1):
            ax.plot([when, when], [0, row], color="#d8c9b8", lw=0.8)
            ax.plot([when], [row], "o", color=accent, ms=4)
            right = when > (lo + hi) / 2
            text = textwrap.shorten(label, 42, placeholder="…")
            ax.text(when + (-0.08 if right else 0.08), row, text, fontsize=7.5, color=ink,
                    va="center", ha="right" if right else "left", parse_math=False)  # fmt: skip
        ax.tick_params(axis="x", labelsize=8, colors=soft)
        ax.xaxis.set_major_locator(_year_locator(lo, hi))
    buf = io.BytesIO()
    fig.savefig(buf, format="png", facecolor=fig.get_facecolor())
    return buf.getvalue()


def _year_locator(lo: float, hi: float):  # type: ignore[no-untyped-def]
    from matplotlib.ticker import MaxNLocator

    return MaxNLocator(nbins=min(8, max(2, int(hi - lo))), integer=True)
