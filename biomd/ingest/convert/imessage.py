"""iMessage: the text files `imessage-exporter` writes, and a `chat.db` copied from a Mac
(opened read-only)."""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Iterable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import PurePosixPath

from biomd.errors import CorruptSource
from biomd.ingest.convert.base import Probe
from biomd.ingest.convert.chat import Message, format_line, header
from biomd.ingest.convert.context import ConvertContext
from biomd.ingest.convert.text import iter_lines, looks_binary, stream_text

# `%b %d, %Y %l:%M:%S %p`, e.g. "May 17, 2022  5:29:42 PM (Read by them after 1 minute)"
_STAMP = re.compile(
    r"^(?P<indent>\s*)(?P<when>[A-Z][a-z]{2} \d{2}, \d{4} [ \d]\d:\d{2}:\d{2} [AP]M)(?P<note>.*)$"
)
_APPLE_EPOCH = datetime(2001, 1, 1, tzinfo=UTC)


def looks_like_export(head: bytes) -> bool:
    if looks_binary(head):
        return False
    lines = head.decode("utf-8", errors="replace").splitlines()[:60]
    stamps = sum(1 for ln in lines if _STAMP.match(ln))
    return stamps >= 2


def parse_export(lines: Iterable[str]) -> Iterator[Message]:
    """Each message: a date line, a sender line, then its body up to a blank line. Replies
    are printed again, indented, under the message they answer; they are read as messages
    too, and one already seen is not repeated."""
    seen: set[tuple[datetime, str, str]] = set()
    when: datetime | None = None
    speaker: str | None = None
    body: list[str] = []

    def flush() -> Iterator[Message]:
        if when is not None and speaker is not None:
            msg = _message(when, speaker, body)
            key = (when, speaker, msg.text)
            if key not in seen:
                seen.add(key)
                yield msg

    for raw in lines:
        line = raw.strip()
        m = _STAMP.match(raw)
        if m:
            yield from flush()
            when = datetime.strptime(" ".join(m["when"].split()), "%b %d, %Y %I:%M:%S %p")
            speaker, body = None, []
        elif when is None or not line:
            continue
        elif speaker is None:
            speaker = line
        else:
            body.append(line)
    yield from flush()


def _message(when: datetime, speaker: str, body: list[str]) -> Message:
    owner = True if speaker == "Me" else None
    text = "\n".join(b for b in body if b != "This message responded to an earlier message.")
    return Message(when, speaker, text, owner)


class IMessageText:
    kind = "imessage"
    chat = True
    mime = "text/plain"

    def accepts(self, probe: Probe) -> bool:
        return looks_like_export(probe.head)

    def convert(self, probe: Probe, ctx: ConvertContext) -> Iterator[str]:
        yield header("iMessage chat", PurePosixPath(probe.name).stem)
        count = 0
        for msg in parse_export(iter_lines(stream_text(probe))):
            count += 1
            if msg.from_owner:
                msg = Message(msg.when, ctx.owner_label, msg.text, True)
            yield format_line(msg, ctx)
        if count == 0:
            raise CorruptSource(f"{probe.name}: no iMessage messages found in it.")


def apple_time(value: int | float | None) -> datetime | None:
    """chat.db dates: seconds (old) or nanoseconds (since High Sierra) from 2001-01-01 UTC."""
    if not value:
        return None
    seconds = value / 1e9 if value > 1e11 else float(value)
    return _APPLE_EPOCH + timedelta(seconds=seconds)


def text_from_attributed_body(blob: bytes | None) -> str:
    """The plain text inside a message's `attributedBody` (an NSAttributedString typedstream),
    which is where newer macOS keeps it when the `text` column is empty."""
    if not blob:
        return ""
    start = blob.find(b"NSString")
    if start < 0:
        return ""
    plus = blob.find(b"+", start)
    if plus < 0 or plus + 1 >= len(blob):
        return ""
    pos = plus + 1
    length = blob[pos]
    pos += 1
    if length == 0x81:
        length = int.from_bytes(blob[pos : pos + 2], "little")
        pos += 2
    elif length == 0x82:
        length = int.from_bytes(blob[pos : pos + 3], "little")
        pos += 3
    return blob[pos : pos + length].decode("utf-8", errors="replace")


_QUERY = """
SELECT c.ROWID, COALESCE(NULLIF(c.display_name, ''), c.chat_identifier, 'chat'),
       m.date, m.is_from_me, m.text, m.attributedBody, h.id, m.cache_has_attachments
FROM message m
JOIN chat_message_join cmj ON cmj.message_id = m.ROWID
JOIN chat c ON c.ROWID = cmj.chat_id
LEFT JOIN handle h ON h.ROWID = m.handle_id
WHERE COALESCE(m.associated_message_type, 0) = 0
ORDER BY c.ROWID, m.date, m.ROWID
"""


class IMessageDb:
    kind = "imessage"
    chat = True
    mime = "application/vnd.sqlite3"

    def accepts(self, probe: Probe) -> bool:
        if not probe.head.startswith(b"SQLite format 3\x00"):
            return False
        try:
            with _open(probe) as db:
                tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master")}
        except sqlite3.Error:
            return False
        return {"message", "handle", "chat", "chat_message_join"} <= tables

    def convert(self, probe: Probe, ctx: ConvertContext) -> Iterator[str]:
        try:
            db = _open(probe)
        except sqlite3.Error as exc:
            raise CorruptSource(f"{probe.name}: the database cannot be opened ({exc}).") from exc
        count, chat = 0, None
        try:
            for chat_id, title, date, from_me, text, body, handle, has_att in db.execute(_QUERY):
                if chat_id != chat:
                    chat = chat_id
                    yield ("\n" if count else "") + header("iMessage chat", str(title))
                words = text or text_from_attributed_body(body)
                if has_att:
                    words = (words + " [attachment]").strip().replace("\ufffc", "")
                if not words.strip():
                    continue
                count += 1
                speaker = ctx.owner_label if from_me else str(handle or "Unknown")
                when = apple_time(date)
                yield format_line(Message(when, speaker, words, bool(from_me) or None), ctx)
        except sqlite3.Error as exc:
            raise CorruptSource(f"{probe.name}: the database is damaged ({exc}).") from exc
        finally:
            db.close()
        if count == 0:
            raise CorruptSource(f"{probe.name}: an iMessage database with no messages in it.")


def _open(probe: Probe) -> sqlite3.Connection:
    """Read-only, and immutable, so nothing is ever written next to the copy."""
    return sqlite3.connect(f"file:{probe.path}?mode=ro&immutable=1", uri=True)
