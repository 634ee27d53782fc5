"""Who a passage is by and whom it is of: a chat line's speaker, the names a text holds, "I"
as the speaker's own and "you" as the one spoken to. One logic serves the answers' premise
check (answer_check.premise: a quote said by and of someone else than the one asked about)
and reading's who-did-what check (reading/wording.py: a line that makes the owner a party to
what a quote says of someone else). Pure functions."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from biomd.biographer.reading import kinship
from biomd.fold import fold

FIRST_PERSON = re.compile(
    r"\b(?:I|my|me|mine|myself|we|our|us"  # en
    r"|ich|mein\w{0,2}|mich|mir|wir|unser\w{0,2}|uns"  # de
    r"|yo|mis?|conmigo|nosotr[oa]s|nuestr[oa]s?"  # es
    r"|je|j'|mon|ma|mes|moi|nous|notre|nos"  # fr
    r"|eu|meus?|minhas?|comigo|nós|nosso|nossa"  # pt
    r"|io|mio|mia|miei|mie"  # it
    r"|ik|mijn|mij|wij|ons|onze)\b",  # nl
    re.I,
)
"""The speaker in their own words, in the languages biomd reads: "I", "my", "ich", "wir"."""
SINGULAR_FIRST = re.compile(
    r"\b(?:I|my|me|mine|myself|ich|mein\w{0,2}|mich|mir|yo|mis?|conmigo|je|j'|mon|ma|mes"
    r"|moi|eu|meus?|minhas?|comigo|io|mio|mia|miei|mie|ik|mijn|mij)\b",
    re.I,
)
"""The owner in a question: "I", "my", "ich", "mi", "mijn" (not "we")."""
SECOND_PERSON = re.compile(
    r"\b(?:you|your|yours|yourself"  # en
    r"|du|dich|dir|dein\w{0,2}|ihr|euch|euer"  # de
    r"|tú|tu|te|ti|tus|contigo|usted"  # es
    r"|toi|ton|ta|tes|vous|votre|vos"  # fr
    r"|você|vocês|teu|tua|teus|tuas"  # pt
    r"|tuo|tua|tuoi"  # it
    r"|jij|jou|jouw)\b",  # nl
    re.I,
)
"""The one spoken to: in a chat with the owner, the owner."""
NAME = re.compile(r"\b([A-ZÀ-ÖØ-Þ][\w-]*(?:['’](?![sS]\b)[\w-]+)*)")  # "Caroline's": Caroline
SPEAKER = re.compile(r"^\[[^\]]+\]\s*([^:\n]{1,60}?)(?:\s+\(owner\))?:\s")
"""A transcript line's speaker: "[2023-05-07 10:12] Melanie: …"."""
_AND = r"(?:and|und|y|e|et|en|&)"
_OWNER_WORDS = ("the owner", "owner", "der besitzer", "die besitzerin")


def speaker(line: str) -> str:
    """Who says a transcript line, or '' for a line of a journal, an e-mail, a page."""
    m = SPEAKER.match(line)
    return m.group(1).strip() if m else ""


def key(name: str) -> str:
    """The fold of a name's first word, by which two mentions of one person are matched."""
    words = name.split()
    return fold(words[0]) if words else ""


def parties(quote: str, said_by: str) -> set[str]:
    """Everyone a quote is by or names, as keys: its speaker and the names in its words."""
    found = {key(w) for w in NAME.findall(quote) if w.upper() != w or len(w) > 1}
    if said_by:
        found.add(key(said_by))
    return found - {"i"}


def is_owner(name: str, owner: Sequence[str]) -> bool:
    return bool(name) and key(name) in {key(o) for o in owner}


def of_owner(quote: str, said_by: str, owner: Sequence[str], people: Sequence[str] = ()) -> bool:
    """Whether a quote is by the owner about themselves, names them, or (said to them in a
    chat) speaks to them: what it says may be of the owner. The owner's own lines (their
    journal) are theirs unless they open with someone else ("Miriam and Paul marry", "My
    sister Lena and Jakob…"), one of `people` or a relation."""
    names = {key(w) for w in NAME.findall(quote)}
    if names & {key(o) for o in owner}:
        return True
    if not said_by or is_owner(said_by, owner):  # the owner's own words, or their journal
        return _of_self(quote) or not _opens_with_other(quote, people)
    return bool(SECOND_PERSON.search(quote))


