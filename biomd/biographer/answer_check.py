"""An answer that proves itself: the model's reply is the answer and the verbatim quotes it
rests on (or that the sources are silent); biomd finds each quote in the passages the turn
was shown, as a reader's note is found (quotes.locate: case, accents and quote marks
folded), and keeps only the answer its quotes hold up. Then, by rules:
- the premise: a question about someone answered by what another person said or did is
  said to be about them ("Your sources say this of Melanie, not Caroline");
- the date: a question about time gets the date of the quote's own message, with a relative
  time in it resolved ("last Friday" said on 2023-08-21 is 2023-08-18), not the model's.
Pure functions; the turn (turn.py) gives them the reply and the passages."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from typing import Any

from biomd.biographer.evidence import ShownPassage
from biomd.biographer.reading.quotes import locate
from biomd.fold import fold, fold_mapped
from biomd.retrieval.relative import resolve

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "answer": {"type": "string"},
        "quotes": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {"source": {"type": "integer"}, "quote": {"type": "string"}},
                "required": ["source", "quote"],
            },
        },
        "silent": {"type": "boolean"},
    },
    "required": ["answer", "quotes", "silent"],
}
"""The reply of a chat turn that answers from passages, under the endpoint's JSON schema."""

ASK = (
    'Reply in JSON: {"answer": one or two sentences, the answer first, "quotes": [{"source":'
    ' the source id, "quote": the exact words from that passage that say it}], "silent":'
    " true if the passages don't say}. Copy each quote word for word from one passage; one "
    "quote for each part of the answer. If the passages don't say, or say it of someone "
    "else, set silent to true and say so."
)
SILENT = "Your sources don't say."
_STAMP = re.compile(r"^\[(\d{4}-\d{2}-\d{2})(?:[ T](\d{2}:\d{2}))?\]\s*")
_SPEAKER = re.compile(r"^\[[^\]]+\]\s*([^:\n]{1,60}?)(?:\s+\(owner\))?:\s")
_TIME = re.compile(r"\b(when|what (day|date|time|year|month)|how long ago|since when)\b", re.I)
_NAME = re.compile(r"\b([A-ZÀ-ÖØ-Þ][\w'’-]+)")


@dataclass(frozen=True)
class Claimed:
    """What the model replied."""

    answer: str
    quotes: tuple[tuple[int, str], ...]
    silent: bool


@dataclass(frozen=True)
class Backed:
    """A quote found in the passage it cites."""

    document_id: int
    name: str  # the source's
    quote: str  # as the source has it
    line: str  # the whole line it is in
    day: str  # the line's date (a chat line's stamp), else the passage's
    speaker: str  # who wrote the line, in a chat

    @property
    def said_on(self) -> str:
        """When what the quote names happened: the line's date, or the date a relative time
        in the quote names ("last Friday" on its message's day)."""
        if not self.day:
            return ""
        try:
            named = re.search(r"\((\d{4}-\d{2}(?:-\d{2})?|week of \d{4}-\d{2}-\d{2})\)",
                              resolve(self.quote, date.fromisoformat(self.day[:10])))  # fmt: skip
        except ValueError:
            return self.day
        return named.group(1) if named else self.day


def parse(reply: str) -> Claimed | None:
    """The reply as JSON under SCHEMA (also inside a ``` fence, or after some text); None
    when it isn't."""
    text = reply.strip()
    fenced = re.search(r"```(?:json)?\s*(\{.*\})\s*```", text, re.S)
    body = fenced.group(1) if fenced else text[text.find("{") : text.rfind("}") + 1]
    try:
        found = json.loads(body)
    except ValueError:
        return None
    if not isinstance(found, dict) or not isinstance(found.get("answer"), str):
        return None
    quotes = []
    for q in found.get("quotes") or []:
        if isinstance(q, dict) and str(q.get("quote") or "").strip():
            try:
                quotes.append((int(str(q.get("source", "")).lstrip("#")), str(q["quote"])))
            except ValueError:
                continue
    return Claimed(found["answer"].strip(), tuple(quotes), bool(found.get("silent")))


