"""A note put in words for bio.md, one line for each of its facts (facts.py): the model gets
a fact, the note's quote and the lines around it, and writes one line in the third person,
which rules check (it keeps the fact's names and numbers, names no one the source doesn't,
is short, stands alone and says who did what). A line refused twice gives way to the
rules' wording of the fact (standalone.third_person), marked for the biographer to tidy; a
fact neither can put in words is left out, and the note stays searchable."""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from biomd.biographer import data, who
from biomd.biographer.answer_claims import CALENDAR, sentences
from biomd.biographer.json_reply import json_values
from biomd.biographer.prompts import LANGUAGE_NAMES
from biomd.biographer.reading import facts
from biomd.biographer.reading.standalone import fault, third_person
from biomd.errors import LLMError, SpendLimitReached
from biomd.fold import fold
from biomd.models.llm import JsonModel
from biomd.storage.notes import Note
from biomd.storage.store import Store

log = logging.getLogger(__name__)

LIMIT = 220  # characters of a worded line
RULE_WORDS = 6  # a sentence the rules take alone has at least this many words
TRIES = 2  # the first line, then one more with why the first was refused
REPLY_TOKENS = 160
_STEM = 4  # letters a name is matched by: "Miriams" is Miriam's
_NUMBER = re.compile(r"\d+")
_RELATIVE = re.compile(
    r",?\s*\b(?:today|yesterday|tomorrow|tonight|this morning|last night|heute|gestern"
    r"|hoy|ayer|aujourd'hui|hoje|ontem)\b",
    re.I,
)
"""Times a line can't keep: "today" in a biography is no day at all (the line's date is)."""
SENTENCES = 2  # a worded line holds at most this many


def undated(line: str) -> str:
    """A line without its relative times: "Nina handed in her notice today." loses "today"."""
    return _RELATIVE.sub("", line).strip()


SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"line": {"type": "string"}},
    "required": ["line"],
    "additionalProperties": False,
}
SYSTEM = (
    "You turn a note on {name}'s diary, chats or e-mails into one line of {name}'s "
    "biography: one or two short sentences in the third person about {first} or a person in "
    "{first}'s life, saying who did what, and when if the note says. Never write 'I', 'me', "
    "'my' or 'we'. Use only what the note says: keep its names, numbers and dates, and add "
    "no one. At most {limit} characters. {language}\n"
    'Reply with JSON only: {{"line": "..."}}, or {{"line": ""}} when the note tells nothing '
    "about a life (a greeting, a sign-off, an e-mail header, small talk)."
)
EXAMPLES = (
    ("Quote: “Ran the Westport 10k this morning. 52:10. Legs like jelly.”\n"
     "Note: Ran the Westport 10k, 52:10",
     "{first} ran the Westport 10k in 52:10."),
    ("Quote, said by Maya to {first}: “Paul and I have set a date! The wedding is on 3 June.”\n"
     "Note: {first} and Paul set a date for the wedding",
     "Maya and Paul set their wedding for 3 June."),
    ("Quote: “I've met someone. Her name is Priya, she teaches the yoga class. So happy.”\n"
     "Note: I met Priya",
     "{first} met Priya, who teaches the yoga class."),
    ("Quote: “Best wishes, the committee”\nNote: A greeting from the committee", ""),
)  # fmt: skip
"""What a small model is shown before its note: examples work where instructions don't."""


@dataclass(frozen=True, slots=True)
class Shown:
    """A note's quote in its source: the lines around it, who says it, and the source."""

    context: str
    speaker: str
    source: str


@dataclass
class Worded:
    """What wording a batch of notes gave: each note's lines (none: the note stays a note)."""

    texts: dict[int, list[str]] = field(default_factory=dict)
    tidy: dict[int, list[str]] = field(default_factory=dict)  # in the rules' wording, to reword
    by_model: int = 0
    by_rules: int = 0  # the model's lines refused: the rules' wording, to tidy
    left: int = 0  # notes with no line at all
    calls: int = 0
    refused: list[str] = field(default_factory=list)  # why, for the log


def request(note: Note, shown: Shown, owner: Sequence[str], language: str) -> list[dict[str, str]]:
    """The messages that ask for one note's line: the rules, the examples, then the lines
    around the note (for context) and the note, in the third person where rules can put it
    there."""
    name = owner[0] if owner else "the owner"
    first = name.split()[0] if owner and name.split() else name
    tongue = (
        f"Write in {LANGUAGE_NAMES.get(language, language)}, the source's language."
        if language
        else "Write in the language of the note."
    )
    messages = [
        {
            "role": "system",
            "content": SYSTEM.format(name=name, first=first, limit=LIMIT, language=tongue),
        }
    ]
    for asked, line in EXAMPLES:
        messages += [
            {"role": "user", "content": asked.format(first=first)},
            {
                "role": "assistant",
                "content": json.dumps({"line": line.format(first=first)}, ensure_ascii=False),
            },
        ]
    said = (
        f", said by {shown.speaker} to {first}"
        if shown.speaker and not who.is_owner(shown.speaker, owner)
        else ""
    )
    when = f" ({note.date})" if note.date else ""
    statement = third_person(note.statement, owner) or note.statement
    user = (
        f"The lines around it in {shown.source or 'the source'}, for context only:\n"
        f"{data.wrap(shown.context)}\n\nQuote{said}{when}: “{note.quote.strip()}”\n"
        f"Note: {statement}"
    )
    return [*messages, {"role": "user", "content": user}]


