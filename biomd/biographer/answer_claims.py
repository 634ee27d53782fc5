"""What an answer names, held to the quotes it rests on (answer_check.py): the date of an
answer to a question about time (biomd's, computed from the quote, wins over the model's),
and the names and numbers it adds to its question, each of which a quote must hold; and a
quote as found in its passage (Backed), with the date it names. Pure functions."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date

from biomd.fold import fold
from biomd.retrieval.relative import WEEKDAYS, resolve
from biomd.retrieval.when import MONTHS

STAMP = re.compile(r"^\[(\d{4}-\d{2}-\d{2})(?:[ T](\d{2}:\d{2}))?\]\s*")
_NAMED = re.compile(
    r"\((\d{4}-\d{2}(?:-\d{2})?(?: to \d{4}-\d{2}-\d{2})?|week of \d{4}-\d{2}-\d{2})\)"
)


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
        """When what the quote names happened: the date a relative time in its line names
        ("last Friday" on its message's day; "last weekend" a range), else the line's
        date."""
        if not self.day:
            return ""
        try:
            said = date.fromisoformat(self.day[:10])
        except ValueError:
            return self.day
        text = STAMP.sub("", self.line) if self.quote in self.line else self.quote
        named = _NAMED.search(resolve(text, said))
        return named.group(1) if named else self.day


def sentences(text: str) -> list[str]:
    """A text cut into its sentences and lines."""
    return re.split(r"(?<=[.!?])\s+|\n", text)


_MONTH = "|".join(sorted(MONTHS, key=len, reverse=True))  # "september", "sept", "sep"
_MONTH_IN = r"(?P<{0}>" + _MONTH + r")\.?"
_ORDINAL = r"(?:st|nd|rd|th)?"
_DATE_IN = re.compile(
    r"\b(?P<iso>\d{4}-\d{2}(?:-\d{2})?)\b"
    rf"|\b(?P<d1>\d{{1,2}}){_ORDINAL}(?: of)? {_MONTH_IN.format('m1')}(?:,? (?P<y1>\d{{4}}))?\b"
    rf"|\b{_MONTH_IN.format('m2')} (?P<d2>\d{{1,2}}){_ORDINAL}(?:,? (?P<y2>\d{{4}}))?\b"
    rf"|\b{_MONTH_IN.format('m3')},? (?P<y3>\d{{4}})\b",
    re.I,
)


def _named(m: re.Match[str], year: str) -> str:
    """A date found in an answer, as ISO to its precision ("2023-07-14", "2023-07")."""
    if m["iso"]:
        return m["iso"]
    number = MONTHS[next(m[k] for k in ("m1", "m2", "m3") if m[k]).lower()]
    y = m["y1"] or m["y2"] or m["y3"] or year
    d = m["d1"] or m["d2"]
    return f"{y}-{number:02d}-{int(d):02d}" if d else f"{y}-{number:02d}"


def _agrees(named: str, when: str) -> bool:
    """Whether a date an answer names is the one biomd computed (a day, a range of days, a
    week, a month or a year)."""
    if " to " in when:
        first, last = when.split(" to ")
        return first <= named[:10] <= last or named == first[:7]
    if when.startswith("week of "):
        monday = date.fromisoformat(when[8:])
        return named[:7] == when[8:15] or any(
            named == str(monday.fromordinal(monday.toordinal() + i)) for i in range(7)
        )
    return named.startswith(when)  # "July 2023" for 2023-07-14 is not precise enough


def dated(answer: str, quote: Backed) -> str:
    """The answer to a question about time with biomd's date, computed from the quote: kept
    where the model named it; put in place of a date the model got wrong, or before an
    answer that names none; and whence it comes."""
    when = quote.said_on
    if not when:
        return answer
    found = list(_DATE_IN.finditer(answer))
    for m in found:
        if _agrees(_named(m, when[:4]), when):  # right; with its year, for years later
            year = m["iso"] or m["y1"] or m["y2"] or m["y3"]
            return answer if year else f"{answer[: m.start()]}{when}{answer[m.end() :]}"
    if found:
        m = found[0]
        start = m.start()
        if answer[:start].endswith("week of "):
            start -= len("week of ")  # the model's week, all of it: not "week of week of"
        answer = f"{answer[:start]}{when}{answer[m.end() :]}"
    else:
        answer = f"{when}: {answer}" if answer else when
    whence = (
        f"the date of the message quoted, #{quote.document_id}"
        if when == quote.day
        else f"from the message of {quote.day}, #{quote.document_id}"
    )
    return f"{answer} ({whence})"


_NUMBER_WORDS = "zero one two three four five six seven eight nine ten eleven twelve".split()
CALENDAR = frozenset([*MONTHS, *WEEKDAYS])
"""Month and weekday names, folded: capitalised words that are no one's name."""


def terms(answer: str, question: str) -> list[str]:
    """What an answer names that its question doesn't: names (capitalised words inside a
    sentence) and numbers, each once; dates are `dated`'s."""
    asked = {fold(w) for w in re.findall(r"\w+", question)}
    found: list[str] = []
    cited = re.sub(r"\[[^\]\n]*(?:#\d+|chat \d{4}-\d{2}-\d{2})[^\]\n]*\]", " ", answer)
    for sentence in sentences(_DATE_IN.sub(" ", cited)):  # citations are not names
        words = re.findall(r"[\w'’-]+", sentence)
        for w in (re.sub(r"['’][sS]$", "", w.strip("'’-")) for w in words[1:]):  # "John's"
            if (w[:1].isupper() or w.isdigit()) and fold(w) not in asked | CALENDAR:
                found.append(w)
    return list(dict.fromkeys(w for w in found if w != "I" and not w.startswith("I'")))


def unquoted(named: Sequence[str], quotes: Sequence[Backed]) -> list[str]:
    """The names and numbers an answer adds (`terms`) that none of its quotes' lines holds."""
    said = fold(" ".join(f"{q.line} {q.day}" for q in quotes))
    out = []
    for term in named:
        spelled = _NUMBER_WORDS[int(term)] if term.isdigit() and int(term) < 13 else ""
        if not re.search(rf"\b{re.escape(fold(term))}", said) and not (
            spelled and re.search(rf"\b{spelled}\b", said)
        ):
            out.append(term)
    return out