def backed(claimed: Claimed, passages: Sequence[ShownPassage]) -> list[Backed]:
    """The claimed quotes found in the passages of the sources they cite (any passage of it
    the turn was shown), each once."""
    out: list[Backed] = []
    for source, quote in claimed.quotes:
        for p in passages:
            if p.document_id != source:
                continue
            span = locate(quote, fold_mapped(p.text))
            if span is None:
                continue
            start, end = span
            line_start = p.text.rfind("\n", 0, start) + 1
            line_end = p.text.find("\n", end)
            line = p.text[line_start : line_end if line_end >= 0 else len(p.text)]
            stamp = _STAMP.match(line)
            day = stamp.group(1) if stamp else (p.dates[:10] if p.dates else "")
            who = _SPEAKER.match(line)
            found = Backed(source, p.name, p.text[start:end], line.strip(), day,
                           who.group(1).strip() if who else "")  # fmt: skip
            if found not in out:
                out.append(found)
            break
    return out


def asks_when(question: str) -> bool:
    return bool(_TIME.search(question))


def named_in(question: str, people: Sequence[str]) -> list[str]:
    """The people a question names, of those given (first names match)."""
    words = {fold(w) for w in _NAME.findall(question)}
    return [p for p in people if fold(p.split()[0]) in words]


def premise(question: str, quotes: Sequence[Backed], owner: Sequence[str]) -> str | None:
    """What to say when every quote is by or of someone other than the person the question
    is about ("Your sources say this of Melanie, not Caroline: '…'"); None when a quote is
    theirs, or the question names no one the quotes could be of."""
    speakers = [q.speaker for q in quotes if q.speaker]
    if not quotes or len(speakers) < len(quotes):
        return None
    about = named_in(question, sorted(set(speakers) | set(_people(question))))
    if re.search(r"\b(I|my|me|mine)\b", question) and owner:
        about = [*about, *owner]
    if not about:
        return None
    keys = {fold(a.split()[0]) for a in about}
    for q in quotes:
        if fold(q.speaker.split()[0]) in keys or keys & {fold(w) for w in _NAME.findall(q.quote)}:
            return None  # said by them, or names them
    who = quotes[0].speaker
    return f"Your sources say this of {who}, not {about[0]}: “{quotes[0].quote}”"


def _people(question: str) -> list[str]:
    """Capitalised words after the first: the names a question may be about."""
    words = _NAME.findall(question)
    return [w for w in words[1:] if w.lower() not in {"i", "lgbtq"}]


def cite(q: Backed) -> str:
    """One quote for the owner: its words, then where they are (source, date, speaker)."""
    who = f", {q.speaker}" if q.speaker else ""
    when = f", {q.day}" if q.day else ""
    return f"“{q.quote}” [#{q.document_id}{when}{who}]"


def checked(
    question: str,
    claimed: Claimed | None,
    passages: Sequence[ShownPassage],
    owner: Sequence[str] = (),
) -> tuple[str, list[Backed]]:
    """The answer the owner is shown, and the quotes it rests on: the model's answer with
    its verified quotes; the premise reply where they are another person's; the quote's
    date where the question asks when; else that the sources don't say, with the nearest
    passages."""
    quotes = backed(claimed, passages) if claimed else []
    if claimed is None or claimed.silent or not quotes:
        return _silent(passages), []
    wrong = premise(question, quotes, owner)
    if wrong:
        return wrong, quotes
    answer = claimed.answer
    if asks_when(question) and (when := quotes[0].said_on) and when not in answer:
        answer = f"{when}: {answer}" if answer else when
        answer += f" (the date of the message quoted, #{quotes[0].document_id})"
    lines = [answer, *(f"- {cite(q)}" for q in quotes)]
    return "\n".join(lines), quotes


def _silent(passages: Sequence[ShownPassage]) -> str:
    near = [f"- #{p.document_id} {p.name}{', ' + p.dates if p.dates else ''}" for p in passages[:3]]
    more = "\nThe nearest passages:\n" + "\n".join(near) if near else ""
    return (
        f"{SILENT}{more}\nIf you know, tell me, and I'll keep it; or say “add it to my open "
        "questions”."
    )
