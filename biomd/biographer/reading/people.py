"""People & relationships by rules: who each person is to the owner, as the owner's own
lines say it ("my sister Miriam", "Krümel, mein Hund", a chat with "Mum"), where they live
when a line says so, the years they appear and the sources; one line each for everyone the
notes name more than once or the owner names by relation. Pure functions over text and
notes; the reading round (reading_round.py) keeps what each source gave and writes the
lines."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache

from biomd.biographer import who
from biomd.biographer.answer_claims import CALENDAR
from biomd.biographer.edits import apply_edit, find_section
from biomd.biographer.reading import kinship
from biomd.fold import fold
from biomd.storage.notes import Note

CITES = 4  # sources a person's line cites, at most
_CAP = r"[A-ZÀ-ÖØ-Þ][\w'’-]+"
_PLACE = re.compile(rf"\s*(?P<place>{_CAP}(?:[ -]{_CAP})?)")
_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n")
_STAMP = re.compile(r"^\[(\d{4})-\d{2}-\d{2}[^\]]*\]")
_PRONOUN = re.compile(r"^(?:she|he|they|sie|er|ella|él|elle|il|ela|ele)\b", re.I)
_YOU_ARE = r"(?:you are|you're|du bist|eres|tu es|você é|tu és)"


@dataclass
class Found:
    """What one source says of people: relations, places, and the years each speaks in."""

    relations: list[tuple[str, str]] = field(default_factory=list)  # (name, relation)
    places: list[tuple[str, str]] = field(default_factory=list)  # (name, place)
    speaks: dict[str, list[str]] = field(default_factory=dict)  # speaker: years

    def as_json(self) -> dict[str, object]:
        return {"relations": self.relations, "places": self.places, "speaks": self.speaks}

    @classmethod
    def of_json(cls, value: Mapping[str, object]) -> Found:
        rel = value.get("relations", [])
        places = value.get("places", [])
        speaks = value.get("speaks", {})
        return cls(
            [(str(a), str(b)) for a, b in rel] if isinstance(rel, list) else [],
            [(str(a), str(b)) for a, b in places] if isinstance(places, list) else [],
            {str(k): [str(y) for y in v] for k, v in speaks.items()}
            if isinstance(speaks, dict)
            else {},
        )


@cache
def _patterns() -> tuple[re.Pattern[str], re.Pattern[str], re.Pattern[str], re.Pattern[str]]:
    words = kinship.words()
    kin = "|".join(re.escape(w) for w in words)
    poss = "|".join(sorted({p for v in kinship.POSSESSIVES.values() for p in v.split()}))
    titles = "|".join(sorted(kinship.TITLES))
    name = rf"(?:(?i:{titles})\.?\s+)?{_CAP}"
    before = re.compile(
        rf"\b(?i:{poss})\s+(?:[a-zà-ÿß]+\s+)??(?P<kin>(?i:{kin}))\b,?\s+(?P<name>{name})"
    )
    after = re.compile(
        rf"(?P<name>{name}),\s+(?i:{poss})\s+(?:[a-zà-ÿß]+\s+)??(?P<kin>(?i:{kin}))\b"
    )
    you = re.compile(rf"(?i:{_YOU_ARE})\s+(?i:{poss})\s+(?:[a-zà-ÿß]+\s+)??(?P<kin>(?i:{kin}))\b")
    lives = "|".join(kinship.LIVES_IN.values())
    places = re.compile(rf"(?i:{lives})\b")
    return before, after, you, places


def relation_of(word: str) -> str:
    """The relation a word names ("Mum": mother), or ''."""
    return kinship.by_fold().get(fold(word), "")


def person_key(name: str) -> str:
    """The key two mentions of one person share: the first word of their name that is not a
    title ("Frau Roth" and "Roth" are one)."""
    words = [w for w in re.split(r"[\s.]+", name) if w]
    kept = [w for w in words if fold(w) not in kinship.TITLES] or words
    return fold(kept[0]) if kept else ""


def found_in(text: str, owner: Sequence[str], year: str = "") -> Found:
    """What a source's text says of people, in the owner's own lines (a chat's other
    speakers count only as speakers, and by a name that is a relation, like "Mum")."""
    before, after, you, lives = _patterns()
    out = Found()
    addressee = _addressee(text, owner)
    last_name = ""
    for line in text.split("\n"):
        said_by = who.speaker(line)
        stamp = _STAMP.match(line)
        when = stamp.group(1) if stamp else year
        if said_by and not who.is_owner(said_by, owner):
            out.speaks.setdefault(said_by, [])
            if when and when not in out.speaks[said_by]:
                out.speaks[said_by].append(when)
            if relation_of(said_by):
                out.relations.append((said_by, relation_of(said_by)))
            _places(line, said_by, said_by, lives, out, owner)
            continue
        for m in [*before.finditer(line), *after.finditer(line)]:
            out.relations.append((m.group("name"), relation_of(m.group("kin"))))
        if addressee:
            out.relations += [(addressee, relation_of(m.group("kin"))) for m in you.finditer(line)]
        for pattern in kinship.TOGETHER.values():
            for m in re.finditer(pattern.format(name=_CAP), line):
                out.relations.append((m.group("a") or m.group("b"), "partner"))
        last_name = _places(line, said_by, last_name, lives, out, owner)
    return out


def _places(
    line: str, said_by: str, last: str, lives: re.Pattern[str], out: Found, owner: Sequence[str]
) -> str:
    """Where a line says someone lives, added to `out`; the last person it names (for a
    "she" in the sentence after)."""
    for sentence in _SENTENCE.split(line):
        names = [
            w
            for w in who.NAME.findall(sentence)
            if not who.is_owner(w, owner) and len(w) > 1 and fold(w) not in CALENDAR
        ]
        for m in lives.finditer(sentence):
            place = _PLACE.match(sentence, m.end())
            if place is None:
                continue
            ahead = [n for n in names if sentence.find(n) < m.start()]
            greeting = fold(m.group(0)).split()[-1] in {
                "from",
                "aus",
                "desde",
                "de",
                "in",
                "em",
                "à",
                "en",
            }
            if said_by and greeting:
                subject = said_by
            elif ahead and not _PRONOUN.match(sentence.strip()):
                subject = ahead[-1]
            elif _PRONOUN.match(sentence.strip()) and last:
                subject = last
            else:
                continue
            if subject and not who.is_owner(subject, owner):
                out.places.append((subject, place.group("place")))
        if names:
            last = names[-1]
    return last


def _addressee(text: str, owner: Sequence[str]) -> str:
    """Whom a letter or e-mail is written to, by its greeting ("Liebe Aylin,", "Sam,")."""
    for line in text.split("\n")[:20]:
        m = re.match(rf"^(?:\w+\s+)?(?P<name>{_CAP}),\s*$", line.strip())
        if m and not who.is_owner(m.group("name"), owner):
            return m.group("name")
    return ""


@dataclass
class Person:
    """One person as the sources show them."""

    name: str
    relation: str = ""
    place: str = ""
    years: set[str] = field(default_factory=set)
    sources: set[int] = field(default_factory=set)
    notes: int = 0  # notes that name them


def gather(
    notes: Iterable[Note],
    found: Mapping[int, Found],
    owner: Sequence[str],
) -> list[Person]:
    """Everyone the notes name more than once or the owner names by relation, with what the
    sources say of them, in order of how often they are named."""
    people: dict[str, Person] = {}
    names: dict[str, Counter[str]] = {}

    def get(name: str) -> Person | None:
        k = person_key(name)
        if not k or who.is_owner(name, owner) or fold(name) in {"i", "me"}:
            return None
        names.setdefault(k, Counter())[name.strip()] += 1
        return people.setdefault(k, Person(name.strip()))

    for x in notes:
        for name in x.people:
            p = get(name)
            if p is not None:
                p.notes += 1
                p.sources.add(x.document_id)
                if x.date:
                    p.years.add(x.date[:4])
                if not p.relation and relation_of(name):
                    p.relation = relation_of(name)
    for doc, f in found.items():
        for name, relation in f.relations:
            p = get(name)
            if p is not None and relation:
                p.relation = p.relation if p.relation and p.relation != "friend" else relation
                p.sources.add(doc)
        for name, place in f.places:
            p = get(name)
            if p is not None:
                p.place = p.place or place
                p.sources.add(doc)
        for name, years in f.speaks.items():
            k = person_key(name)
            if k in people:
                people[k].years.update(years)
                people[k].sources.add(doc)
    for k, p in people.items():
        p.name = _display(names[k])
    kept = [p for p in people.values() if p.notes > 1 or p.relation]
    return _merged(sorted(kept, key=lambda p: (-p.notes, p.name)))


def _display(said: Counter[str]) -> str:
    """The name a person goes by: the fullest of the two most used forms."""
    common = [n for n, _ in said.most_common(2)]
    return max(common, key=len)


def _merged(people: list[Person]) -> list[Person]:
    """A parent named only as "Mum" and by name ("my father Werner") is one person."""
    out: list[Person] = []
    for p in people:
        twin = next(
            (
                o
                for o in out
                if p.relation in {"mother", "father"}
                and o.relation == p.relation
                and (relation_of(p.name) or relation_of(o.name))
            ),
            None,
        )
        if twin is None:
            out.append(p)
            continue
        if relation_of(twin.name) and not relation_of(p.name):
            twin.name = p.name
        twin.place = twin.place or p.place
        twin.years |= p.years
        twin.sources |= p.sources
        twin.notes += p.notes
    return out


def line(p: Person, owner: Sequence[str], language: str) -> str:
    """A person's line by rules: "- Miriam: Jonas's sister; lives in Rostock (2018–2024) [#1,
    #2]", in bio.md's language."""
    first = owner[0].split()[0] if owner and owner[0].split() else ""
    said = []
    if p.relation:
        said.append(_of(first, kinship.label(p.relation, language), language))
    if p.place:
        said.append(f"{_LIVES.get(language, 'lives in')} {p.place}")
    years = sorted(p.years)
    when = f" ({years[0]}–{years[-1]})" if len(years) > 1 else f" ({years[0]})" if years else ""
    cites = ", ".join(f"#{d}" for d in sorted(p.sources)[:CITES])
    body = "; ".join(said) or _NAMED.get(language, "named in the sources")
    return f"- {p.name}: {body}{when} [{cites}]"


_LIVES = {"en": "lives in", "de": "wohnt in", "es": "vive en", "fr": "habite à", "pt": "mora em"}
_NAMED = {
    "en": "named in the sources",
    "de": "in den Quellen genannt",
    "es": "nombrado en las fuentes",
    "fr": "nommé dans les sources",
    "pt": "nomeado nas fontes",
}


def _of(owner: str, relation: str, language: str) -> str:
    """ "Jonas's sister", "Schwester von Jonas", "hermana de Jonas"; "sister" with no owner."""
    if not owner:
        return relation
    if language == "en":
        return f"{owner}'s {relation}"
    of = {"de": "von", "es": "de", "fr": "de", "pt": "de"}.get(language, "of")
    return f"{relation[:1].upper() + relation[1:] if language == 'de' else relation} {of} {owner}"


def into(bio: str, new: str, old: str | None, name: str) -> str:
    """bio.md with a person's rules line in People & relationships: in place of the line
    written last time (kept, with what was added to it since, when it still starts the
    same); before what a line about them already says; else added. A line written before
    that the owner took out is not put back, nor one the owner rewrote."""
    region = find_section(bio, "People & relationships")
    body = bio[region.body_start : region.end]
    rows = body.split("\n")
    for i, row in enumerate(rows):
        if old is not None and row.startswith(old):
            rows[i] = new + row[len(old) :]
            break
        if old is None and _about(row, name):
            rows[i] = f"{new}; {row.split(':', 1)[1].strip()}" if ":" in row else new
            break
    else:
        if old is not None:  # the owner took it out, or rewrote it
            return bio
        return apply_edit(bio, "", new, "People & relationships")
    return bio[: region.body_start] + "\n".join(rows) + bio[region.end :]


def _about(row: str, name: str) -> bool:
    """Whether a People line is about this person ("- Miriam: …", "- **Miriam** — …")."""
    if not row.startswith("- "):
        return False
    head = re.split(r"[:—–(\[]", row[2:], maxsplit=1)[0].strip(" *")
    return bool(head) and person_key(head) == person_key(name)


PHRASE = (
    "You phrase one line of the People section of {name}'s biography from the facts below "
    "and nothing else: who the person is to {name}, where they live, the years. One short "
    "sentence in the third person that starts with the person's name. Add no fact, name or "
    "number. {language}\n"
    'Reply with JSON only: {{"line": "..."}}.'
)
_FACTS = re.compile(r"^- (?P<name>[^:]+): (?P<facts>.*?)(?P<cites> \[[^\]]+\])$")


def phrasing(facts: str, owner: Sequence[str], language: str) -> list[dict[str, str]]:
    """The request that asks a model to phrase a person's rules line."""
    name = owner[0] if owner else "the owner"
    tongue = f"Write in the language whose code is '{language}'." if language else ""
    m = _FACTS.match(facts)
    said = f"{m.group('name')}: {m.group('facts')}" if m else facts
    system = PHRASE.format(name=name, language=tongue)
    return [{"role": "system", "content": system}, {"role": "user", "content": said}]


def phrased(text: str, facts: str, p: Person, owner: Sequence[str], language: str) -> str | None:
    """The model's phrasing as a People line with the facts' citations, when it names the
    person, keeps the relation, the place and the years, and adds no name or number; else
    None."""
    m = _FACTS.match(facts)
    if not text or m is None or len(text) > 2 * len(facts) + 40:
        return None
    folded, given = fold(text), fold(facts)
    wanted = [person_key(p.name), *fold(p.place).split()]
    if p.relation:
        wanted += fold(kinship.label(p.relation, language)).split()
    if any(w not in folded for w in wanted):
        return None
    if set(re.findall(r"\d+", text)) != set(re.findall(r"\d+", m.group("facts"))):
        return None  # a year dropped or added
    if [w for w in who.NAME.findall(text) if fold(w) not in given]:
        return None  # a name the facts don't give
    return f"- {m.group('name')}: {text.rstrip('.')}{m.group('cites')}"


SPOUSE = frozenset({"married", "verheiratet", "casado", "casada", "marié", "mariée", "marido",
                    "wife", "husband", "spouse"})  # fmt: skip


SYMMETRIC = frozenset({"partner", "friend", "best friend", "colleague", "neighbour", "cousin",
                       "flatmate"})  # fmt: skip
"""Relations that read the same both ways: "a partner of Inês" is Inês's partner."""


def relations_in(people: str) -> dict[str, set[str]]:
    """Each person of a People section (by key) and the relations its line gives them."""
    out: dict[str, set[str]] = {}
    for row in people.split("\n"):
        if not row.startswith("- ") or ":" not in row:
            continue
        name, said = row[2:].split(":", 1)
        found = {
            r for w, r in kinship.by_fold().items() if re.search(rf"\b{re.escape(w)}\b", fold(said))
        }
        if found:
            out[person_key(name.strip(" *"))] = found
    return out


def relation_conflict(sentence: str, relations: Mapping[str, set[str]]) -> str | None:
    """Why a sentence misstates who someone is to the owner, or None: it calls a person by
    a relation their People line doesn't give ("married to Deniz", a partner), or turns
    theirs round ("a father of Werner", the father)."""
    text = fold(sentence)
    for key, known in relations.items():
        if not re.search(rf"\b{re.escape(key)}\b", text):
            continue
        said = {r for w, r in kinship.by_fold().items() if re.search(rf"\b{re.escape(w)}\b", text)}
        if any(w in text.split() for w in SPOUSE) and not known & {"wife", "husband"}:
            return f"it makes {key.title()} a spouse; bio.md says {', '.join(sorted(known))}"
        for w, r in kinship.by_fold().items():
            if (
                r in known
                and r not in SYMMETRIC
                and re.search(
                    rf"\b{re.escape(w)}\s+(?:of|von|de|do|da|du)\s+{re.escape(key)}\b", text
                )
            ):
                return f"it turns round who {key.title()} is ({r})"
        if said and not said & known and not said <= {"friend", "best friend"}:
            called, says = ", ".join(sorted(said)), ", ".join(sorted(known))
            return f"it calls {key.title()} {called}; bio.md says {says}"
    return None
