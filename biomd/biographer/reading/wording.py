"""A note put in words for bio.md, one line at a time: the model gets the note, its quote
and the lines around it, and writes one line in the third person, which rules check (it
keeps the note's names and numbers, names no one the source doesn't, is short, stands alone
and says who did what). A line refused twice gives way to the rules' wording of the note
(standalone.third_person), marked for the biographer to tidy; a note neither can put in
words stays a note, searchable, without a line."""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from biomd.biographer import data, who
from biomd.biographer.json_reply import json_values
from biomd.biographer.reading.standalone import fault, third_person
from biomd.errors import LLMError, SpendLimitReached
from biomd.fold import fold
from biomd.models.llm import JsonModel
from biomd.retrieval.relative import WEEKDAYS
from biomd.retrieval.when import MONTHS
from biomd.storage.notes import Note
from biomd.storage.store import Store

log = logging.getLogger(__name__)

LIMIT = 220  # characters of a worded line
TRIES = 2  # the first line, then one more with why the first was refused
REPLY_TOKENS = 160
_STEM = 4  # letters a name is matched by: "Miriams" is Miriam's
_NUMBER = re.compile(r"\d+")
_CALENDAR = frozenset(fold(w) for w in [*MONTHS, *WEEKDAYS])

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"line": {"type": "string"}},
    "required": ["line"],
    "additionalProperties": False,
}
SYSTEM = (
    "You write one line of {name}'s biography from a note on one of {name}'s sources. The "
    "line is one complete sentence in the third person: who did what, and when if the "
    "source says. Call {name} {first}; never write 'I', 'we' or 'the owner'. In a chat, "
    "'I' is whoever writes that message, and 'you' is the one they write to. Say only what "
    "the quote and the lines around it say. Keep the note's names, numbers and dates, and "
    "name no one they don't name. At most {limit} characters. {language}\n"
    'Reply with JSON only: {{"line": "..."}}, or {{"line": ""}} when the quote tells '
    "nothing about a life (a greeting, a sign-off, an e-mail header, small talk)."
)


@dataclass(frozen=True, slots=True)
class Shown:
    """A note's quote in its source: the lines around it, who says it, and the source."""

    context: str
    speaker: str
    source: str


@dataclass
class Worded:
    """What wording a batch of notes gave: each placed note's statement (None: no line)."""

    texts: dict[int, str | None] = field(default_factory=dict)
    tidy: set[int] = field(default_factory=set)  # notes in the rules' wording, to reword
    by_model: int = 0
    by_rules: int = 0  # the model's lines refused: the rules' wording, to tidy
    left: int = 0  # notes with no line at all
    calls: int = 0
    refused: list[str] = field(default_factory=list)  # why, for the log


def request(note: Note, shown: Shown, owner: Sequence[str], language: str) -> list[dict[str, str]]:
    """The messages that ask for one note's line."""
    name = owner[0] if owner else "the owner"
    first = name.split()[0] if owner and name.split() else name
    tongue = (
        f"Write in the language whose code is '{language}'."
        if language
        else "Write in the language of the quote."
    )
    system = SYSTEM.format(name=name, first=first, limit=LIMIT, language=tongue)
    said = f", said by {shown.speaker}" if shown.speaker else ""
    user = (
        f"Source: {shown.source}{', ' + note.date if note.date else ''}.\n"
        f"The lines around the quote:\n{data.wrap(shown.context)}\n\n"
        f"Quote{said}: “{note.quote.strip()}”\nNote: {note.statement}"
    )
    return [{"role": "system", "content": system}, {"role": "user", "content": user}]


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
    said = f"{note.quote} {shown.context}"
    real = set(_NUMBER.findall(said)) | set(_NUMBER.findall(note.date or ""))
    added = sorted(set(_NUMBER.findall(line)) - real)
    if added:
        return f"the source does not say {', '.join(added)}"
    kept = set(_NUMBER.findall(note.statement)) & real
    lost = sorted(n for n in kept if n not in line and n not in (note.date or ""))
    if lost:
        return f"it leaves out {', '.join(lost)}"
    stems = _stems(line)
    gone = [p for p in who.named(note.quote, note.people) if _stem(p) not in stems]
    if gone:
        return f"it leaves out {', '.join(gone)}"
    new = _new_names(line, f"{said} {note.statement} {shown.source}", owner, people)
    if new:
        return f"the source does not name {', '.join(new)}"
    return who.who_did_what(line, note.quote, shown.speaker, owner)


def rules_line(note: Note, shown: Shown, owner: Sequence[str]) -> str | None:
    """The note's statement as a line by rules: in the third person, standing alone, with
    who did what right; None when it can't be."""
    text = third_person(note.statement, owner)
    if text is None or fault(text, owner):
        return None
    if who.who_did_what(text, note.quote, shown.speaker, owner):
        return None
    return text


async def word(
    model: JsonModel | None,
    notes: Sequence[Note],
    shown: Mapping[int, Shown],
    owner: Sequence[str],
    language: str = "",
    people: Iterable[str] = (),
) -> Worded:
    """Each note's line: the model's where it passes the check (in TRIES), else the rules'.
    No model, an outage or the spend limit leaves the rest to the rules."""
    out = Worded()
    known = list(people)
    model_up = model is not None
    for note in notes:
        where = shown.get(note.id, Shown("", "", ""))
        line = None
        if model_up and model is not None:
            try:
                line = await _asked(model, note, where, owner, language, known, out)
            except (LLMError, SpendLimitReached) as exc:
                log.warning("lines are worded by rules: %s", exc)
                model_up = False
        if line:
            out.by_model += 1
        else:
            line = rules_line(note, where, owner)
            if line:
                out.by_rules += 1
                out.tidy.add(note.id)
            else:
                out.left += 1
        out.texts[note.id] = line
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
    for _ in range(TRIES):
        await model.check_budget()
        reply = await model.complete_json(messages, SCHEMA, "wording", REPLY_TOKENS, steady=True)
        out.calls += 1
        line = parsed(reply.text)
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
                "content": f"That line was refused: {why}. Reply with a better line, or "
                '{"line": ""}.',
            },
        ]
    return None


def _stem(name: str) -> str:
    return who.key(name)[:_STEM]


def _stems(text: str) -> set[str]:
    return {fold(w)[:_STEM] for w in re.findall(r"\w+", text)}


def _new_names(line: str, said: str, owner: Sequence[str], people: Iterable[str]) -> list[str]:
    """Names in the line that the source doesn't give: a known person it doesn't name, and
    (where the source doesn't capitalise its nouns, as German does) any capitalised word."""
    there = _stems(said) | {_stem(o) for o in owner for o in o.split()}
    words = [w for w in who.NAME.findall(line) if fold(w) not in _CALENDAR]
    folded_people = {_stem(p) for p in people}
    strict = not _capitalises_nouns(said)
    return list(
        dict.fromkeys(
            w
            for i, w in enumerate(words)
            if _stem(w) not in there and (_stem(w) in folded_people or (strict and i > 0))
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
