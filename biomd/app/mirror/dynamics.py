"""The measured side of the mirror: per person the owner writes with one to one, and per
calendar month, what the messages themselves show. The definitions:

- A *conversation* starts with a chat's first message, or with a message after at least
  `silence_hours` (6) of silence in that chat; its *starter* is that message's sender.
- A *reply delay* is the time from the other side's message to the next message, when that
  one is the other side's answer within the same conversation. The owner's and the other
  person's are kept apart; each month gives the median of the replies sent in it.
- A message's *length* is its characters (a line break counts one); media placeholders
  ("[image omitted]") have none and are left out of the medians, not of the counts.
- *Late night* is 00:00–03:59 by the message's own time stamp (the owner's local time).
- A *double text* is two or more of the owner's messages in a row with no reply between
  them; a run counts once, in the month of its second message.

Only 1:1 chats make a person's series: in a group chat "a reply" and "who started" have no
clear meaning, so group chats are left out with that reason, and count only in the owner's
late-night rhythm. A chat where no line is marked as the owner's is left out too. One person
in several sources (a WhatsApp and a Telegram export) is one person, by folded name."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from biomd.app.mirror.messages import Ints, ParsedChats
from biomd.fold import fold

IntArray = Ints
FloatArray = npt.NDArray[np.floating[Any]]
BoolArray = npt.NDArray[np.bool_]

LATE_FROM, LATE_TO = 0, 4  # hours: late night is [00:00, 04:00)
EPOCH_YEAR = 1970


def month_name(index: int) -> str:
    """Months since 1970-01 as YYYY-MM."""
    return f"{EPOCH_YEAR + index // 12:04d}-{index % 12 + 1:02d}"


def month_index(name: str) -> int:
    """YYYY-MM (or a longer date) as months since 1970-01."""
    return (int(name[:4]) - EPOCH_YEAR) * 12 + int(name[5:7]) - 1


def person_key(name: str) -> str:
    """The same person whatever the case, accents and spacing of their name."""
    return " ".join(fold(name).split())


@dataclass(frozen=True, slots=True)
class MonthFigures:
    """One month of one person's chats with the owner (the JSON field names)."""

    month: str
    messages_owner: int
    messages_them: int
    started_owner: int
    started_them: int
    reply_median_owner_s: float | None
    reply_median_them_s: float | None
    chars_median_owner: float | None
    chars_median_them: float | None
    late_night_owner: int
    double_texts_owner: int


@dataclass
class Events:
    """Messages with what the mirror derived of each, in time order: one array a field."""

    minute: IntArray
    month: IntArray
    owner: BoolArray
    chars: IntArray
    starts: BoolArray  # opens a conversation
    delay: FloatArray  # seconds since the other side's message it answers; nan if none
    late: BoolArray
    double: BoolArray  # the second message of a run of the owner's
    doc: IntArray
    start: IntArray
    length: IntArray

    @classmethod
    def empty(cls) -> Events:
        z = np.zeros(0, np.int64)
        b = np.zeros(0, np.bool_)
        return cls(z, z, b, z, b, np.zeros(0), b, b, z, z, z)

    @property
    def size(self) -> int:
        return int(self.minute.size)

    def take(self, mask: BoolArray | IntArray) -> Events:
        return Events(*(getattr(self, f)[mask] for f in _FIELDS))

    @classmethod
    def join(cls, parts: Sequence[Events]) -> Events:
        """Several chats' events as one, in time order."""
        if not parts:
            return cls.empty()
        if len(parts) == 1:
            return parts[0]  # already in time order: no copy
        joined = cls(*(np.concatenate([getattr(p, f) for p in parts]) for f in _FIELDS))
        return joined.take(np.argsort(joined.minute, kind="stable"))


_FIELDS = tuple(Events.__dataclass_fields__)


@dataclass(frozen=True, slots=True)
class LeftOut:
    """A conversation that makes no person's series, and why."""

    source_id: int
    chat: str
    reason: str


