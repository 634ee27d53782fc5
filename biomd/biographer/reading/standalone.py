"""A line of bio.md that stands alone: a statement about a person, with a subject, not an
e-mail header, a greeting, a sign-off or a fragment, and never in a source's first person.
Where a note's statement is in the first person, rules put it in the third ("I moved" is
"Nina moved") as far as a language's table can; what they can't is not a line. Pure."""

from __future__ import annotations

import re
from collections.abc import Sequence

from biomd.biographer import who
from biomd.biographer.profile_text import CITES

FRAGMENT_WORDS = 4  # a line of fewer words says too little to stand alone
_CONFIDENCE = re.compile(r"\s*\(confidence: \w+\)")
_DATED = re.compile(r"^\s*-?\s*\d{4}(?:-\d{2}){0,2}:\s*")
_QUOTED = re.compile(r'“[^”\n]*”|"[^"\n]*"|„[^“”\n]*[“”]|«[^»\n]*»')
_HEADER = re.compile(
    r"(?:^|\n)\s*(?:from|to|cc|bcc|subject|date|sent|reply-to|message-id|content-type"
    r"|von|an|betreff|datum|gesendet|de|para|asunto|fecha|enviado|objet|à|envoyé|assunto"
    r"|data|oggetto|da|onderwerp|van|aan)\s*:",
    re.I,
)
_ADDRESS = re.compile(r"[\w.+-]+@[\w-]+\.[\w.-]+|https?://\S+")
_WORD = re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)?")

GREETINGS = {
    "en": "dear hi hello hey best wishes kind warm regards greetings with sporty cheers love "
    "thanks thank you yours sincerely faithfully xx xoxo take care all the see soon talk",
    "de": "liebe lieber liebes hallo hi moin servus viele liebe herzliche beste freundlichen "
    "sportlichen grüße gruß grüßen lg mfg mit bis bald danke dein deine euer eure der vorstand",
    "es": "querido querida queridos estimado estimada hola saludos un abrazo abrazos besos "
    "atentamente cordialmente gracias muchas hasta pronto",
    "fr": "cher chère chers bonjour salut cordialement bises bisous amitiés merci bien à vous "
    "toi bonne journée",
    "pt": "querido querida prezado prezada olá oi abraços abraço beijos beijo atenciosamente "
    "cumprimentos obrigado obrigada até logo breve",
}
"""Words a greeting or a sign-off is made of, by language: a line of them and names only
("Lieber Jonas,", "Mit sportlichen Grüßen, der Vorstand") says nothing of a life."""
_GREETING = frozenset(w for words in GREETINGS.values() for w in words.split())

SUBJECTLESS = frozenset(
    "ran went got took made had was were met moved started stopped left began became bought "
    "sold found felt told said wrote decided joined finished handed lost won visited "
    "worked lived signed quit".split()
)
"""English verbs a reader's statement may open with, its subject left out ("Ran the Bath
half marathon")."""

_CONJUGATED = "conjugated"  # the verb after "I", put in the third person (_conjugated)
THIRD_PERSON: dict[str, list[tuple[str, str]]] = {
    "en": [
        (r"\bI['’]m\b|\bI am\b", "{name} is"),
        (r"\bI was\b", "{name} was"),
        (r"\bI['’]ve\b|\bI have\b", "{name} has"),
        (r"\bI['’]d\b", "{name} would"),
        (r"\bI['’]ll\b|\bI will\b", "{name} will"),
        (r"\bI don['’]t\b|\bI do not\b", "{name} doesn't"),
        (r"\bI ([a-z]+)\b(?![’'])", _CONJUGATED),
        (r"\bI\b", "{name}"),
        (r"\b[Mm]y\b|\b[Mm]ine\b", "{name}'s"),
        (r"\b[Mm]yself\b|\b[Mm]e\b", "{name}"),
    ],
    "de": [
        (r"\b[Ii]ch bin\b", "{name} ist"),
        (r"\b[Ii]ch war\b", "{name} war"),
        (r"\b[Ii]ch hab(?:e)?\b", "{name} hat"),
        (r"\b[Ii]ch hatte\b", "{name} hatte"),
        (r"\b[Ii]ch werde\b", "{name} wird"),
        (r"\b[Ii]ch wurde\b", "{name} wurde"),
        (r"\b[Ii]ch kann\b", "{name} kann"),
        (r"\b[Ii]ch will\b", "{name} will"),
        (r"\b[Ii]ch muss\b", "{name} muss"),
        (r"\b[Mm]ein(?:e|en|em|er|es)?\b", "{genitive}"),
    ],
}
"""First person to third by rules, per language; a statement still in the first person
after its table (German "ich mache": the verb would change) is not placed as written."""


