"""A portrait: bio.md's chosen sections as plain items, each resting on the bio.md lines it
came from, with other people shown as chosen and no source text. Made by rules here
(`tidy`); the model's version (writer.py) has the same shape."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from biomd.app.share.audiences import Audience
from biomd.app.share.people import Names, nfc
from biomd.biographer.citations import in_order
from biomd.biographer.profile_text import HEADINGS, KEYS, MIRROR_MARK, key_of

QUOTE_WORDS = 5  # a quoted span longer than this is source text, left out unless picked
LEFT_OUT = "(a quote, left out)"
_HEADING = re.compile(r"^##\s+(.+?)\s*$")
_CITES = re.compile(r"\s*\[(?:[^\[\]\n]*?#\d+[^\[\]\n]*|chat \d{4}-\d{2}-\d{2}\??)\]")
_CONFIDENCE = re.compile(r"\s*\(\s*confidence:\s*(high|medium|low)\s*\)", re.I)
_QUOTED = re.compile(r"[\"“„«»‘‚「『]([^\"“”„«»‘’‚「」『』\n]{2,}?)[\"”“»«’」』]")
_LINK = re.compile(r"!?\[([^\]\n]*)\]\([^)\n]*\)")
_EMPHASIS = re.compile(r"(\*\*|__|\*|`)")
_TAG = re.compile(r"</?[A-Za-z][^>\n]*>")
_BULLET = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+(.*)$")
_QUESTION_ID = re.compile(r"^\[Q\d+\]\s*")
_MIRROR = re.compile(r"\s*" + re.escape(MIRROR_MARK) + r"[^)\n]*\)")
_YEAR = re.compile(r"^(\d{4})")


@dataclass(frozen=True)
class Item:
    text: str
    lines: tuple[int, ...]  # the bio.md lines (1-based) it rests on
    sources: tuple[int, ...] = ()  # the sources those lines cite
    note: str = ""  # "from 3 sources, 2016–2024"


@dataclass(frozen=True)
class PortraitPart:
    key: str
    heading: str
    items: tuple[Item, ...]
    prose: bool = False  # the summary: paragraphs, not a list


@dataclass(frozen=True)
class Portrait:
    audience: Audience
    title: str
    parts: tuple[PortraitPart, ...]
    language: str = "en"
    refused: tuple[str, ...] = field(default=())  # the model's sentences that rested on nothing

    @property
    def items(self) -> list[Item]:
        return [i for p in self.parts for i in p.items]


@dataclass(frozen=True)
class PortraitLine:
    """One entry of bio.md's body as the portrait sees it: a bullet with its continuation
    lines, or a paragraph."""

    numbers: tuple[int, ...]  # its lines in bio.md, 1-based
    key: str  # its section
    text: str  # as written, a bullet's marker off


def lines_of(bio: str) -> list[PortraitLine]:
    """Every bullet and paragraph of bio.md under a known section heading."""
    out: list[PortraitLine] = []
    key: str | None = None
    joinable = False  # the line before continues into this one
    for n, raw in enumerate(bio.splitlines(), start=1):
        if m := _HEADING.match(raw):
            key, joinable = key_of(m.group(1)), False
            continue
        if key is None or not raw.strip() or raw.startswith("# "):
            joinable = False
            continue
        b = _BULLET.match(raw)
        if b is None and joinable and out and out[-1].key == key:
            prev = out[-1]  # a bullet's continuation, or the next line of a paragraph
            out[-1] = PortraitLine((*prev.numbers, n), key, f"{prev.text} {raw.strip()}")
            continue
        out.append(PortraitLine((n,), key, (b.group(1) if b else raw).strip()))
        joinable = True
    return out


def plain(text: str, quotes: Sequence[str] = ()) -> str:
    """A bio.md line as plain words: citations, confidence tags, the mirror's mark, Markdown
    and HTML off, and any quote longer than a short phrase left out unless picked."""
    text = _CITES.sub("", text)
    text = _CONFIDENCE.sub("", text)
    text = _LINK.sub(lambda m: m.group(1), text)
    text = _TAG.sub("", text)
    text = _EMPHASIS.sub("", text)
    text = _QUESTION_ID.sub("", text)
    text = _MIRROR.sub("", text)  # "(the mirror, P1a2b3c4d, confirmed by you)": biomd's own

    def quote(m: re.Match[str]) -> str:
        said = m.group(1).strip()
        if len(said.split()) <= QUOTE_WORDS or any(said in q or q in said for q in quotes):
            return m.group(0)
        return LEFT_OUT

    text = _QUOTED.sub(quote, text)
    return re.sub(r"\s+", " ", text).strip(" \t:;,")


def confidence(text: str) -> str | None:
    m = _CONFIDENCE.search(text)
    return m.group(1).lower() if m else None


def sources_note(ids: Sequence[int], years: Mapping[int, tuple[int, int]]) -> str:
    """ "from 3 sources, 2016–2024": what an item rests on, without raw ids."""
    if not ids:
        return ""
    spans = [years[i] for i in ids if i in years]
    count = f"from {len(ids)} source" + ("s" if len(ids) > 1 else "")
    if not spans:
        return count
    lo, hi = min(s[0] for s in spans), max(s[1] for s in spans)
    return f"{count}, {lo}" + (f"–{hi}" if hi != lo else "")


def tidy(
    bio: str,
    audience: Audience,
    names: Names,
    years: Mapping[int, tuple[int, int]],
    language: str = "en",
    title: str = "",
) -> Portrait:
    """The portrait by rules: the chosen sections, each item plain, people as chosen, the
    sources it rests on said as a count and years."""
    headings = HEADINGS.get(language, HEADINGS["en"])
    by_key: dict[str, list[Item]] = {k: [] for k in audience.sections}
    for line in lines_of(nfc(bio)):
        if line.key not in by_key or (line.text.startswith("_") and line.text.endswith("_")):
            continue  # a section left out, or the skeleton's "nothing yet"
        if MIRROR_MARK in line.text and not audience.mirror:
            continue  # the mirror is private unless the owner picks it
        level = confidence(line.text)
        if level == "low" and not audience.low_confidence:
            continue
        text = names.replace(plain(line.text, audience.quotes))
        if line.key == "people":
            text = _role_first(text)
        if not text:
            continue
        cited = tuple(in_order(line.text))
        note = sources_note(cited, years) if audience.sources_note else ""
        by_key[line.key].append(Item(text, line.numbers, cited, note))
    parts = []
    for key in audience.sections:
        items = by_key[key]
        if audience.depth is not None:
            items = items[-audience.depth :] if key == "timeline" else items[: audience.depth]
        if items:
            parts.append(
                PortraitPart(key, headings[KEYS.index(key)], tuple(items), key == "summary")
            )
    return Portrait(audience, title, tuple(parts), language)


def _role_first(text: str) -> str:
    """ "her partner: her partner since 2021" → "Her partner since 2021": a person shown by
    their role need not be named by it twice."""
    label, sep, about = text.partition(": ")
    if sep and label and about.casefold().startswith(label.casefold()):
        return about[:1].upper() + about[1:]
    return text


def years_of(start: str | None, end: str | None) -> tuple[int, int] | None:
    """The years a source covers, from its first and last dates."""
    a = _YEAR.match(start or "")
    b = _YEAR.match(end or "") or a
    if a is None or b is None:
        return None
    return int(a.group(1)), int(b.group(1))
