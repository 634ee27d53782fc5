"""The reader's notes as the mirror reads them: dated, whose words, which chat; which carry
signs of crisis (the mirror then shows where to find help); and the intentions in the
owner's own words that nothing in the sources follows (each can become a question)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date

import numpy as np
import numpy.typing as npt

from biomd.app.mirror.care import crisis
from biomd.app.mirror.dynamics import person_key
from biomd.app.mirror.findings import stamp
from biomd.app.mirror.lines import single_day
from biomd.app.mirror.measured import MeasuredSide
from biomd.biographer.cues import INTENTION, subjects
from biomd.ingest.convert import chat_kinds
from biomd.storage.store import Store

RELATED = 0.5  # cosine of a note and what followed an intention
FOLLOW_DAYS = 365  # what followed an intention: the year after it

Vectors = dict[int, npt.NDArray[np.float32]]


@dataclass(frozen=True, slots=True)
class DatedNote:
    """A reader's note as the mirror reads it. `day` is the ordinal of its date (a month
    counts as its 15th, a year as 1 July), None if undated; `mine` says the owner says it
    (a journal, or the owner's line of a chat); `chat_with` is the person whose 1:1 chat it
    comes from, by key."""

    id: int
    source_id: int
    kind: str
    statement: str
    quote: str
    start: int
    end: int
    date: str
    day: int | None
    precise: bool
    people: tuple[str, ...]  # person keys
    names: tuple[str, ...]  # as written
    mine: bool = True
    chat_with: str | None = None

    @property
    def text(self) -> str:
        return f"{self.statement} {self.quote}"


@dataclass
class NotesView:
    """Every note as the mirror reads it: their vectors, and those with signs of crisis."""

    notes: dict[int, DatedNote]
    vectors: Vectors
    crisis: set[int]


class MirrorNotes:
    def __init__(self, store: Store, measured: MeasuredSide) -> None:
        self.store = store
        self.measured = measured

    async def view(self) -> NotesView:
        """Every note of a ready source, dated, with whose words and which chat it is."""
        stored = await self.store.notes.of_ready()
        docs = {d.id: d for d in await self.store.documents.all("ready")}
        measured = await self.measured.get()
        notes: dict[int, DatedNote] = {}
        for x in stored:
            doc = docs.get(x.document_id)
            if doc is None:
                continue
            mine, chat_with, line_day = True, None, None
            parsed = measured.parsed.get(x.document_id)
            if parsed is not None and parsed.size:
                a = parsed.arrays
                i = int(np.searchsorted(a["start"], x.start, side="right")) - 1
                if i >= 0:
                    mine = bool(a["owner"][i])
                    conv = parsed.chats[int(a["chat"][i])]
                    if conv.owner_messages and len(conv.speakers) == 1:
                        chat_with = person_key(conv.others[0])
                    line_day = stamp(int(a["minute"][i]))[:10]
            elif doc.kind in chat_kinds():
                mine = False
            note_date = x.date or line_day or single_day(doc.content_start, doc.content_end)
            day, precise = day_of(note_date)
            notes[x.id] = DatedNote(
                id=x.id,
                source_id=x.document_id,
                kind=x.kind,
                statement=x.statement,
                quote=x.quote,
                start=x.start,
                end=x.end,
                date=note_date or "",
                day=day,
                precise=precise,
                people=tuple(person_key(p) for p in x.people),
                names=x.people,
                mine=mine,
                chat_with=chat_with,
            )
        vectors = {
            i: np.frombuffer(b, dtype="<f4")
            for i, b in await self.store.notes.vectors()
            if i in notes
        }
        care = {i for i, n in notes.items() if crisis(n.text)}
        return NotesView(notes, vectors, care)


def day_of(value: str | None) -> tuple[int | None, bool]:
    """A note's date as an ordinal day, and whether it is precise to the day."""
    if not value:
        return None, False
    try:
        if len(value) >= 10:
            return date.fromisoformat(value[:10]).toordinal(), True
        if len(value) >= 7:
            return date(int(value[:4]), int(value[5:7]), 15).toordinal(), False
        return date(int(value[:4]), 7, 1).toordinal(), False
    except ValueError:
        return None, False


def open_intentions(notes: Sequence[DatedNote], vectors: Vectors) -> list[DatedNote]:
    """The intentions in the owner's own words (the quote, not only the reader's summary: a
    small reader summarised a chat's heading "WhatsApp chat: Leo" as a plan) that nothing
    on the same subject follows in the year after, oldest first."""
    dated = sorted((n for n in notes if n.day is not None), key=lambda n: n.day or 0)
    said = [n for n in dated if n.mine and _intends(n.quote) and n.kind != "gap"]
    return [s for s in said if not any(_follows(s, n, vectors) for n in dated)]


_NOT_WANTED = re.compile(
    r"\b(?:never|don'?t|do not|no longer)\s+wants?\s+to\b"  # en
    r"|\b(?:nunca mais|não|nao) quero\b|\b(?:nunca|no) quiero\b"  # pt, es
    r"|\bwill (?:nie|nicht)\b|\bne veux (?:plus|pas|jamais)\b",  # de, fr
    re.I,
)


def _intends(quote: str) -> bool:
    """Whether a quote says the owner will do something: "I never want to live in London
    again" is how they feel, not a plan to check on."""
    return INTENTION(_NOT_WANTED.sub(" ", quote))


def _follows(said: DatedNote, n: DatedNote, vectors: Vectors) -> bool:
    """Whether a note tells what followed an intention: later, within the year, close to
    it, about the same people and subject, and not another promise."""
    return (
        n.id != said.id
        and 0 < (n.day or 0) - (said.day or 0) <= FOLLOW_DAYS
        and _cos(vectors, said.id, n.id) >= RELATED
        and (not said.people or bool(set(said.people) & set(n.people)))
        and not INTENTION(n.text)
        and bool(subjects(said.quote) & subjects(n.quote))
    )


def _cos(vectors: Vectors, a: int, b: int) -> float:
    va, vb = vectors.get(a), vectors.get(b)
    if va is None or vb is None:
        return 0.0
    denominator = float(np.linalg.norm(va) * np.linalg.norm(vb)) or 1.0
    return float(va @ vb) / denominator