def bare(line: str) -> str:
    """A line's statement: without its bullet, date, citations and confidence."""
    return _DATED.sub("", _CONFIDENCE.sub("", CITES.sub("", line.strip().lstrip("-* ")))).strip()


def fault(line: str, owner: Sequence[str] = ()) -> str | None:
    """Why a line can't stand alone in bio.md, or None when it can."""
    text = bare(line)
    if _HEADER.search(text):
        return "an e-mail header"
    if _ADDRESS.search(text):
        return "an address, not a statement"
    said = _QUOTED.sub(" ", text)  # what a line quotes is the source's, in its own person
    words = _WORD.findall(said)
    if greeting(said):
        return "a greeting or a sign-off"
    if ungreeted(said) != said:
        return "opened by a greeting"
    if len(words) < FRAGMENT_WORDS:
        return "a fragment"
    if first_person(said):
        return "in the first person of its source"
    if _YOU.search(said):
        return "spoken to someone ('you')"
    if _OWNER.search(said):
        return "about 'the owner', not by name"
    opening = words[0].casefold()
    if opening in SUBJECTLESS or opening in _NUMBERS or opening.endswith("ing"):
        return "without a subject"
    return None


_SALUTATION = re.compile(r"^([^,:!\n]{1,40})[,:!]\s*\S")


def greeting(text: str) -> bool:
    """Whether a text is only a greeting or a sign-off: its words greeting words and names
    ("Lieber Jonas,", "Mit sportlichen Grüßen, der Vorstand")."""
    words = _WORD.findall(text)
    return any(w.casefold() in _GREETING for w in words) and all(
        w.casefold() in _GREETING or w[:1].isupper() for w in words
    )


def ungreeted(text: str) -> str:
    """A text without the letter's greeting it opens with ("Lieber Jonas, welcome to…" is
    "welcome to…"), or as it is."""
    m = _SALUTATION.match(text)
    head = _WORD.findall(m.group(1)) if m else []
    if m and head and head[0].casefold() in _GREETING and greeting(m.group(1)):
        return text[m.end() - 1 :]
    return text


_NUMBERS = frozenset(
    "one two three four five six seven eight nine ten eleven twelve twenty hundred".split()
)
"""A line opening with a count has no subject ("Two years without a cigarette now")."""
_YOU = re.compile(
    r"\b(?:you|your|yours|yourself|du|dich|dir|dein\w{0,2}|tú|contigo|usted|toi|vous|votre"
    r"|você|vocês|teu|tua|teus|tuas)\b",
    re.I,
)
"""The one spoken to, in a line ("ihr", "ton", "te" are too often other words to count)."""
_OWNER = re.compile(r"\b(?:the owner|owner's|des besitzers|der besitzerin)\b", re.I)


def first_person(text: str) -> bool:
    """Whether text speaks as "I" or "we" (not "US", the country)."""
    return any(
        m.group(0) == "I" or not m.group(0).isupper() for m in who.FIRST_PERSON.finditer(text)
    )


def third_person(statement: str, owner: Sequence[str]) -> str | None:
    """The statement with the owner in the third person by name, or as it is when it isn't in
    the first person; None when no table can put it there."""
    if not first_person(_QUOTED.sub(" ", statement)):
        return statement
    name = owner[0].split()[0] if owner and owner[0].split() else "The owner"
    genitive = f"{name}'" if name[-1:] in "sßxz" else f"{name}s"
    for rules in THIRD_PERSON.values():
        out = statement
        for pattern, replacement in rules:
            if replacement == _CONJUGATED:  # "I keep" as "Nina keeps"
                out = re.sub(pattern, lambda m: _conjugated(name, m.group(1)), out)
            else:
                out = re.sub(pattern, replacement.format(name=name, genitive=genitive), out)

        if not first_person(_QUOTED.sub(" ", out)):
            return out[:1].upper() + out[1:]
    return None


_NOT_PRESENT = frozenset(
    "is was has had would will can could should might must may did does never always just "
    "still also really only often even ran went met told said took made got left sold bought "
    "felt thought knew saw came wrote found gave kept lost won began became spent paid put "
    "read heard sent brought taught caught held stood sat slept woke wore".split()
)
"""Words after "Nina" that are not a present-tense verb to put in the third person."""


def _conjugated(name: str, verb: str) -> str:
    """ "I keep" as "Nina keeps", "I miss" as "Nina misses"; a past or a modal as it is."""
    if verb.endswith("ss"):
        return f"{name} {verb}es"
    if verb in _NOT_PRESENT or verb.endswith(("ed", "s")):
        return f"{name} {verb}"
    if verb.endswith(("sh", "ch", "x", "o")):
        return f"{name} {verb}es"
    if verb.endswith("y") and verb[-2:-1] not in "aeiou":
        return f"{name} {verb[:-1]}ies"
    return f"{name} {verb}s"
