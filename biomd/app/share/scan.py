"""The last look before a portrait is saved: hidden people's names, e-mail addresses, links,
phone numbers, street addresses and exact dates of birth. An e-mail address or a link is
found whole (a name inside it is not replaced: people.whole). Each finding must be resolved (hide a
name, leave a section out, remove the words) or accepted before the file is written."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, replace

from biomd.app.share.people import EMAIL, LINK, Names
from biomd.app.share.portrait import Portrait, PortraitPart

_PHONE = re.compile(r"(?<![\w+])\+?\(?\d[\d ().\u00a0/-]{5,}\d(?![\w])")
_DATEISH = re.compile(
    r"\d{4}(?:[-/.]\d{1,2}){0,2}(?:\s*[-/]\s*\d{4}(?:[-/.]\d{1,2}){0,2})?"
    r"|\d{1,2}[./]\d{1,2}[./]\d{2,4}"
)
_STREET_AFTER = (
    r"Street|St\.?|Road|Rd\.?|Avenue|Ave\.?|Lane|Ln\.?|Drive|Dr\.?|Boulevard|Blvd\.?|Way"
    r"|Place|Pl\.?|Square|Court|Ct\.?|Terrace|Close|Crescent|Gardens|Row|Mews"
)
_STREET_BEFORE = (
    r"Rua|Avenida|Av\.|Travessa|Praça|Largo|Calle|C/|Plaza|Paseo|Camino|Rue|Boulevard|Bd"
    r"|Chemin|Allée|Quai|Via|Viale|Piazza|Corso|Vicolo|Ulica|ул\.|улица|проспект"
)
_ADDRESS = (
    # "221b Baker Street": capitalised words before the street's kind, in case.
    re.compile(rf"\b\d{{1,5}}[A-Za-z]?,?\s+(?:[A-Z][\w'’.-]*\s+){{1,4}}(?:{_STREET_AFTER})\b"),
    re.compile(
        rf"(?<!\w)(?:{_STREET_BEFORE})\s+(?:[\w'’.-]+,?\s+){{0,6}}?\d{{1,5}}[A-Za-z]?\b"
        r"|\b[\w-]*(?:straße|strasse|str\.|weg|gasse|platz|allee|straat|laan|gracht|plein)"
        r"\s+\d{1,4}[a-z]?\b"
        r"|\d+丁目(?:\d+番地?)?(?:\d+号?)?",
        re.I,
    ),
)
_MONTHS = (
    r"Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?"
    r"|Sep(?:t(?:ember)?)?|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?"
    r"|janvier|février|mars|avril|mai|juin|juillet|août|septembre|octobre|novembre|décembre"
    r"|Januar|Februar|März|Juni|Juli|Oktober|Dezember"
    r"|enero|febrero|marzo|abril|mayo|junio|julio|agosto|septiembre|octubre|noviembre|diciembre"
    r"|janeiro|fevereiro|março|maio|junho|julho|setembro|outubro|dezembro"
)
_FULL_DATE = (
    rf"\d{{4}}-\d{{2}}-\d{{2}}|\d{{1,2}}[./]\d{{1,2}}[./]\d{{4}}"
    rf"|\d{{1,2}}\.?\s+(?:de\s+)?(?:{_MONTHS})\.?\s+(?:de\s+)?\d{{4}}"
    rf"|(?:{_MONTHS})\.?\s+\d{{1,2}}(?:st|nd|rd|th)?,?\s+\d{{4}}"
    r"|\d{4}年\d{1,2}月\d{1,2}日"
)
_BIRTH = re.compile(
    r"(?:\bborn|\bbirth(?:day|date)?|\bDOB|\bgeboren|\bGeburt\w*|\bnacid[oa]|\bnaci[óo]"
    r"|\bnacimiento|\bnasceu|\bnacque"
    r"|\bnée?|\bnaissance|\bnascid[oa]|\bnascimento|\bnat[oa]|родил\w*|生まれ|誕生)"
    rf"[^.\n]{{0,40}}?({_FULL_DATE})",
    re.I,
)
KINDS = ("name", "e-mail", "link", "phone", "address", "birth date", "source text")


@dataclass(frozen=True)
class PrivacyFlag:
    kind: str  # one of KINDS
    text: str  # what was found
    part: int  # where: the part's index in the portrait, -1 for the title
    item: int  # the item's index in that part
    start: int
    end: int

    @property
    def key(self) -> str:
        """Stable enough to accept one finding by: its kind and text."""
        return f"{self.kind}:{self.text}"


def findings_in(text: str, names: Names) -> Iterator[tuple[str, int, int]]:
    """(kind, start, end) of everything private in one text."""
    for start, end, _ in [*names.found(text), *names.ambiguous(text)]:
        yield "name", start, end
    emails = [m.span() for m in EMAIL.finditer(text)]
    for start, end in emails:
        yield "e-mail", start, end
    links = [m.span() for m in LINK.finditer(text) if not _inside(m.span(), emails)]
    for start, end in links:
        yield "link", start, end
    for m in _PHONE.finditer(text):
        digits = sum(c.isdigit() for c in m.group(0))
        if _inside(m.span(), emails + links):
            continue  # the digits of an address or a link: found with it, whole
        if 7 <= digits <= 15 and not _DATEISH.fullmatch(m.group(0).strip()):
            yield "phone", m.start(), m.end()
    for pattern in _ADDRESS:
        for m in pattern.finditer(text):
            yield "address", m.start(), m.end()
    for m in _BIRTH.finditer(text):
        yield "birth date", m.start(1), m.end(1)


def _inside(span: tuple[int, int], spans: list[tuple[int, int]]) -> bool:
    return any(span[0] < b and a < span[1] for a, b in spans)


def scan(portrait: Portrait, names: Names) -> list[PrivacyFlag]:
    """Every finding in the portrait's title and items."""
    out: list[PrivacyFlag] = []
    for kind, start, end in findings_in(portrait.title, names):
        out.append(PrivacyFlag(kind, portrait.title[start:end], -1, 0, start, end))
    for p, part in enumerate(portrait.parts):
        for i, item in enumerate(part.items):
            for kind, start, end in findings_in(item.text, names):
                out.append(PrivacyFlag(kind, item.text[start:end], p, i, start, end))
    return out