def parsed(reply: str) -> str:
    """The line in a reply, or '' when it holds none."""
    for value in json_values(reply):
        if isinstance(value, dict) and isinstance(value.get("line"), str):
            return " ".join(value["line"].split())
    return ""


def check(
    line: str, note: Note, shown: Shown, owner: Sequence[str], people: Iterable[str] = ()
) -> str | None:
    """Why a worded line can't go into bio.md, or None when it can."""
    if not line:
        return "it is empty"
    if len(line) > LIMIT:
        return f"it is longer than {LIMIT} characters"
    why = fault(line, owner)
    if why:
        return f"it is {why}"
    if len(sentences(line)) > SENTENCES:
        return f"it is more than {SENTENCES} sentences"
    said = f"{note.quote} {shown.context}"
    real = set(_NUMBER.findall(said)) | set(_NUMBER.findall(note.date or ""))
    added = sorted(set(_NUMBER.findall(line)) - real)
    if added:
        return f"the source does not say {', '.join(added)}"
    if len(sentences(note.statement)) <= facts.SENTENCES:  # a fact: its line keeps all of it
        kept = set(_NUMBER.findall(note.statement)) & real
        lost = sorted(n for n in kept if n not in line and n not in (note.date or ""))
        if lost:
            return f"it leaves out {', '.join(lost)}"
        stems = _stems(line)
        gone = [p for p in _told(note, shown, owner, people) if _stem(p) not in stems]
        if gone:
            return f"it leaves out {', '.join(gone)}"
    speakers = " ".join(who.speaker(x) for x in shown.context.split("\n"))
    given = f"{note.quote} {note.statement} {shown.speaker} {speakers} {shown.source}"
    new = _new_names(line, given, said, owner, people)
    if new:
        return f"the source does not name {', '.join(new)}"
    return who.who_did_what(line, note.quote, shown.speaker, owner, [*people, *note.people])


def _told(note: Note, shown: Shown, owner: Sequence[str], people: Iterable[str]) -> list[str]:
    """The names a fact gives that its line must keep: the people it names (of the note's
    and those known), and where the source doesn't capitalise its nouns, any word its
    sentences capitalise past their first that its quote capitalises too ("Bath", "Roth");
    never the owner's."""
    told = _stems(note.statement)
    names = [p for p in who.named(note.quote, [*note.people, *people]) if _stem(p) in told]
    if not _capitalises_nouns(f"{note.quote}\n{shown.context}"):
        quoted = {fold(w) for w in who.NAME.findall(note.quote)}
        names += [
            w
            for s in sentences(note.statement)
            for w in who.names_in(s)
            if fold(w) in quoted and not _common(w)
        ]
    mine = {_stem(w) for o in owner for w in o.split()}
    return list(dict.fromkeys(p for p in names if _stem(p) not in mine))


def _common(word: str) -> bool:
    """A capitalised word that is no one's name: "I'd", "Tuesdays", "September"."""
    folded = fold(word)
    return folded.split("'")[0].split("’")[0] == "i" or folded.removesuffix("s") in CALENDAR


def _title(note: Note) -> bool:
    """Whether a note's quote is its source's title line ("WhatsApp chat: Mum"), which
    says nothing of a life whatever a reader makes of it."""
    quote = note.quote.strip()
    return note.start == 0 and (quote.startswith("#") or fault(quote) == "a fragment")


def rules_line(
    note: Note, shown: Shown, owner: Sequence[str], people: Sequence[str] = ()
) -> str | None:
    """The note's statement as a line by rules: of its sentences that, in the third person,
    stand alone, are short and have who did what right, the one with the most names and
    numbers (a relative time taken out); None when none can be."""
    for sentence in sorted(sentences(note.statement) or [note.statement], key=facts.weight):
        if len(sentence.split()) < RULE_WORDS:
            continue  # "I know, I know: January."
        text = undated(third_person(sentence, owner) or "")
        if not text or len(text) > LIMIT or fault(text, owner):
            continue
        if who.who_did_what(text, note.quote, shown.speaker, owner, people):
            continue
        return text
    return None


