"""Other people in a portrait: shown by role ("her sister") or initial ("T."), or by name
where the owner chooses. The names come from bio.md's People section and from every speaker
in the corpus; they are found in text as whole words, folded (biomd.fold: any case, no
accents)."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from biomd.app.share.audiences import Shown
from biomd.fold import fold, fold_mapped

# Roles, as bio.md says them ("her partner since 2021", "Mum", "his manager at Lumen").
ROLES = (
    "partner", "wife", "husband", "girlfriend", "boyfriend", "fiancée", "fiancé", "fiance",
    "ex-partner", "ex-wife", "ex-husband", "ex-girlfriend", "ex-boyfriend", "ex",
    "mother", "mum", "mom", "father", "dad", "sister", "brother", "daughter", "son",
    "grandmother", "grandfather", "grandma", "grandpa", "aunt", "uncle", "cousin", "niece",
    "nephew", "stepmother", "stepfather", "mother-in-law", "father-in-law", "sister-in-law",
    "brother-in-law", "best friend", "friend", "flatmate", "roommate", "neighbour",
    "neighbor", "colleague", "manager", "boss", "mentor", "teacher", "student", "client",
    "therapist", "doctor", "coach", "landlord", "business partner", "co-founder",
)  # fmt: skip
_ROLE = re.compile(
    r"\b(?:(my|her|his|their|the owner's)\s+)?("
    + "|".join(re.escape(r) for r in sorted(ROLES, key=len, reverse=True))
    + r")\b",
    re.I,
)
# E-mail addresses and links are left whole: a name inside one is never replaced (the scan
# finds them whole, for the owner to remove or accept as they are).
EMAIL = re.compile(r"(?<![\w.+-])[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
_END = r"[^\s<>\"'()\[\].,;:!?]"  # a link's last character: no closing punctuation
LINK = re.compile(
    rf"(?<![\w@.-])(?:(?:https?|ftp)://|www\.)[^\s<>\"'()\[\]]*{_END}"
    rf"|(?<![\w@./-])(?:[\w-]+\.)+[a-z]{{2,24}}(?:/(?:[^\s<>\"'()\[\]]*{_END})?)?(?![\w@-])"
)


def whole(text: str) -> list[tuple[int, int]]:
    """Where e-mail addresses and links stand in `text`."""
    return [m.span() for pattern in (EMAIL, LINK) for m in pattern.finditer(text)]


@dataclass(frozen=True)
class Someone:
    name: str
    role: str  # "her sister", or "" when bio.md gives none
    shown: Shown

    @property
    def label(self) -> str:
        """What the portrait says instead of the name."""
        if self.shown == "name":
            return self.name
        if self.shown == "role" and self.role:
            return self.role
        return initial(self.name)


def initial(name: str) -> str:
    letters = [w[0].upper() for w in name.split() if w[:1].isalpha()]
    return (letters[0] + ".") if letters else "someone"


def role_in(about: str) -> str:
    """The role bio.md gives someone, with its possessive ("her sister"), or ""."""
    m = _ROLE.search(about)
    if m is None:
        return ""
    possessive = (m.group(1) or "their").lower().replace("the owner's", "their")
    return f"{possessive} {m.group(2).lower()}"


def choose(
    people: Iterable[tuple[str, str]],
    default: Shown,
    show: Sequence[str] = (),
    hide: Sequence[str] = (),
) -> list[Someone]:
    """Everyone to place, from (name, what bio.md says of them): named where the owner
    shows them, hidden (role or initial) where they hide them, else as `default` says.
    `hide` may add names bio.md and the speakers don't have."""
    out: dict[str, Someone] = {}
    shown, hidden = {fold(n) for n in show}, {fold(n) for n in hide}
    for name, about in [*people, *((n, "") for n in hide)]:
        key = fold(name)
        if not key or key in out:
            continue
        how: Shown = "name" if key in shown else default
        if key in hidden and how == "name":
            how = "role"
        out[key] = Someone(name.strip(), role_in(about or name), how)
    return list(out.values())


def _variants(person: Someone) -> list[str]:
    """The forms of a name to look for: whole, then the first name alone and the last name
    alone (of three letters or more)."""
    whole = fold(person.name)
    parts = whole.split()
    forms = [whole]
    if len(parts) > 1:
        forms += [p for p in (parts[0], parts[-1]) if len(p) > 2]
    return forms


class Names:
    """Finds and replaces hidden people's names in text. A form that is also the owner's
    name or a shown person's ("Maria" when the owner is Maria Silva) is not replaced, since
    it may be them, but is reported as ambiguous so the scan shows it; a name the owner hid
    by hand is always replaced."""

    def __init__(
        self,
        people: Sequence[Someone],
        owner_names: Sequence[str] = (),
        hidden_by_hand: Sequence[str] = (),
    ) -> None:
        keep = {w for n in owner_names for w in fold(n).split()}
        keep |= {w for p in people if p.shown == "name" for w in fold(p.name).split()}
        forced = {fold(n) for n in hidden_by_hand}
        self.hidden = [p for p in people if p.shown != "name"]
        forms: dict[str, Someone] = {}
        unsure: dict[str, Someone] = {}
        whole_first = [(0, p, f) for p in self.hidden for f in _variants(p)[:1]]
        parts_after = [(1, p, f) for p in self.hidden for f in _variants(p)[1:]]
        for _, p, form in whole_first + parts_after:  # "Maria" is first the Maria herself
            if form in keep and form not in forced:
                unsure.setdefault(form, p)
            else:
                forms.setdefault(form, p)
        self._forms, self._unsure = forms, unsure
        self._pattern = _alternation(forms)
        self._unsure_pattern = _alternation(unsure)

    def found(self, text: str) -> list[tuple[int, int, Someone]]:
        """Where hidden names stand in `text`: (start, end, person)."""
        return _spans(self._pattern, self._forms, text)

    def ambiguous(self, text: str) -> list[tuple[int, int, Someone]]:
        """Where a hidden person's name stands that is also the owner's or a shown person's."""
        return _spans(self._unsure_pattern, self._unsure, text)

    def replace(self, text: str) -> str:
        """`text` with each hidden name as its label."""
        text = nfc(text)
        out, at = [], 0
        for start, end, person in self.found(text):
            out += [text[at:start], person.label]
            at = end
        out.append(text[at:])
        return "".join(out)


def nfc(text: str) -> str:
    """Composed accents ("o" and a combining acute become "ó"), so every name is one form."""
    return unicodedata.normalize("NFC", text)


def _alternation(forms: dict[str, Someone]) -> re.Pattern[str] | None:
    ordered = sorted(forms, key=len, reverse=True)
    if not ordered:
        return None
    return re.compile(r"(?<!\w)(" + "|".join(re.escape(f) for f in ordered) + r")(?:'s)?(?!\w)")


def _spans(
    pattern: re.Pattern[str] | None, forms: dict[str, Someone], text: str
) -> list[tuple[int, int, Someone]]:
    if pattern is None:
        return []
    folded = fold_mapped(text)
    kept = whole(text)
    found = [
        (*folded.span(m.start(), m.end(1)), forms[m.group(1)])
        for m in pattern.finditer(folded.text)
    ]
    return [(s, e, p) for s, e, p in found if not any(s < b and a < e for a, b in kept)]
