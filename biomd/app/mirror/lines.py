"""The owner's own lines, as the mirror's rules read them: each message the owner wrote in a
chat (to whom, when), and each sentence of a source that is the owner's alone and dated to
one day (a journal entry, a voice note). A line is an exact span of its source, so what a
pattern quotes is verified like a note. Pure functions; the text comes from the caller."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date

import numpy as np

from biomd.app.mirror.dynamics import person_key
from biomd.app.mirror.messages import NEWLINE_MARK, ChatThread, ParsedChats

JOURNAL = ""  # `Line.to` of a line written to nobody: a journal, a note to self
SHORTEST = 12  # characters: "ok", "haha", "see you" say nothing a pattern can rest on
LONGEST = 600  # characters of a line kept (a long message is cut at a sentence's end)

_SENTENCE = re.compile(r"[^\s#>*\-][^\n.!?]*(?:[.!?]+|$)", re.M)
_MINUTES_PER_DAY = 24 * 60


@dataclass(frozen=True, slots=True)
class Line:
    """One thing the owner wrote: `text` is `source_id`'s text at [start, end); `day` the
    ordinal of its date; `to` the person it was written to, as written (`JOURNAL` for
    nobody; a group chat's title for a group, with `group` set)."""

    source_id: int
    start: int
    end: int
    text: str
    day: int
    to: str = JOURNAL
    group: bool = False

    @property
    def date(self) -> str:
        return date.fromordinal(self.day).isoformat()

    @property
    def to_key(self) -> str:
        return person_key(self.to) if self.to and not self.group else ""

    @property
    def span(self) -> tuple[int, int, int]:
        return (self.source_id, self.start, self.end)


def owner_spans(parsed: ParsedChats) -> list[int]:
    """The indices of the owner's messages worth reading: text, not media, not a word or two."""
    a = parsed.arrays
    if not parsed.size:
        return []
    keep = (a["owner"] == 1) & (a["chars"] >= SHORTEST)
    return [int(i) for i in np.nonzero(keep)[0]]


def chat_lines(
    source_id: int, parsed: ParsedChats, indices: Sequence[int], texts: Sequence[str]
) -> list[Line]:
    """The owner's messages `indices` of a chat source, whose texts are `texts`; each to the
    one other person of its conversation, or to the group."""
    a = parsed.arrays
    whom = [_whom(conv) for conv in parsed.chats]  # once a conversation, not once a message
    picked = np.asarray(indices, dtype=np.int64)
    chats, starts = a["chat"][picked].tolist(), a["start"][picked].tolist()
    days = (a["minute"][picked] // _MINUTES_PER_DAY + _EPOCH).tolist()
    out = []
    for chat, start, day, text in zip(chats, starts, days, texts, strict=True):
        to, group = whom[chat]
        text, end = _cut(text, start)
        out.append(Line(source_id, start, end, text, day, to, group))
    return out


def _whom(conv: ChatThread) -> tuple[str, bool]:
    """Whom the owner writes to in a conversation: its one other person, or the group."""
    others = conv.others
    if len(others) == 1:
        return others[0], False
    return conv.title or ", ".join(others[:3]), True


_EPOCH = date(1970, 1, 1).toordinal()


def _cut(text: str, start: int) -> tuple[str, int]:
    """A message as a line: whole, or its first sentences up to LONGEST characters (the
    span stays exact: the line is the start of the message)."""
    if len(text) > LONGEST:
        end = max(text.rfind(". ", 0, LONGEST), text.rfind(NEWLINE_MARK, 0, LONGEST))
        text = text[: end + 1 if end > SHORTEST else LONGEST]
    return text, start + len(text)


def prose_lines(source_id: int, text: str, day: int, offset: int = 0) -> list[Line]:
    """The sentences of a source (or of its piece at `offset`) that is the owner's alone,
    dated `day`: a journal entry, a note, a voice note. Headings and list marks are not
    sentences."""
    out = []
    for m in _SENTENCE.finditer(text):
        sentence = m.group().rstrip()
        if len(sentence) < SHORTEST or _heading(text, m.start()):
            continue
        sentence, end = _cut(sentence, offset + m.start())
        out.append(Line(source_id, offset + m.start(), end, sentence, day))
    return out


def _heading(text: str, at: int) -> bool:
    line_start = text.rfind("\n", 0, at) + 1
    return text[line_start:at].lstrip().startswith("#")


def single_day(start: str | None, end: str | None) -> str | None:
    """A source's date (`YYYY-MM-DD`) when it covers one day (a journal entry, a voice
    note); None when it covers more, or has no date."""
    if start and (not end or end[:10] == start[:10]):
        return start[:10]
    return None


def day_of(value: str | None) -> int | None:
    """A source's single day (`YYYY-MM-DD…`) as an ordinal; None if it has none."""
    if not value or len(value) < 10:
        return None
    try:
        return date.fromisoformat(value[:10]).toordinal()
    except ValueError:
        return None