@dataclass
class PersonDynamics:
    name: str
    key: str
    sources: tuple[int, ...]
    months: list[MonthFigures]
    events: Events


@dataclass
class Dynamics:
    """Everyone's series, the owner's messages in every chat (for the late-night rhythm),
    and the conversations left out."""

    people: list[PersonDynamics]
    owner: Events
    left_out: list[LeftOut] = field(default_factory=list)

    def person(self, key: str) -> PersonDynamics | None:
        return next((p for p in self.people if p.key == key), None)

    def rhythm(self) -> list[Rhythm]:
        """The owner's messages and late-night messages per month, over every chat."""
        e = self.owner
        if not e.size:
            return []
        sent = _count(e.month, e.owner)
        late = _count(e.month, e.late)
        return [
            Rhythm(month_name(m), sent.get(m, 0), late.get(m, 0))
            for m in range(int(e.month.min()), int(e.month.max()) + 1)
        ]


@dataclass(frozen=True, slots=True)
class Rhythm:
    """One month of the owner's writing, in every chat (1:1 and groups)."""

    month: str
    messages_owner: int
    late_night_owner: int


def derive(
    minute: IntArray, owner: BoolArray, silence_minutes: int
) -> tuple[BoolArray, FloatArray, BoolArray, BoolArray]:
    """What each message of one conversation (in time order) is: whether it starts a
    conversation, the reply delay it ends (nan if none), whether it is the second message of
    a run of the owner's, and whether the owner wrote it late at night."""
    n = minute.size
    gap = np.diff(minute, prepend=minute[:1])
    starts = np.ones(n, np.bool_)
    starts[1:] = gap[1:] >= silence_minutes
    prev_owner = np.zeros(n, np.bool_)
    prev_owner[1:] = owner[:-1]
    same_side = np.zeros(n, np.bool_)
    same_side[1:] = owner[1:] == owner[:-1]
    replies = ~starts & ~same_side
    replies[:1] = False
    delay = np.where(replies, gap * 60.0, np.nan).astype(np.float32)
    before_prev = np.zeros(n, np.bool_)
    before_prev[2:] = owner[:-2]
    double = owner & prev_owner & ~before_prev
    hour = (minute // 60) % 24
    late = owner & (hour >= LATE_FROM) & (hour < LATE_TO)
    return starts, delay, double, late


def _months_of(minute: IntArray) -> IntArray:
    months: IntArray = minute.astype("datetime64[m]").astype("datetime64[M]").astype(np.int32)
    return months


def conversation_events(doc_id: int, parsed: ParsedChats, chat: int, silence: int) -> Events:
    """The events of one conversation of a source."""
    a = parsed.arrays
    idx = np.flatnonzero(a["chat"] == chat)
    idx = idx[np.argsort(a["minute"][idx], kind="stable")]
    minute = a["minute"][idx]
    owner = a["owner"][idx].astype(np.bool_)
    starts, delay, double, late = derive(minute, owner, silence)
    return Events(
        minute=minute,
        month=_months_of(minute),
        owner=owner,
        chars=a["chars"][idx],
        starts=starts,
        delay=delay,
        late=late,
        double=double,
        doc=np.full(idx.size, doc_id, np.int32),
        start=a["start"][idx],
        length=a["length"][idx],
    )


def measure(sources: Sequence[tuple[int, ParsedChats]], silence_hours: float = 6.0) -> Dynamics:
    """Every person's monthly figures from these sources' chats."""
    silence = max(1, round(silence_hours * 60))
    by_person: dict[str, list[Events]] = {}
    names: dict[str, Counter[str]] = {}
    docs: dict[str, set[int]] = {}
    owner_parts: list[Events] = []
    left: list[LeftOut] = []
    for doc_id, parsed in sources:
        for i, conv in enumerate(parsed.chats):
            total = conv.owner_messages + sum(conv.speakers.values())
            if not total:
                continue
            events = conversation_events(doc_id, parsed, i, silence)
            if not events.size:
                continue
            owner_parts.append(events.take(events.owner))
            title = conv.title or f"source #{doc_id}"
            if conv.owner_messages == 0:
                left.append(LeftOut(doc_id, title, _unmarked(conv.others)))
                continue
            others = conv.others
            if len(others) != 1:
                reason = (
                    "nobody else writes in it"
                    if not others
                    else f"a group chat ({len(others) + 1} people): replies and who starts "
                    "have no clear meaning there, so it counts only in your late-night rhythm"
                )
                left.append(LeftOut(doc_id, title, reason))
                continue
            key = person_key(others[0])
            by_person.setdefault(key, []).append(events)
            names.setdefault(key, Counter())[others[0]] += conv.speakers[others[0]]
            docs.setdefault(key, set()).add(doc_id)
    people = []
    for key, parts in by_person.items():
        events = Events.join(parts)
        people.append(
            PersonDynamics(
                name=names[key].most_common(1)[0][0],
                key=key,
                sources=tuple(sorted(docs[key])),
                months=monthly(events),
                events=events,
            )
        )
    people.sort(key=lambda p: (-p.events.size, p.key))
    return Dynamics(people, Events.join(owner_parts), left)


def _unmarked(names: list[str]) -> str:
    shown = ", ".join(names[:4]) + (" …" if len(names) > 4 else "")
    return (
        "none of its lines is marked as yours, so replies can't be told apart: set "
        f"BIOMD_OWNER_NAMES to your name as it appears there (names in it: {shown})"
    )


def grouped_median(keys: IntArray, values: FloatArray) -> dict[int, float]:
    """The median of `values` for each key (nan values left out)."""
    keep = ~np.isnan(values)
    keys, values = keys[keep], values[keep]
    if not keys.size:
        return {}
    order = np.lexsort((values, keys))
    keys, values = keys[order], values[order]
    uniq, first, counts = np.unique(keys, return_index=True, return_counts=True)
    lo = first + (counts - 1) // 2
    hi = first + counts // 2
    medians = (values[lo] + values[hi]) / 2.0
    return {int(k): float(m) for k, m in zip(uniq, medians, strict=True)}


def _count(keys: IntArray, mask: BoolArray) -> dict[int, int]:
    uniq, counts = np.unique(keys[mask], return_counts=True)
    return {int(k): int(c) for k, c in zip(uniq, counts, strict=True)}


def monthly(e: Events) -> list[MonthFigures]:
    """One row a calendar month, from the first message's month to the last's (months with
    no message are kept: a silence is part of the picture)."""
    if not e.size:
        return []
    mine, theirs = e.owner, ~e.owner
    counted = e.chars >= 0
    chars = e.chars.astype(np.float64)
    no_chars = np.where(counted, chars, np.nan)
    figures = {
        "messages_owner": _count(e.month, mine),
        "messages_them": _count(e.month, theirs),
        "started_owner": _count(e.month, mine & e.starts),
        "started_them": _count(e.month, theirs & e.starts),
        "late_night_owner": _count(e.month, e.late),
        "double_texts_owner": _count(e.month, e.double),
    }
    medians = {
        "reply_median_owner_s": grouped_median(e.month, np.where(mine, e.delay, np.nan)),
        "reply_median_them_s": grouped_median(e.month, np.where(theirs, e.delay, np.nan)),
        "chars_median_owner": grouped_median(e.month, np.where(mine, no_chars, np.nan)),
        "chars_median_them": grouped_median(e.month, np.where(theirs, no_chars, np.nan)),
    }
    rows = []
    for m in range(int(e.month.min()), int(e.month.max()) + 1):
        counts = {k: v.get(m, 0) for k, v in figures.items()}
        meds = {k: v.get(m) for k, v in medians.items()}
        rows.append(MonthFigures(month_name(m), **counts, **meds))  # type: ignore[arg-type]
    return rows
