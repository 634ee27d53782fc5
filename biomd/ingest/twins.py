"""The same text in another file: a WhatsApp chat exported as .txt and again as .zip, a
journal as PDF and as Word, the same chat exported again months later. Each source is
fingerprinted by its units (a chat's messages, other text's sentences), and a new source is
compared with those that share units with it:

- **same**: nine in ten of its units are in one stored source: it is refused as a duplicate
  of that one;
- **longer**: a chat that holds nine in ten of a stored chat's messages and goes on after
  it: only the messages after the stored one's last are kept, as a source of their own, so
  what was read and cited stays as it is;
- otherwise it is a source of its own.

A message is keyed by its time, speaker and words; an attachment by its time and speaker only
(an export without media writes "<Media omitted>" where one with media describes the photo).
Sources of more than FULL_BELOW units keep a sample of their units' hashes (one in SAMPLE,
chosen by the hash, so two samples of the same text pick the same units). Pure."""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from typing import Literal

from biomd.fold import fold
from biomd.ingest.convert.chat import OWNER_MARK

SAMPLE = 8
FULL_BELOW = 256  # units; a source with fewer keeps them all
ALIKE = 0.9  # the share of units that makes two sources the same text
FEWEST = 8  # units; a shorter source is never taken for another (a short note, an answer)

_CHAT_LINE = re.compile(r"^\[(\d{4}-\d\d-\d\d \d\d:\d\d)\] (.+?): (.*)$")
_STOP = re.compile(r"[.!?。！？]")
_SENTENCE_END = re.compile(r"(?<=[.!?。！？])[\"'”’)]*\s+")
_SHORTEST_SENTENCE = 25
_LONGEST_SENTENCE = 600  # characters of a unit of text that has no full stops

Verdict = Literal["same", "longer", "other"]
_CONTINUES = re.compile(r"^\(the messages after source #(\d+) ends, at [^)\n]*\)$", re.M)


def continues_line(source_id: int, stamp: str) -> str:
    """The line under a chat's heading that says it goes on from a stored one."""
    return f"(the messages after source #{source_id} ends, at {stamp})"


def continued(head: str) -> int | None:
    """The source a chat goes on from, by its first lines (`continues_line`); None if none."""
    m = _CONTINUES.search(head[:400])
    return int(m.group(1)) if m else None


@dataclass
class Units:
    """A source's units, fed its text piece by piece as it is converted."""

    count: int = 0
    chat_lines: int = 0
    hashes: set[int] = field(default_factory=set)  # every unit's, until FULL_BELOW
    sampled: set[int] = field(default_factory=set)
    _line: str = ""
    _prose: str = ""

    def feed(self, piece: str) -> None:
        lines = (self._line + piece).split("\n")
        self._line = lines.pop()
        for line in lines:
            self._take(line)

    def finish(self) -> Fingerprint:
        self._take(self._line)
        self._line = ""
        self._sentences(final=True)
        full = self.count < FULL_BELOW
        return Fingerprint(
            self.count, self.chat_lines * 2 > self.count, self.hashes if full else self.sampled
        )

    def _take(self, line: str) -> None:
        if m := _CHAT_LINE.match(line):
            self._sentences(final=True)
            self.chat_lines += 1
            self._add(message_key(m.group(1), m.group(2), m.group(3)))
        elif line.strip():
            self._prose += " " + line.strip()
            if _STOP.search(line) or len(self._prose) > _LONGEST_SENTENCE:
                self._sentences(final=False)
        else:
            self._sentences(final=True)  # a paragraph ends

    def _sentences(self, final: bool) -> None:
        parts = _SENTENCE_END.split(self._prose)
        self._prose = "" if final else parts.pop()
        if len(self._prose) > _LONGEST_SENTENCE:  # text without stops: cut, or this grows
            parts.append(self._prose)
            self._prose = ""
        for sentence in parts:
            if len(sentence.strip()) >= _SHORTEST_SENTENCE:
                self._add(fold(sentence.strip()))

    def _add(self, key: str) -> None:
        h = unit_hash(key)
        self.count += 1
        if self.count <= FULL_BELOW:
            self.hashes.add(h)
        if h % SAMPLE == 0:
            self.sampled.add(h)


@dataclass(frozen=True)
class Fingerprint:
    count: int  # units in the source
    chat: bool  # most of its units are messages
    hashes: set[int]  # all its units' hashes, or a sample (count >= FULL_BELOW)

    @property
    def full(self) -> bool:
        return self.count < FULL_BELOW


def message_key(stamp: str, speaker: str, text: str) -> str:
    """A message as it is compared: the owner's mark and an attachment's form don't count."""
    who = _folded(speaker.removesuffix(OWNER_MARK))
    said = "<media>" if text.startswith("[") else _folded(text)
    return f"{stamp} {who}: {said}"


def _folded(text: str) -> str:
    """`fold`, quicker where the text is plain ASCII on one line, as most messages are."""
    return text.lower() if text.isascii() and "  " not in text else fold(text)


def unit_hash(key: str) -> int:
    """A unit's hash, a signed 64-bit integer as SQLite keeps it."""
    return int.from_bytes(hashlib.blake2b(key.encode(), digest_size=8).digest(), "big", signed=True)


def share_in(part: Fingerprint, whole: Fingerprint) -> float:
    """The share of `part`'s units that `whole` holds, over the units both can tell."""
    both_whole = part.full and whole.full
    mine = part.hashes if both_whole else {h for h in part.hashes if h % SAMPLE == 0}
    if not mine:
        return 0.0
    return len(mine & whole.hashes) / len(mine)


def verdict(new: Fingerprint, old: Fingerprint) -> Verdict:
    """What the new source is to a stored one."""
    if new.count < FEWEST or old.count < FEWEST:
        return "other"
    if share_in(new, old) >= ALIKE:
        return "same"
    if new.chat and old.chat and new.count > old.count and share_in(old, new) >= ALIKE:
        return "longer"
    return "other"


def after(transcript: str, last_stamp: str, seen: set[str]) -> list[str]:
    """The messages of a chat transcript after a stored one's end: later than its last
    message's minute, or in that minute and not among the stored one's last messages
    (`seen`, their keys)."""
    out = []
    for line in transcript.split("\n"):
        m = _CHAT_LINE.match(line)
        if m is None or m.group(1) < last_stamp:
            continue
        if m.group(1) == last_stamp and message_key(*m.groups()) in seen:
            continue
        out.append(line)
    return out


@dataclass(frozen=True)
class ChatEnd:
    """Where a chat ends: its last message's minute, and the keys of the messages in it."""

    stamp: str
    seen: set[str]


def last_minute(transcript: str) -> ChatEnd | None:
    """Where a transcript (or its tail) ends; None if it holds no message."""
    found = [m for line in transcript.split("\n") if (m := _CHAT_LINE.match(line))]
    if not found:
        return None
    stamp = max(m.group(1) for m in found)
    return ChatEnd(stamp, {message_key(*m.groups()) for m in found if m.group(1) == stamp})
