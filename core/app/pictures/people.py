"""The people in a life: everyone in bio.md's People section, and everyone who speaks in the
corpus, each with how often they appear per year (the messages they wrote, plus the
passages that name them). Drawn as one picture of sparklines, SVG for the web view and PNG
for the bots."""

from __future__ import annotations

import io
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from core.biographer.citations import in_order
from core.biographer.profile_text import bullets, section
from core.retrieval.fts_query import tokens
from core.storage.store import Store

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
    ta, tb = [_fold(w) for w in tokens(a)], [_fold(w) for w in tokens(b)]
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
    folded = _fold(name.strip()).casefold()
    if not folded:
        return {}
    needle = re.compile(rf"(?<!\w){re.escape(folded)}(?!\w)")
    likes = {folded, name.strip().casefold()}
    out: dict[int, int] = {}
    for found in await store.chunks.dated_containing(sorted(likes)):
        if needle.search(_fold(found.text).casefold()):
            out[found.year] = out.get(found.year, 0) + 1
    return out


def caption(people: Sequence[Person]) -> str:
    """The picture in words, for the bots and screen readers."""
    lines = []
    for p in people[:MAX_ROWS]:
        years = sorted(p.by_year)
        when = f"{years[0]}–{years[-1]}" if len(years) > 1 else (str(years[0]) if years else "")
        about = p.about[:70] if p.about else "speaks in the corpus"
        lines.append(f"{p.name}: {p.total} appearances {when}; {about}".rstrip("; "))
    return "\n".join(lines) or "Nobody yet: bio.md has no People section and no one speaks."


def size(people: Sequence[Person]) -> tuple[float, float]:
    """The picture's width and height, in inches."""
    return 7.0, 0.5 + 0.32 * max(1, min(len(people), MAX_ROWS))


def render(
    people: Sequence[Person], fmt: str = "svg", link: Callable[[str], str] | None = None
) -> bytes:
    """One row per person: their name and a bar per year of their appearances."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    shown = list(people[:MAX_ROWS])
    years = sorted({y for p in shown for y in p.by_year}) or [0]
    span = list(range(years[0], years[-1] + 1))
    fig = Figure(figsize=size(people), dpi=100)
    FigureCanvasAgg(fig)
    ax = fig.add_subplot(1, 1, 1)
    ax.set_xlim(-0.5, len(span) - 0.5)
    ax.set_ylim(len(shown) - 0.3, -0.8)
    peak = max((max(p.by_year.values(), default=0) for p in shown), default=0) or 1
    for row, person in enumerate(shown):
        heights = [0.75 * person.by_year.get(y, 0) / peak for y in span]
        ax.bar(
            range(len(span)),
            heights,
            bottom=[row + 0.35 - h for h in heights],
            width=0.8,
            color="#2b6cb0" if person.speaks else "#805ad5",
        )
        label = ax.text(
            -0.7,
            row,
            f"{person.name[:24]}  ({person.total})",
            ha="right",
            va="center",
            fontsize=7.5,
        )
        if link:
            label.set_url(link(person.name))
    step = max(1, len(span) // 10)
    ax.set_xticks(range(0, len(span), step), [str(y) for y in span[::step]], fontsize=7)
    ax.set_yticks([])
    for side in ("top", "right", "left"):
        ax.spines[side].set_visible(False)
    ax.set_title("People: appearances per year (blue: writes messages)", fontsize=9, loc="left")
    out = io.BytesIO()
    fig.savefig(
        out, format=fmt, bbox_inches="tight", metadata={"Date": None} if fmt == "svg" else None
    )
    return out.getvalue()


def _fold(word: str) -> str:
    import unicodedata

    return "".join(c for c in unicodedata.normalize("NFKD", word) if not unicodedata.combining(c))