def _opens_with_other(quote: str, people: Sequence[str]) -> bool:
    """Whether a quote opens with a person: one of `people`, or "my sister" and the like."""
    words = fold(quote).split()
    if not words:
        return False
    kin = kinship.by_fold()
    if words[0] in _POSSESSIVES and any(" ".join(words[1 : 1 + n]) in kin for n in (1, 2, 3)):
        return True
    return words[0].strip(",.:;!?") in {key(p) for p in people}


def _of_self(quote: str) -> bool:
    """Whether the speaker speaks of themselves: "I", "we", "my flat"; not only "my sister
    Lena" (that is of Lena)."""
    kin = kinship.by_fold()
    for m in FIRST_PERSON.finditer(quote):
        if fold(m.group(0)) not in _POSSESSIVES:
            return True
        after = fold(quote[m.end() : m.end() + 40]).split()
        if not any(" ".join(after[:n]) in kin for n in (1, 2, 3)):
            return True
    return False


_POSSESSIVES = frozenset(fold(p) for v in kinship.POSSESSIVES.values() for p in v.split()) | {
    "mio",
    "mia",
    "miei",
    "mie",
    "mijn",
    "onze",
    "mine",
}


def owner_acts(line: str, owner: Sequence[str]) -> bool:
    """Whether a line makes the owner one who does what it says: it opens with their name
    (not "Nina's sister…"), or names them beside another ("Nina and Tom …")."""
    text = line.strip().lstrip("-* ").strip()
    names = [re.escape(o) for o in _forms(owner)]
    if not names:
        return False
    who = "|".join(names)
    opens = re.match(rf"(?:{who})\b(?!['’]s?\b|['’])", text, re.I)
    beside = re.search(rf"\b(?:{who})\s+{_AND}\s+\w|\b\w+\s+{_AND}\s+(?:{who})\b", text, re.I)
    return bool(opens or beside)


def _forms(owner: Sequence[str]) -> list[str]:
    """The ways a line may name the owner: each of their names, its first word, "the owner"."""
    out = [*owner, *(o.split()[0] for o in owner if o.split()), *_OWNER_WORDS]
    return sorted({x for x in out if x}, key=len, reverse=True)


def who_did_what(
    line: str, quote: str, said_by: str, owner: Sequence[str], people: Sequence[str] = ()
) -> str | None:
    """Why a line misplaces who did what, or None: it makes the owner a party to what the
    quote says of someone else (the sister's wedding as the owner's); `people` are those
    the sources name."""
    if not owner_acts(line, owner) or of_owner(quote, said_by, owner, people):
        return None
    if _has_own(line, quote, said_by, owner):
        return None
    others = [x for x in [said_by, *named(quote, people)] if x and not is_owner(x, owner)]
    of = f"of {', '.join(dict.fromkeys(others))}" if others else "of someone else"
    return f"it makes {owner[0]} a party to what the quote says {of}"


def _has_own(line: str, quote: str, said_by: str, owner: Sequence[str]) -> bool:
    """Whether the line says the owner has whom the quote calls theirs: "my cat Biscuit"
    as "Nina has a cat called Biscuit" or "Nina's cat"."""
    if said_by and not is_owner(said_by, owner):
        return False
    kin = kinship.by_fold()
    owned = set()
    for m in FIRST_PERSON.finditer(quote):
        after = fold(quote[m.end() : m.end() + 40]).split()
        owned |= {" ".join(after[:n]) for n in (1, 2, 3) if " ".join(after[:n]) in kin}
    forms = "|".join(re.escape(fold(o)) for o in _forms(owner))
    text = fold(line)
    return any(
        re.search(
            rf"(?:(?:{forms})['’]s?|\b(?:a|an|ein\w*|un|una|uma|um|une))\s+{re.escape(k)}\b", text
        )
        for k in owned
    )


def names_in(text: str) -> list[str]:
    """Capitalised words after a text's first (the names it may hold), not all-capitals."""
    return [w for w in NAME.findall(text)[1:] if w.upper() != w]


def named(text: str, people: Iterable[str]) -> list[str]:
    """Those of `people` a text names (by the first word of their name)."""
    words = {fold(w) for w in NAME.findall(text)}
    return [p for p in people if key(p) in words]