REMOVED = "[removed]"


def redact(portrait: Portrait, findings: list[PrivacyFlag]) -> Portrait:
    """The portrait with these findings' words replaced by REMOVED; an item holding words
    copied from a source is left out whole (its words can't be told apart from the rest)."""
    title = _cut(portrait.title, [f for f in findings if f.part == -1])
    copied = {(f.part, f.item) for f in findings if f.kind == "source text"}
    parts: list[PortraitPart] = []
    for p, part in enumerate(portrait.parts):
        items = tuple(
            replace(item, text=_cut(item.text, [f for f in findings if (f.part, f.item) == (p, i)]))
            for i, item in enumerate(part.items)
            if (p, i) not in copied
        )
        if items:
            parts.append(replace(part, items=items))
    return replace(portrait, title=title, parts=tuple(parts))


def _cut(text: str, found: list[PrivacyFlag]) -> str:
    """`text` with each found span (overlapping ones merged) as REMOVED."""
    merged: list[list[int]] = []
    for start, end in sorted((f.start, f.end) for f in found if f.end > f.start):
        if merged and start <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    for start, end in reversed(merged):
        text = text[:start] + REMOVED + text[end:]
    return text


def windows(text: str, size: int = 8, step: int = 4) -> list[str]:
    """Runs of `size` words, every `step` words: any longer run copied from a source
    contains one whole."""
    words = re.findall(r"\w+", text)
    if len(words) < size:
        return []
    return [" ".join(words[i : i + size]) for i in range(0, len(words) - size + 1, step)]
