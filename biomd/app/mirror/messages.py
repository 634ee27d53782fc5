"""A chat source's messages as the mirror reads them: for each message its minute, whether
the owner wrote it, its length and where its text is, and the conversations of the source
(a Telegram export holds many, each under its own heading line). Read from the transcript
format every chat converter writes (`[YYYY-MM-DD HH:MM] Name (owner): text`), so it works
for every platform and language. Fed the source's text a piece at a time, in order."""

from __future__ import annotations

import io
import json
import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

VERSION = 1  # of the parse below: a cache made by another version is made again

_LINE = re.compile(
    r"^(?:\[(\d{4}-\d{2}-\d{2} \d{2}:\d{2})\] (?:\(system\): [^\n]*|([^:\n]{1,80}?)"
    r"( \(owner\))?: ([^\n]*))|([^\[\n][^\n]*))$",
    re.M,
)
_MEDIA = re.compile(r"^\[[^\]\n]{1,300}\](?: \(edited\))?$")
NEWLINE_MARK = " ⏎ "
DTYPES: dict[str, type[np.signedinteger[Any]]] = {
    "minute": np.int64,
    "owner": np.int8,
    "chars": np.int32,
    "start": np.int64,
    "length": np.int32,
    "chat": np.int32,
    "speaker": np.int32,
}
"""Each array's type: as narrow as its values allow (a 50 MB export is 500,000 messages)."""
_ARRAYS = tuple(DTYPES)
Ints = npt.NDArray[np.signedinteger[Any]]


@dataclass
class ChatThread:
    """One conversation of a source: its heading, and who writes in it."""

    title: str
    speakers: Counter[str] = field(default_factory=Counter)  # messages per name, first seen first
    owner_messages: int = 0

    @property
    def others(self) -> list[str]:
        """The people other than the owner, most messages first."""
        return [name for name, _ in self.speakers.most_common()]

    def as_json(self) -> dict[str, object]:
        return {"title": self.title, "speakers": dict(self.speakers), "owner": self.owner_messages}


@dataclass
class ParsedChats:
    """A source's conversations and its dated messages, in the order of its text. Arrays,
    one entry a message: `minute` since 1970 of its local time stamp, `owner`, `chars` (its
    length, -1 for a media placeholder), `start` and `length` of its text in the source,
    `chat` (which conversation) and `speaker` (0 the owner, n the n-th name to write in
    that conversation: `list(chats[c].speakers)[n - 1]`)."""

    chats: list[ChatThread]
    arrays: dict[str, Ints]
    owners: tuple[str, ...] = ()

    @property
    def size(self) -> int:
        return int(self.arrays["minute"].size)

    def dump(self) -> tuple[str, bytes]:
        """As kept in the store: the conversations as JSON, the arrays as one npz blob."""
        buf = io.BytesIO()
        np.savez(buf, allow_pickle=False, **self.arrays)
        meta = {"owners": list(self.owners), "chats": [c.as_json() for c in self.chats]}
        return json.dumps(meta, ensure_ascii=False), buf.getvalue()

    @classmethod
    def load(cls, chats: str, data: bytes) -> ParsedChats:
        meta = json.loads(chats)
        convs = [
            ChatThread(c["title"], Counter(c["speakers"]), int(c["owner"])) for c in meta["chats"]
        ]
        with np.load(io.BytesIO(data)) as npz:
            arrays = {name: npz[name].astype(DTYPES[name], copy=False) for name in _ARRAYS}
        return cls(convs, arrays, tuple(meta.get("owners") or ()))


class Parser:
    """Reads a source's text piece by piece (chunks overlap; each is given with where it
    starts) and keeps every dated message. `owners`: names that are the owner's even where a
    line is not marked (the names were set after the source came in)."""

    def __init__(self, owners: tuple[str, ...] = ()) -> None:
        self.owners = owners
        self._owner_names = {" ".join(o.casefold().split()) for o in owners}
        self._buffer = ""
        self._buffer_at = 0  # where the buffer starts in the source's text
        self._chats: list[ChatThread] = []
        self._speaker_ids: list[dict[str, int]] = []
        self._columns: dict[str, list[Ints]] = {n: [] for n in _ARRAYS}

    def feed(self, text: str, start: int) -> None:
        """The source's text from `start` on (it may overlap what was fed already)."""
        seen = self._buffer_at + len(self._buffer)
        if start + len(text) <= seen:
            return
        self._buffer += text[max(0, seen - start) :]
        cut = self._buffer.rfind("\n")
        if cut >= 0:
            self._lines(self._buffer[: cut + 1], self._buffer_at)
            self._buffer_at += cut + 1
            self._buffer = self._buffer[cut + 1 :]

    def finish(self) -> ParsedChats:
        if self._buffer:
            self._lines(self._buffer, self._buffer_at)
            self._buffer_at += len(self._buffer)
            self._buffer = ""
        arrays = {
            name: (np.concatenate(parts) if parts else np.zeros(0, DTYPES[name]))
            for name, parts in self._columns.items()
        }
        return ParsedChats(self._chats, arrays, self.owners)

    def _chat(self, title: str) -> int:
        self._chats.append(ChatThread(title))
        self._speaker_ids.append({})
        return len(self._chats) - 1

    def _lines(self, text: str, at: int) -> None:
        stamps: list[str] = []
        owner: list[int] = []
        chars: list[int] = []
        starts: list[int] = []
        lengths: list[int] = []
        chat: list[int] = []
        speaker: list[int] = []
        current = len(self._chats) - 1
        for m in _LINE.finditer(text):
            stamp, name, mark, body, heading = m.groups()
            if heading is not None:
                if heading.strip():
                    current = self._chat(heading.strip())
                continue
            if name is None or body is None:
                continue  # a system line
            if current < 0:
                current = self._chat("")
            conv = self._chats[current]
            mine = bool(mark) or " ".join(name.casefold().split()) in self._owner_names
            if mine:
                conv.owner_messages += 1
                who = 0
            else:
                conv.speakers[name] += 1
                ids = self._speaker_ids[current]
                who = ids.setdefault(name, len(ids) + 1)
            stamps.append(stamp)
            owner.append(int(mine))
            media = body.startswith("[") and _MEDIA.match(body) is not None
            chars.append(-1 if media else len(body) - 2 * body.count(NEWLINE_MARK))
            starts.append(at + m.start(4))
            lengths.append(len(body))
            chat.append(current)
            speaker.append(who)
        if not stamps:
            return
        minutes = np.array(stamps, dtype="datetime64[m]").astype(np.int64)
        for name, values in (
            ("minute", minutes),
            ("owner", owner),
            ("chars", chars),
            ("start", starts),
            ("length", lengths),
            ("chat", chat),
            ("speaker", speaker),
        ):
            self._columns[name].append(np.asarray(values, dtype=DTYPES[name]))


def parse_text(text: str, owners: tuple[str, ...] = ()) -> ParsedChats:
    """A whole transcript at once (tests, small sources)."""
    parser = Parser(owners)
    parser.feed(text, 0)
    return parser.finish()