async def word(
    model: JsonModel | None,
    notes: Sequence[Note],
    shown: Mapping[int, Shown],
    owner: Sequence[str],
    languages: Mapping[int, str] | None = None,
    people: Iterable[str] = (),
) -> Worded:
    """Each note's lines, one a fact: the model's where it passes the check (in TRIES), else
    the rules'. Each line is in its source's language (`languages`, by source id: a small
    reader writes its notes in English whatever the source). No model, an outage or the
    spend limit leaves the rest to the rules."""
    out = Worded()
    known = list(people)
    model_up = model is not None
    for note in notes:
        where = shown.get(note.id, Shown("", "", ""))
        lines = out.texts.setdefault(note.id, [])
        for fact in [] if _title(note) else facts.of(note):
            line = None
            if model_up and model is not None:
                try:
                    language = (languages or {}).get(note.document_id, "")
                    line = await _asked(model, fact, where, owner, language, known, out)
                except (LLMError, SpendLimitReached) as exc:
                    log.warning("lines are worded by rules: %s", exc)
                    model_up = False
            if line:
                out.by_model += 1
            else:
                line = rules_line(fact, where, owner, [*known, *note.people])
                if line:
                    out.by_rules += 1
                    out.tidy.setdefault(note.id, []).append(line)
                else:
                    out.left += 1
            if line and fold(line) not in {fold(x) for x in lines}:
                lines.append(line)
    return out


async def _asked(
    model: JsonModel,
    note: Note,
    shown: Shown,
    owner: Sequence[str],
    language: str,
    people: Sequence[str],
    out: Worded,
) -> str | None:
    """The model's line for one note, checked; None when it was refused TRIES times or
    said there is nothing to say."""
    messages: list[dict[str, str]] = request(note, shown, owner, language)
    first = owner[0].split()[0] if owner and owner[0].split() else "the owner"
    for _ in range(TRIES):
        await model.check_budget()
        reply = await model.complete_json(messages, SCHEMA, "wording", REPLY_TOKENS, steady=True)
        out.calls += 1
        line = undated(parsed(reply.text))
        if not line:
            return None
        why = check(line, note, shown, owner, people)
        if why is None:
            return line
        out.refused.append(f"{line!r}: {why}")
        messages = [
            *messages,
            {"role": "assistant", "content": reply.text},
            {
                "role": "user",
                "content": f"That line can't be used: {why}. Write it again as one or two "
                f"short sentences in the third person about {first} or the people in the note, "
                'or reply {"line": ""}.',
            },
        ]
    return None


def _stem(name: str) -> str:
    return who.key(name)[:_STEM]


def _stems(text: str) -> set[str]:
    return {fold(w)[:_STEM] for w in re.findall(r"\w+", text)}


def _new_names(
    line: str, given: str, around: str, owner: Sequence[str], people: Iterable[str]
) -> list[str]:
    """Names in the line that the note doesn't give (its quote, its statement, who speaks):
    a known person, and (where the source doesn't capitalise its nouns, as German does) any
    capitalised word inside a sentence and not in the lines around it either."""
    mine = {_stem(w) for o in owner for w in o.split()}
    named = _stems(given) | mine
    there = named | _stems(around)
    words = [w for w in who.NAME.findall(line) if fold(w) not in CALENDAR]
    known = {_stem(p) for p in people} - mine
    strict = not _capitalises_nouns(around)
    opening = {m.group(1) for s in sentences(line) if (m := who.NAME.match(s.strip()))}
    return list(
        dict.fromkeys(
            w
            for w in words
            if (_stem(w) in known and _stem(w) not in named)
            or (strict and w not in opening and _stem(w) not in there)
        )
    )


def _capitalises_nouns(text: str) -> bool:
    """Whether a text capitalises words inside its sentences often, as German nouns are."""
    words: list[str] = re.findall(r"(?<![.!?:\n]\s)(?<!^)\b[^\W\d_]+", text)
    if len(words) < 8:
        return False
    return sum(w[:1].isupper() for w in words) / len(words) > 0.25


CONTEXT = 300  # characters of the source on each side of a quote, shown with it


async def shown(store: Store, notes: Sequence[Note], names: Mapping[int, str]) -> dict[int, Shown]:
    """Each note's quote in its source: the whole lines around it, and who says it."""
    out: dict[int, Shown] = {}
    for x in notes:
        lo = max(0, x.start - CONTEXT)
        text = await store.chunks.text(x.document_id, lo, x.end + CONTEXT)
        at = x.start - lo
        first = text.find("\n") + 1 if lo else 0  # whole lines only
        if first > at:
            first = 0
        last = text.rfind("\n")
        end = last if last > x.end - lo else len(text)
        line_start = text.rfind("\n", 0, at) + 1
        line_end = text.find("\n", at)
        line = text[line_start : line_end if line_end >= 0 else len(text)]
        out[x.id] = Shown(text[first:end].strip(), who.speaker(line), names.get(x.document_id, ""))
    return out
