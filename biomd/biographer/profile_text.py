"""bio.md as text: the skeleton, surgical edits, and reading its sections. Pure functions."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from biomd.fold import fold
from biomd.retrieval.language import STOPWORDS

# Sections are known by these keys; their headings are written in bio.md's language
# (BIOMD_LANGUAGE), and a heading in any of these languages is read as its key, so nothing
# that parses bio.md depends on English words.
KEYS = (
    "summary", "identity", "timeline", "people", "patterns", "hypotheses", "inferences",
    "questions",
)  # fmt: skip
HEADINGS: dict[str, tuple[str, ...]] = {
    "en": ("Summary", "Identity", "Timeline", "People & relationships", "Patterns",
           "Hypotheses", "Inferences", "Open questions"),
    "de": ("Zusammenfassung", "Identität", "Zeitleiste", "Menschen & Beziehungen", "Muster",
           "Hypothesen", "Schlussfolgerungen", "Offene Fragen"),
    "es": ("Resumen", "Identidad", "Cronología", "Personas y relaciones", "Patrones",
           "Hipótesis", "Inferencias", "Preguntas abiertas"),
    "fr": ("Résumé", "Identité", "Chronologie", "Personnes et relations", "Habitudes",
           "Hypothèses", "Déductions", "Questions ouvertes"),
    "pt": ("Resumo", "Identidade", "Cronologia", "Pessoas e relações", "Padrões",
           "Hipóteses", "Inferências", "Perguntas em aberto"),
    "it": ("Sintesi", "Identità", "Cronologia", "Persone e relazioni", "Abitudini",
           "Ipotesi", "Deduzioni", "Domande aperte"),
    "nl": ("Samenvatting", "Identiteit", "Tijdlijn", "Mensen en relaties", "Patronen",
           "Hypothesen", "Gevolgtrekkingen", "Open vragen"),
    "ru": ("Кратко", "Личность", "Хронология", "Люди и отношения", "Привычки", "Гипотезы",
           "Выводы", "Открытые вопросы"),
    "ja": ("概要", "人物像", "年表", "人と関係", "パターン", "仮説", "推論", "未解決の質問"),
}  # fmt: skip
SECTIONS = HEADINGS["en"]  # the English headings, by key order
NOTHING_YET = {
    "en": "Nothing is known yet. This fills in as sources are read.",
    "de": "Noch ist nichts bekannt. Das füllt sich, während die Quellen gelesen werden.",
    "es": "Aún no se sabe nada. Esto se irá llenando a medida que se lean las fuentes.",
    "fr": "Rien n'est encore connu. Cela se remplit à mesure que les sources sont lues.",
    "pt": "Ainda não se sabe nada. Isto preenche-se à medida que as fontes são lidas.",
    "it": "Non si sa ancora nulla. Si riempie man mano che le fonti vengono lette.",
    "nl": "Er is nog niets bekend. Dit vult zich terwijl de bronnen worden gelezen.",
    "ru": "Пока ничего не известно. Это заполнится по мере чтения источников.",
    "ja": "まだ何もわかっていません。資料を読むにつれて埋まっていきます。",
}
_KEY_OF = {
    title.casefold(): KEYS[i] for titles in HEADINGS.values() for i, title in enumerate(titles)
}


def key_of(title: str) -> str | None:
    """The key of a section heading or key, in any language; None if it is none of them."""
    wanted = title.strip().strip("#").strip().casefold()
    return wanted if wanted in KEYS else _KEY_OF.get(wanted)


def skeleton(language: str = "en") -> str:
    """A fresh bio.md with its headings in `language`."""
    titles = HEADINGS.get(language, HEADINGS["en"])
    empty = NOTHING_YET.get(language, NOTHING_YET["en"])
    body = "\n\n".join(f"## {t}" + (f"\n_{empty}_" if i == 0 else "") for i, t in enumerate(titles))
    return f"# bio.md\n\n{body}\n"


SKELETON = skeleton()
MIRROR_MARK = "(the mirror, "
"""How a line of Patterns that the owner confirmed from the mirror ends in bio.md."""

CITES = re.compile(r"\s*\[[^\]\n]*#\d+[^\]\n]*\]")
"""A line's citations as bio.md writes them ("[#3]", "[#3, #8]", "[#3 'journal']"), with the
space before them: what is left when they are taken out is what the line says."""
_CITATION = re.compile(r"#(\d+)")
_CITE_GROUP = re.compile(r"\[(#\d+(?:\s*,\s*#\d+)*)\]")
_QUESTION_ID = re.compile(r"^\s*[-*]\s+\[(Q\d+)\]\s*(.*)$")
_BULLET = re.compile(r"^\s*[-*]\s+(.*)$")
_ITEM = re.compile(r"^(\s*)(?:[-*+]|\d{1,3}[.)])\s+(\S.*)$")  # a bullet or a numbered item
_ASKED = re.compile(r"^[^\s#>_*|`-].*\?\s*$")  # a line of its own that asks, not indented
_HEADING = re.compile(r"^##\s+(.+?)\s*$", re.MULTILINE)


@dataclass(frozen=True, slots=True)
class Question:
    id: str
    text: str


def citations(content: str) -> set[int]:
    """Every source id cited as [#12] or [#12, #14]."""
    return {int(n) for group in _CITE_GROUP.findall(content) for n in _CITATION.findall(group)}


def section(content: str, title: str) -> str:
    """The body of a `## title` section, without its heading: `title` is a key or a heading
    in any language (case-insensitive)."""
    matches = list(_HEADING.finditer(content))
    key = key_of(title)
    for i, m in enumerate(matches):
        found = m.group(1).strip()
        if found.lower() == title.lower() or (key is not None and key_of(found) == key):
            end = matches[i + 1].start() if i + 1 < len(matches) else len(content)
            return content[m.end() : end].strip("\n")
    return ""


def section_titles(content: str) -> list[str]:
    return [m.group(1).strip() for m in _HEADING.finditer(content)]


def bullets(text: str) -> list[str]:
    """List items of a section; continuation lines join their item."""
    items: list[str] = []
    for line in text.splitlines():
        if m := _BULLET.match(line):
            items.append(m.group(1).strip())
        elif items and line.strip() and line.startswith((" ", "\t")):
            items[-1] += " " + line.strip()
    return items


def open_questions(content: str) -> list[Question]:
    out = []
    for line in section(content, "Open questions").splitlines():
        if m := _QUESTION_ID.match(line):
            out.append(Question(m.group(1), m.group(2).strip()))
    return out


def timeline(content: str) -> list[str]:
    return bullets(section(content, "Timeline"))


def number_questions(content: str, next_id: int) -> tuple[str, int]:
    """Give every open question without an id the next `[Qn]`, so answers can find it: a
    bullet ("- ", "* ", "+ ") or a numbered item ("1. ") under Open questions, or a line of
    its own that asks ("Where did I grow up?"), as the owner may type one by hand."""
    matches = list(_HEADING.finditer(content))
    for i, m in enumerate(matches):
        if key_of(m.group(1)) != "questions":
            continue
        end = matches[i + 1].start() if i + 1 < len(matches) else len(content)
        lines = content[m.end() : end].split("\n")
        for j, line in enumerate(lines):
            item = _ITEM.match(line)
            asked = line.strip() if _ASKED.match(line) else None
            text = item.group(2).strip() if item else asked
            if text and not _QUESTION_ID.match(line):
                indent = item.group(1) if item else ""
                lines[j] = f"{indent}- [Q{next_id}] {text}"
                next_id += 1
        return content[: m.end()] + "\n".join(lines) + content[end:], next_id
    return content, next_id


def changed_sections(before: str, after: str) -> list[str]:
    """Titles of the sections whose text differs."""
    titles = list(dict.fromkeys(section_titles(before) + section_titles(after)))
    return [t for t in titles if section(before, t) != section(after, t)]


# The owner's name as bio.md gives it, when BIOMD_OWNER_NAMES doesn't: "Name: Nina Castell"
# in Identity, or the name the Summary opens with.
_NAME_LINE = re.compile(
    r"^(?:full name|name|vollständiger name|nombre(?: completo)?|nom(?: complet)?"
    r"|nome(?: completo)?|naam|имя|名前|氏名)\s*[:：]\s*(.+)$",
    re.I,
)
_MARKUP = re.compile(r"\s*\[[^\]\n]*\]|[*_`]")  # citations, ids and emphasis
_COMMON = frozenset().union(*STOPWORDS.values())


def owner_in(bio: str, speakers: Sequence[str] = ()) -> tuple[str, ...]:
    """The owner's names as bio.md gives them: an Identity line "Name: Nina Castell", else
    the name the Summary opens with ("Nina Castell is …", "Nina, 34, …"), with the speakers
    who bear it ("Nina" in the Summary is the speaker "Nina Castell"); () when bio.md names
    nobody so. A name the Summary opens with is two words or more followed by a common word
    ("is", "war") or a comma, or a speaker's: "Designer who …" and "New York designer …"
    name nobody."""
    name, sure = "", False
    for item in bullets(section(bio, "identity")):
        if m := _NAME_LINE.match(_MARKUP.sub("", item).strip()):
            name, sure = re.split(r"[,;(]| [-–—] ", m.group(1))[0].strip(" ."), True
            break
    if not name:
        words = _MARKUP.sub("", section(bio, "summary")).split()
        run, closed = _name_run(words, 4)
        after = words[len(run)] if len(run) < len(words) else ""
        ends = closed or fold(after) in _COMMON or after.startswith("(")
        name, sure = " ".join(run), len(run) > 1 and ends
    if not name:
        return ()
    first = fold(name).split()[0]
    same = [s.split("<")[0].strip() for s in speakers if fold(s).split()[:1] == [first]]
    if not (sure or same):
        return ()
    return tuple(dict.fromkeys([name, *same]))


def _name_run(words: Sequence[str], most: int) -> tuple[list[str], bool]:
    """The capitalised words, not common ones, that `words` start with ("Nina", "Castell"),
    and whether a comma or a possessive closed them."""
    run: list[str] = []
    for word in words[:most]:
        bare = re.sub(r"(?:'s|’s)?[,;:]?$", "", word)
        if not (bare[:1].isupper() and bare.replace("-", "").replace("'", "").isalpha()):
            break
        if fold(bare) in _COMMON:
            break
        run.append(bare)
        if bare != word:
            return run, True
    return run, False
