"""The people in a life: everyone in bio.md's People section, and everyone who speaks in the
corpus, each with how often they appear per year (the messages they wrote, plus the
passages that name them). Drawn as rows of bars with biomd.app.pictures.drawing: SVG for the
web view (at a phone's width and a desk's) and PNG for the bots."""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from biomd.app.pictures.drawing import (
    ALERT,
    DESK,
    FAINT,
    MUTED,
    OWNER,
    Drawing,
    Rect,
    Text,
    fit,
    text_width,
    to_png,
    to_svg,
)
from biomd.biographer.citations import in_order
from biomd.biographer.profile_text import bullets, section
from biomd.fold import fold
from biomd.plural import counted
from biomd.retrieval.fts_query import tokens
from biomd.storage.store import Store

MAX_ROWS = 30  # people in the picture, most present first
_NAME = re.compile(r"^\**([^:—–(\[*]{1,60}?)\**\s*(?::|—|–| - |\(|\[|$)")


@dataclass
class Person:
    name: str
    about: str = ""  # their bullet in bio.md
    cites: tuple[int, ...] = ()
    by_year: dict[int, int] = field(default_factory=dict)  # appearances per year
    speaks: bool = False  # writes messages in the corpus

    @property
    def total(self) -> int:
        return sum(self.by_year.values())


def people_of(bio: str) -> list[Person]:
    """One person per bullet of the People & relationships section."""
    out = []
    for item in bullets(section(bio, "People & relationships")):
        m = _NAME.match(item)
        name = (m.group(1) if m else item[:40]).strip(" *")
        about = item[m.end(1) :].lstrip(" *:—–-") if m else item
        if name:
            out.append(Person(name, about, tuple(in_order(item))))
    return out


def same_person(a: str, b: str) -> bool:
    """'Inês' and 'ines', 'Tom' and 'Tom Castell': the same name, or the same first name."""
    ta, tb = [fold(w) for w in tokens(a)], [fold(w) for w in tokens(b)]
    if not ta or not tb:
        return False
    return ta == tb or ((len(ta) == 1 or len(tb) == 1) and ta[0] == tb[0])


async def gather(store: Store, bio: str, owner_names: Sequence[str]) -> list[Person]:
    """bio.md's people and the corpus's speakers (not the owner), with appearances by year,
    most present first."""
    people = people_of(bio)
    for row in await store.activity.speakers_by_year():
        speaker, year, n = row.speaker, row.year, row.messages
        name = re.sub(r"\s*<[^>]*>", "", speaker).strip() or speaker
        if any(same_person(name, o) for o in owner_names):
            continue
        person = next((p for p in people if same_person(p.name, name)), None)
        if person is None:
            person = Person(name)
            people.append(person)
        person.speaks = True
        person.by_year[int(year)] = person.by_year.get(int(year), 0) + int(n)
    for person in people:
        if person.speaks:  # their own messages say it; mentions would count them twice
            continue
        for year, n in (await mentions_by_year(store, person.name)).items():
            person.by_year[year] = person.by_year.get(year, 0) + n
    return sorted(people, key=lambda p: (-p.total, p.name.casefold()))


async def mentions_by_year(store: Store, name: str) -> dict[int, int]:
    """Passages that name someone (as a whole word, case and accents ignored), per year of
    the passage's first dated line, else of its source. A LIKE scan, not the keyword index:
    its stemmer makes "Inês" into "in", which every passage holds."""
    folded = fold(name.strip())
    if not folded:
        return {}
    needle = re.compile(rf"(?<!\w){re.escape(folded)}(?!\w)")
    likes = {folded, name.strip().casefold()}
    out: dict[int, int] = {}
    for found in await store.chunks.dated_containing(sorted(likes)):
        if needle.search(fold(found.text)):
            out[found.year] = out.get(found.year, 0) + 1
    return out


def caption(people: Sequence[Person]) -> str:
    """The picture in words, for the bots and screen readers."""
    lines = []
    for p in people[:MAX_ROWS]:
        years = sorted(p.by_year)
        when = f"{years[0]}–{years[-1]}" if len(years) > 1 else (str(years[0]) if years else "")
        about = p.about[:70] if p.about else "speaks in the corpus"
        lines.append(f"{p.name}: {counted(p.total, 'appearance')} {when}; {about}".rstrip("; "))
    return "\n".join(lines) or "Nobody yet: bio.md has no People section and no one speaks."


def draw(
    people: Sequence[Person], width: float, link: Callable[[str], str] | None = None
) -> Drawing:
    """One row per person, laid out for `width`: their name (linked to every mention), a
    bar per year of their appearances, and the total."""
    shown = list(people[:MAX_ROWS])
    years = sorted({y for p in shown for y in p.by_year}) or [0]
    span = list(range(years[0], years[-1] + 1))
    name_w = min(150.0, width * 0.34)
    left, right = name_w + 8, width - 40
    row_h = 24.0
    d = Drawing(width, 0, caption(people).split("\n")[0] if shown else "Nobody yet.")
    d.add(Text(0, 16, "Appearances per year", 13, bold=True))
    d.add(Text(width, 16, "writes messages", 11, OWNER, anchor="end"))
    d.add(Rect(width - text_width("writes messages", 11) - 14, 7, 9, 9, OWNER))
    top = 30.0
    peak = max((max(p.by_year.values(), default=0) for p in shown), default=0) or 1
    slot = (right - left) / max(len(span), 1)
    for row, person in enumerate(shown):
        y = top + row * row_h
        if row % 2:
            d.add(Rect(0, y, width, row_h, FAINT))
        href = link(person.name) if link else ""
        d.add(Text(0, y + 16, fit(person.name, 12, name_w - 4), 12, href=href))
        color = OWNER if person.speaks else ALERT
        for i, year in enumerate(span):
            n = person.by_year.get(year, 0)
            if n:
                h = (row_h - 6) * n / peak
                d.add(Rect(left + i * slot + 0.5, y + row_h - 3 - h, max(1.0, slot - 1.5), h,
                           color, f"{person.name}, {year}: {n}"))  # fmt: skip
        d.add(Text(width, y + 16, f"{person.total:,}", 11, MUTED, anchor="end"))
    bottom = top + len(shown) * row_h
    step = max(1, math.ceil(34 / max(slot, 1)))
    wide = text_width("2024", 10)
    for i, year in enumerate(span):
        if i % step == 0 and year and left + i * slot + wide <= width:  # not past the edge
            d.add(Text(left + i * slot, bottom + 14, str(year), 10, MUTED))
    d.height = bottom + 22
    return d


def render(
    people: Sequence[Person], fmt: str = "svg", link: Callable[[str], str] | None = None
) -> bytes:
    """The picture as a standalone SVG (names linked with `link(name)`) or a PNG."""
    drawing = draw(people, DESK * 0.7, link)
    return to_svg(drawing).encode("utf-8") if fmt == "svg" else to_png(drawing)
