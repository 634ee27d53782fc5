"""One drawing, two outputs: a picture is a list of shapes laid out for a given width, then
written as SVG for the web view (text stays text, links stay links) or rasterised as PNG for
the bots with Pillow, from the same shapes. Pages draw a picture for each of a few widths
(SHOWN) and show the one that fits their box, so its text is never a few pixels high."""

from __future__ import annotations

import html
import io
from dataclasses import dataclass, field, replace
from functools import cache
from pathlib import Path

PHONE, DESK = 360, 960  # the widths pictures are laid out for, as PNGs (the bots')
SHOWN: tuple[tuple[str, float, int], ...] = (
    ("w1", 300, 0),
    ("w2", 400, 477),
    ("w3", 530, 636),
    ("w4", 710, 848),
)
"""A page's picture is laid out for each of these widths (units), and the page shows the one
made for its box (from that many pixels wide on; app.css): each is shown 1.2 to 1.6 times
its size, so 10-unit text is never under 12 px on screen, from a phone to a desk."""
FONT = "system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif"
INK, MUTED, FAINT, LINE = "#1f2328", "#59636e", "#eef1f4", "#d0d7de"
OWNER, THEM, ALERT = "#2f6fbf", "#c4622d", "#8250df"


@dataclass(frozen=True, slots=True)
class Rect:
    x: float
    y: float
    w: float
    h: float
    fill: str
    title: str = ""
    href: str = ""


@dataclass(frozen=True, slots=True)
class PlotLine:
    x1: float
    y1: float
    x2: float
    y2: float
    stroke: str = LINE
    width: float = 1.0
    dash: bool = False


@dataclass(frozen=True, slots=True)
class Polyline:
    """A polyline; `None` breaks it (a month with no value)."""

    points: tuple[tuple[float, float] | None, ...]
    stroke: str
    width: float = 2.0


@dataclass(frozen=True, slots=True)
class Dot:
    cx: float
    cy: float
    r: float
    fill: str
    title: str = ""
    href: str = ""


@dataclass(frozen=True, slots=True)
class Text:
    x: float
    y: float
    text: str
    size: float = 12.0
    fill: str = INK
    anchor: str = "start"  # start, middle, end
    bold: bool = False
    href: str = ""
    title: str = ""  # the whole text, where `text` is cut to fit (a tooltip)


Shape = Rect | PlotLine | Polyline | Dot | Text


@dataclass
class Drawing:
    width: float
    height: float
    label: str  # what it shows, for screen readers
    shapes: list[Shape] = field(default_factory=list)

    def add(self, *shapes: Shape) -> None:
        self.shapes.extend(shapes)

    def place(self, other: Drawing, dx: float, dy: float) -> None:
        """Another drawing's shapes, moved by (dx, dy)."""
        self.shapes.extend(moved(s, dx, dy) for s in other.shapes)


def moved(s: Shape, dx: float, dy: float) -> Shape:
    if isinstance(s, Rect | Text):
        return replace(s, x=s.x + dx, y=s.y + dy)
    if isinstance(s, Dot):
        return replace(s, cx=s.cx + dx, cy=s.cy + dy)
    if isinstance(s, PlotLine):
        return replace(s, x1=s.x1 + dx, y1=s.y1 + dy, x2=s.x2 + dx, y2=s.y2 + dy)
    return replace(s, points=tuple(None if p is None else (p[0] + dx, p[1] + dy) for p in s.points))


def _attr(value: object) -> str:
    return html.escape(str(value), quote=True)


def _num(v: float) -> str:
    return f"{v:.1f}".rstrip("0").rstrip(".")


def _svg_shape(s: Shape) -> str:
    if isinstance(s, Rect):
        body = (
            f'<rect x="{_num(s.x)}" y="{_num(s.y)}" width="{_num(max(s.w, 0))}" '
            f'height="{_num(max(s.h, 0))}" fill="{s.fill}">'
            + (f"<title>{_attr(s.title)}</title>" if s.title else "")
            + "</rect>"
        )
    elif isinstance(s, PlotLine):
        dash = ' stroke-dasharray="4 3"' if s.dash else ""
        body = (
            f'<line x1="{_num(s.x1)}" y1="{_num(s.y1)}" x2="{_num(s.x2)}" y2="{_num(s.y2)}" '
            f'stroke="{s.stroke}" stroke-width="{_num(s.width)}"{dash}/>'
        )
    elif isinstance(s, Polyline):
        parts, pen = [], "M"
        for p in s.points:
            if p is None:
                pen = "M"
                continue
            parts.append(f"{pen}{_num(p[0])} {_num(p[1])}")
            pen = "L"
        body = (
            f'<path d="{" ".join(parts)}" fill="none" stroke="{s.stroke}" '
            f'stroke-width="{_num(s.width)}" stroke-linejoin="round" stroke-linecap="round"/>'
        )
    elif isinstance(s, Dot):
        body = (
            f'<circle cx="{_num(s.cx)}" cy="{_num(s.cy)}" r="{_num(s.r)}" fill="{s.fill}">'
            + (f"<title>{_attr(s.title)}</title>" if s.title else "")
            + "</circle>"
        )
    else:
        weight = ' font-weight="600"' if s.bold else ""
        tip = f"<title>{_attr(s.title)}</title>" if s.title else ""
        body = (
            f'<text x="{_num(s.x)}" y="{_num(s.y)}" font-size="{_num(s.size)}" '
            f'fill="{s.fill}" text-anchor="{s.anchor}"{weight}>{tip}{_attr(s.text)}</text>'
        )
    href = getattr(s, "href", "")
    return f'<a href="{_attr(href)}">{body}</a>' if href else body


