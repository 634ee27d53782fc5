"""Whether bio.md reads as a portrait, by rules a pasted source can't pass (issue 51), for
bench/biographer_eval.py: each line understandable on its own (no first person from a
source, no e-mail header or greeting, a subject), the People section with the planted
people and their relations, a Summary whose every sentence is supported by the lines that
cite its sources, and lines that make the owner a party to what a source says of someone
else (who-did-what errors). The rules are the bench's own, not biomd's."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

_HEADING = re.compile(r"^#{1,6}\s")
_CITES = re.compile(r"\s*\[[^\]\n]*#\d+[^\]\n]*\]|\s*\(confidence: \w+\)")
_DATE = re.compile(r"^\s*-?\s*\d{4}(?:-\d{2}){0,2}:\s*")
_QUOTED = re.compile(r'“[^”\n]*”|"[^"\n]*"|„[^“”\n]*[“”]|«[^»\n]*»')
_FIRST = re.compile(
    r"\b(?:I|my|me|myself|ich|mich|mir|mein|meine|meinen|meinem|meiner|yo|mí|je|moi|mon|eu"
    r"|meu|minha)\b"
)
_HEADER = re.compile(
    r"\b(?:from|to|subject|date|betreff|von|an|asunto|objet|assunto)\s*:|@|\bmessage-id\b",
    re.I,
)
_GREETING = re.compile(
    r"^(?:dear|hi|hello|hey|liebe|lieber|hallo|querid[oa]|hola|cher|chère|bonjour|olá|oi)\b"
    r"|^(?:best|cheers|love|regards|thanks|mit \w+ grüßen|viele grüße|liebe grüße|lg"
    r"|saludos|un abrazo|cordialement|bises|abraços|beijos)\b",
    re.I,
)
_SUBJECT = re.compile(
    r"\b(?:she|he|they|her|his|their|sie|er|ihr|sein|seine|ella|él|su|elle|il|son|sa|ela"
    r"|ele|seu|sua)\b",
    re.I,
)
_CAPITAL = re.compile(r"\b[A-ZÀ-ÖØ-Þ][\w'’-]+")
_NUMBER = re.compile(r"\d+")
_SENTENCE = re.compile(r"(?<=[.!?\]])\s+(?=[A-ZÀ-ÖØ-Þ])")
_ID = re.compile(r"#(\d+)")


def fold(text: str) -> str:
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def section(bio: str, key: str) -> str:
    """A section's body by its English or German heading."""
    names = {
        "summary": ("summary", "zusammenfassung"),
        "people": ("people & relationships", "menschen & beziehungen"),
        "questions": ("open questions", "offene fragen"),
    }[key]
    out, inside = [], False
    for line in bio.splitlines():
        if line.startswith("## "):
            inside = fold(line[3:].strip()) in names
        elif inside:
            out.append(line)
    return "\n".join(out)


def statements(bio: str) -> list[str]:
    """bio.md's bullet lines outside Summary and Open questions, as statements."""
    skip = set(section(bio, "questions").splitlines())
    return [
        line
        for line in bio.splitlines()
        if line.startswith(("- ", "* ")) and line not in skip and not _HEADING.match(line)
    ]


def bare(line: str) -> str:
    return _DATE.sub("", _CITES.sub("", line.strip().lstrip("-* "))).strip()


@dataclass
class Portrait:
    lines: int = 0
    first_person: list[str] = field(default_factory=list)
    headers: list[str] = field(default_factory=list)
    no_subject: list[str] = field(default_factory=list)
    people: int = 0
    people_total: int = 0
    people_missing: list[str] = field(default_factory=list)
    summary: int = 0  # sentences
    summary_supported: int = 0
    unsupported: list[str] = field(default_factory=list)
    who_errors: list[str] = field(default_factory=list)


def score(bio: str, key: dict[str, Any], owner: Sequence[str]) -> Portrait:
    out = Portrait()
    for line in statements(bio):
        out.lines += 1
        text = bare(line)
        said = _QUOTED.sub(" ", text)
        if ":" in text[:40] and line.startswith("- ") and _in_people(line, bio):
            said = said.split(":", 1)[1]  # "- Miriam: …": the name is the line's subject
            if not said.strip():
                continue
        if _FIRST.search(said):
            out.first_person.append(line)
        if _HEADER.search(text) or _GREETING.search(text) or len(said.split()) < 4:
            out.headers.append(line)
        elif not _has_subject(text, owner):
            out.no_subject.append(line)
    people = section(bio, "people")
    for person in key.get("people", []):
        out.people_total += 1
        rows = [r for r in people.splitlines() if fold(person["name"]) in fold(r)]
        if any(all(any(fold(w) in fold(r) for w in g) for g in person["relation"]) for r in rows):
            out.people += 1
        else:
            out.people_missing.append(person["name"])
    _summary(bio, out)
    for trap in key.get("who_did_what", []):
        for line in statements(bio) + _SENTENCE.split(section(bio, "summary")):
            t = fold(line)
            acts = _owner_acts(bare(line), owner)
            if (
                acts
                and all(any(fold(w) in t for w in g) for g in trap["words"])
                and not any(fold(p) in t for p in trap["parties"])
            ):
                out.who_errors.append(line)
    return out


def _in_people(line: str, bio: str) -> bool:
    return line in section(bio, "people").splitlines()


def _has_subject(text: str, owner: Sequence[str]) -> bool:
    first = text.split()[0] if text.split() else ""
    if any(fold(o.split()[0]) in fold(text) for o in owner if o.split()):
        return True
    if _SUBJECT.search(text):
        return True
    # a capitalised word that is not the opening verb: a name
    return any(w != first for w in _CAPITAL.findall(text)) or bool(
        first[:1].isupper() and first.casefold() not in _OPENING_VERBS
    )


_OPENING_VERBS = {
    "ran", "went", "got", "took", "made", "had", "was", "met", "moved", "started", "stopped",
    "left", "began", "became", "bought", "sold", "found", "felt", "told", "said", "wrote",
    "decided", "joined", "finished", "handed", "lost", "won", "visited", "worked", "lived",
}  # fmt: skip


def _owner_acts(text: str, owner: Sequence[str]) -> bool:
    names = sorted({w for o in owner for w in (o, o.split()[0])}, key=len, reverse=True)
    who = "|".join(re.escape(n) for n in names)
    if not who:
        return False
    opens = re.match(rf"(?:{who})\b(?!['’])", text)
    beside = re.search(
        rf"\b(?:{who})\s+(?:and|und|y|et|e)\s+\w|\w+\s+(?:and|und|y|et|e)\s+(?:{who})\b", text
    )
    return bool(opens or beside)


def _summary(bio: str, out: Portrait) -> None:
    """Each Summary sentence: supported when it cites sources, and its names and numbers are
    in bio.md's lines that cite them."""
    text = section(bio, "summary").strip()
    if not text or "nothing is known" in fold(text) or "noch ist nichts" in fold(text):
        return
    lines = statements(bio)
    for sentence in _SENTENCE.split(text.replace("\n", " ")):
        if not sentence.strip():
            continue
        out.summary += 1
        ids = set(_ID.findall(sentence))
        backing = " ".join(x for x in lines if ids & set(_ID.findall(x)))
        words = set(_CAPITAL.findall(_CITES.sub("", sentence))[1:]) | set(
            _NUMBER.findall(_CITES.sub("", sentence))
        )
        missing = [w for w in words if fold(w) not in fold(backing)]
        if ids and backing and not missing:
            out.summary_supported += 1
        else:
            out.unsupported.append(
                f"{sentence.strip()} (not in its lines: {missing or 'no cites'})"
            )
