"""Findings: the shifts that matter in each person's series and in the owner's late-night
rhythm, each said in one plain sentence, with its period and value before and after, and
real messages from each side as evidence (verbatim, with their source and exact span)."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import UTC, datetime

import numpy as np

from biomd.app.mirror.dynamics import (
    BoolArray,
    Dynamics,
    Events,
    FloatArray,
    IntArray,
    month_name,
)
from biomd.app.mirror.shifts import Rule, Shift, shifts
from biomd.plural import counted

QUOTE_CHARS = 200  # the longest quote of a message; a longer one is cut at a space
PER_SIDE = 2  # messages of evidence on each side


@dataclass(frozen=True, slots=True)
class Metric:
    """A series the mirror watches: which events, which value of each, and its rule."""

    kind: str
    unit: str  # seconds, characters or share
    pick: Callable[[Events], tuple[BoolArray, FloatArray]]
    rule: Rule
    person: bool = True  # one series per person; else one for the whole corpus


def _delays(owner: bool) -> Callable[[Events], tuple[BoolArray, FloatArray]]:
    def pick(e: Events) -> tuple[BoolArray, FloatArray]:
        side = e.owner if owner else ~e.owner
        return side & ~np.isnan(e.delay), e.delay

    return pick


def _lengths(owner: bool) -> Callable[[Events], tuple[BoolArray, FloatArray]]:
    def pick(e: Events) -> tuple[BoolArray, FloatArray]:
        side = e.owner if owner else ~e.owner
        return side & (e.chars >= 0), e.chars.astype(np.float64)

    return pick


def _starts(e: Events) -> tuple[BoolArray, FloatArray]:
    return e.starts, e.owner.astype(np.float64)


def _late(e: Events) -> tuple[BoolArray, FloatArray]:
    return e.owner, e.late.astype(np.float64)


DELAY = Rule(ratio=3.0, floor=60.0, min_events=12)
LENGTH = Rule(ratio=2.0, floor=1.0, min_events=20)
STARTS = Rule(points=0.25, min_events=20)
LATE = Rule(points=0.10, share_ratio=2.0, min_events=30)

METRICS: tuple[Metric, ...] = (
    Metric("reply_delay_owner", "seconds", _delays(True), DELAY),
    Metric("reply_delay_them", "seconds", _delays(False), DELAY),
    Metric("length_owner", "characters", _lengths(True), LENGTH),
    Metric("length_them", "characters", _lengths(False), LENGTH),
    Metric("starts", "share", _starts, STARTS),
    Metric("late_night", "share", _late, LATE, person=False),
)
KINDS = tuple(m.kind for m in METRICS)


@dataclass(frozen=True, slots=True)
class Stretch:
    first: str  # YYYY-MM
    last: str
    value: float
    events: int

    def as_json(self) -> dict[str, object]:
        return {"from": self.first, "to": self.last, "value": round(self.value, 3)}


@dataclass(frozen=True, slots=True)
class Quote:
    """A real message: its text as the source has it, at [start, end) of source `source_id`."""

    source_id: int
    start: int
    end: int
    quote: str
    date: str  # YYYY-MM-DD HH:MM, the message's own stamp
    side: str  # before or after
    note: str = ""  # what it shows ("answered 3 h 5 min after Maya's message")
    to: Quote | None = None  # for a reply: the message it answers

    def as_json(self) -> dict[str, object]:
        out: dict[str, object] = {
            "source_id": self.source_id,
            "start": self.start,
            "end": self.end,
            "quote": self.quote,
            "date": self.date,
            "side": self.side,
            "note": self.note,
        }
        if self.to is not None:
            out["replying_to"] = {
                k: v for k, v in self.to.as_json().items() if k not in ("side", "note")
            }
        return out


@dataclass(frozen=True, slots=True)
class Finding:
    id: str
    kind: str
    person: str | None
    person_key: str | None
    statement: str
    before: Stretch
    after: Stretch
    unit: str
    up: bool
    z: float
    evidence: tuple[Quote, ...]
    sources: tuple[int, ...]
    status: str = "new"
    answers: tuple[int, ...] = ()

    @property
    def month(self) -> str:
        """Where the change is: the first month after it."""
        return self.after.first

    @property
    def direction(self) -> str:
        return "up" if self.up else "down"

    def as_json(self) -> dict[str, object]:
        return {
            "id": self.id,
            "kind": self.kind,
            "person": self.person,
            "statement": self.statement,
            "before": self.before.as_json(),
            "after": self.after.as_json(),
            "unit": self.unit,
            "direction": self.direction,
            "evidence": [q.as_json() for q in self.evidence],
            "sources": list(self.sources),
            "status": self.status,
            "answers": list(self.answers),
        }


def finding_id(kind: str, person_key: str | None, up: bool, month: str) -> str:
    raw = f"{kind}|{person_key or ''}|{'up' if up else 'down'}|{month}"
    return "F" + hashlib.sha1(raw.encode("utf-8")).hexdigest()[:8]


def find(dynamics: Dynamics) -> list[Finding]:
    """Every finding, for every person and the corpus, strongest first."""
    found: list[Finding] = []
    for metric in METRICS:
        if metric.person:
            for p in dynamics.people:
                found += _of_series(metric, p.events, p.name, p.key)
        else:
            found += _of_series(metric, dynamics.owner, None, None)
    found.sort(key=lambda f: (-abs(f.z), f.id))
    return found


def _of_series(metric: Metric, events: Events, name: str | None, key: str | None) -> list[Finding]:
    mask, values = metric.pick(events)
    chosen = events.take(mask)
    series = values[mask]
    # for a reply, where in `events` the message it answers is: the one before it in time (a
    # delay is measured within one conversation); only the few quoted are ever looked up
    answered = np.flatnonzero(mask) - 1 if metric.unit == "seconds" else None
    out = []
    last = month_name(int(events.month.max())) if events.size else ""
    for shift in shifts(chosen.month, chosen.minute // 1440, series, metric.rule):
        before = _period(shift, "before")
        after = _period(shift, "after")
        evidence = tuple(
            _evidence(metric, chosen, series, shift, "before", name, events, answered)
            + _evidence(metric, chosen, series, shift, "after", name, events, answered)
        )
        finding = Finding(
            id=finding_id(metric.kind, key, shift.up, after.first),
            kind=metric.kind,
            person=name,
            person_key=key,
            statement="",
            before=before,
            after=after,
            unit=metric.unit,
            up=shift.up,
            z=shift.z,
            evidence=evidence,
            sources=tuple(sorted({q.source_id for q in evidence} | _sources(chosen, shift))),
        )
        out.append(replace(finding, statement=statement(finding, ongoing=after.last == last)))
    return out


def _sources(e: Events, shift: Shift) -> set[int]:
    inside = (e.month >= shift.before.first) & (e.month <= shift.after.last)
    return {int(d) for d in np.unique(e.doc[inside])}


def _period(shift: Shift, side: str) -> Stretch:
    s = shift.before if side == "before" else shift.after
    return Stretch(month_name(s.first), month_name(s.last), s.value, s.events)


def _evidence(
    metric: Metric,
    e: Events,
    values: FloatArray,
    shift: Shift,
    side: str,
    name: str | None,
    events: Events | None = None,
    answered: IntArray | None = None,
) -> list[Quote]:
    """Real messages of one side that show its typical value, best first: one next to the
    change and one far from it, from different months where it can; more than PER_SIDE, so
    that the quoting can skip one whose text does not verify or repeats another's. A reply
    comes with the message it answers."""
    s = shift.before if side == "before" else shift.after
    inside = np.flatnonzero((e.month >= s.first) & (e.month <= s.last) & (e.length > 0))
    if metric.unit == "share":
        wanted = 1.0 if s.value >= 0.5 else 0.0
        if metric.kind == "late_night":
            wanted = 1.0 if shift.up == (side == "after") else 0.0
        distance = np.abs(values[inside] - wanted)
    else:
        distance = np.abs(np.log1p(np.maximum(values[inside], 0)) - np.log1p(s.value))
    usable = e.chars[inside] >= 2
    toward_change = -e.minute[inside] if side == "before" else e.minute[inside]
    closest = inside[np.lexsort((toward_change, distance, ~usable))][:TYPICAL]
    picked = _near_and_far(e, closest, near_end=side == "before", wanted=CANDIDATES)
    return [
        replace(
            _quote(e, i, side),
            note=_note(metric, e, values, i, name),
            to=_to(events, answered, e, i),
        )
        for i in picked
    ]


CANDIDATES = 3 * PER_SIDE  # messages offered a side, best first; PER_SIDE are quoted


def _quote(e: Events, i: int, side: str) -> Quote:
    return Quote(
        source_id=int(e.doc[i]),
        start=int(e.start[i]),
        end=int(e.start[i]) + int(e.length[i]),  # cut to the quote when the text is read
        quote="",
        date=stamp(int(e.minute[i])),
        side=side,
    )


def _to(events: Events | None, answered: IntArray | None, e: Events, i: int) -> Quote | None:
    """The message reply `i` of `e` answers (at `answered[i]` of `events`), if it has text
    and is in the same source."""
    if events is None or answered is None or answered[i] < 0:
        return None
    j = int(answered[i])
    if events.length[j] <= 0 or events.doc[j] != e.doc[i]:
        return None
    return _quote(events, j, "")


TYPICAL = 30  # the messages closest to a side's value that the evidence is chosen from


def _near_and_far(e: Events, typical: np.ndarray, near_end: bool, wanted: int) -> list[int]:
    """Of a side's typical messages, `wanted` of them: one next to the change, one far from
    it, then the others nearest the change, from different months where they can be."""
    by_time = sorted((int(i) for i in typical), key=lambda i: int(e.minute[i]))
    if near_end:
        by_time.reverse()
    picked: list[int] = []
    for i in (by_time[0], by_time[-1], *by_time) if by_time else ():
        if i in picked or any(int(e.month[i]) == int(e.month[j]) for j in picked):
            continue
        picked.append(i)
        if len(picked) == wanted:
            break
    for i in by_time:  # too few months: take what there is
        if len(picked) == wanted:
            break
        if i not in picked:
            picked.append(i)
    return picked


def stamp(minute: int) -> str:
    return datetime.fromtimestamp(minute * 60, UTC).strftime("%Y-%m-%d %H:%M")


def _note(metric: Metric, e: Events, values: FloatArray, i: int, name: str | None) -> str:
    who = "you" if e.owner[i] else (name or "they")
    if metric.unit == "seconds":
        other = f"{name}'s" if e.owner[i] and name else "your"
        return f"{who} answered {duration(float(values[i]))} after {other} message"
    if metric.unit == "characters":
        return counted(int(e.chars[i]), "character")
    if metric.kind == "starts":
        return f"{who} opened the conversation"
    return f"written at {stamp(int(e.minute[i]))[11:]}"


def cut(text: str, limit: int = QUOTE_CHARS) -> str:
    """A message's text as quoted: whole, or cut at the last space before `limit`."""
    if len(text) <= limit:
        return text
    space = text.rfind(" ", limit // 2, limit)
    return text[: space if space > 0 else limit]


def duration(seconds: float) -> str:
    """3 min, 2 h 5 min, 3 days."""
    minutes = round(seconds / 60)
    if minutes < 1:
        return "under a minute"
    if minutes < 60:
        return f"{minutes} min"
    hours, rest = divmod(minutes, 60)
    if hours < 24:
        return f"{hours} h {rest} min" if rest else f"{hours} h"
    days = hours / 24
    return f"{days:.1f} days" if days < 10 else f"{round(days)} days"


def _month(name: str) -> str:
    return datetime.strptime(name, "%Y-%m").strftime("%B %Y")


def _value(f: Finding, period: Stretch) -> str:
    if f.unit == "seconds":
        return duration(period.value)
    if f.unit == "characters":
        return counted(round(period.value), "character")
    return f"{round(period.value * 100)}%"


def statement(f: Finding, ongoing: bool) -> str:
    """The finding in one plain sentence: behaviour and numbers, nothing about motives."""
    when = (
        f"Since {_month(f.after.first)}"
        if ongoing
        else f"From {_month(f.after.first)} to {_month(f.after.last)}"
    )
    now, then = _value(f, f.after), _value(f, f.before)
    name = f.person or ""
    more = "longer" if f.up else "less time"
    texts = {
        "reply_delay_owner": (
            f"you take much {more} to answer {name}: a median of {now}, against {then} before"
        ),
        "reply_delay_them": (
            f"{name} takes much {more} to answer you: a median of {now}, against {then} before"
        ),
        "length_owner": (
            f"your messages to {name} are much {'longer' if f.up else 'shorter'}: a median of "
            f"{now}, against {then} before"
        ),
        "length_them": (
            f"{name}'s messages to you are much {'longer' if f.up else 'shorter'}: a median of "
            f"{now}, against {then} before"
        ),
        "starts": (
            f"you start {'more' if f.up else 'fewer'} of your conversations with {name}: "
            f"{now} of them, against {then} before"
        ),
        "late_night": (
            f"you write {'far more' if f.up else 'much less'} late at night (midnight to 4 am): "
            f"{now} of your messages, against {then} before"
        ),
    }
    return f"{when}, {texts[f.kind]}."