def to_svg(d: Drawing, css_class: str = "") -> str:
    """The drawing as inline SVG: as wide as its box, its text as crisp as the page's."""
    shapes = "".join(_svg_shape(s) for s in d.shapes)
    klass = f' class="{_attr(css_class)}"' if css_class else ""
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {_num(d.width)} {_num(d.height)}"'
        f'{klass} role="img" aria-label="{_attr(d.label)}" font-family="{_attr(FONT)}" '
        f'width="100%" preserveAspectRatio="xMinYMin meet"><title>{_attr(d.label)}</title>'
        f"{shapes}</svg>"
    )


@cache
def _font_file(bold: bool) -> str:
    import matplotlib

    name = "DejaVuSans-Bold.ttf" if bold else "DejaVuSans.ttf"
    return str(Path(matplotlib.get_data_path()) / "fonts" / "ttf" / name)


@cache
def _font(size: int, bold: bool) -> object:
    from PIL import ImageFont

    return ImageFont.truetype(_font_file(bold), size)


def to_png(d: Drawing, scale: float = 2.0) -> bytes:
    """The same drawing as a PNG, `scale` pixels a unit (sharp on a phone's screen)."""
    from PIL import Image, ImageDraw

    image = Image.new("RGB", (round(d.width * scale), round(d.height * scale)), "white")
    draw = ImageDraw.Draw(image)

    def xy(x: float, y: float) -> tuple[float, float]:
        return x * scale, y * scale

    def px(width: float) -> int:
        return max(1, round(width * scale))

    for s in d.shapes:
        if isinstance(s, Rect):
            if s.w > 0 and s.h > 0:
                draw.rectangle((*xy(s.x, s.y), *xy(s.x + s.w, s.y + s.h)), fill=s.fill)
        elif isinstance(s, PlotLine):
            draw.line(
                (*xy(s.x1, s.y1), *xy(s.x2, s.y2)),
                fill=s.stroke,
                width=px(s.width),
            )
        elif isinstance(s, Polyline):
            run: list[tuple[float, float]] = []
            for p in (*s.points, None):
                if p is None:
                    if len(run) > 1:
                        draw.line(run, fill=s.stroke, width=px(s.width), joint="curve")
                    elif len(run) == 1:
                        x, y = run[0]
                        r = s.width * scale
                        draw.ellipse((x - r, y - r, x + r, y + r), fill=s.stroke)
                    run = []
                else:
                    run.append(xy(*p))
        elif isinstance(s, Dot):
            x, y = xy(s.cx, s.cy)
            r = s.r * scale
            draw.ellipse((x - r, y - r, x + r, y + r), fill=s.fill)
        else:
            font = _font(max(6, round(s.size * scale)), s.bold)
            anchor = {"start": "ls", "middle": "ms", "end": "rs"}[s.anchor]
            draw.text(xy(s.x, s.y), s.text, fill=s.fill, font=font, anchor=anchor)  # type: ignore[arg-type]
    buf = io.BytesIO()
    image.save(buf, "PNG", optimize=True)
    return buf.getvalue()


BROWSER_SLACK = 1.08  # a browser's sans-serif can run this much wider than the PNG's font


def text_width(text: str, size: float, bold: bool = False) -> float:
    """About how wide a text is at `size` (for laying out; the same metrics as the PNG, with
    room for a browser's wider font)."""
    font = _font(100, bold)
    length = float(font.getlength(text))  # type: ignore[attr-defined]
    return length * size / 100 * BROWSER_SLACK


def fit(text: str, size: float, room: float, bold: bool = False) -> str:
    """`text` cut (with an ellipsis) to fit `room` units at `size`: after a whole word where
    one fits, mid-word only when not even the first word does."""
    if text_width(text, size, bold) <= room:
        return text
    words = text.split(" ")
    for n in range(len(words) - 1, 0, -1):
        kept = " ".join(words[:n]).rstrip(" ,;:–—-")
        if kept and text_width(kept + "…", size, bold) <= room:
            return kept + "…"
    while text and text_width(text + "…", size, bold) > room:
        text = text[:-1]
    return text.rstrip() + "…"


def label(
    x: float,
    y: float,
    text: str,
    size: float,
    room: float,
    fill: str = INK,
    anchor: str = "start",
    bold: bool = False,
    href: str = "",
) -> Text:
    """`text` at (x, y), cut at a word to fit `room`, with the whole of it as its tooltip."""
    shown = fit(text, size, room, bold)
    return Text(x, y, shown, size, fill, anchor, bold, href, text if shown != text else "")


def wrap(text: str, size: float, room: float, bold: bool = False) -> list[str]:
    """`text` in lines at word boundaries, each fitting `room` units at `size`."""
    lines: list[str] = []
    for word in text.split():
        if lines and text_width(f"{lines[-1]} {word}", size, bold) <= room:
            lines[-1] += f" {word}"
        else:
            lines.append(fit(word, size, room, bold))
    return lines
