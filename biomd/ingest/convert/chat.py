"""The shape every conversation takes: one line per message, `[YYYY-MM-DD HH:MM] Speaker: text`.

Lines of the owner carry ` (owner)` after the name, so the biographer always knows which
side is the owner. A message's own line breaks become ` ⏎ `, so a message is never split.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime, tzinfo

from biomd.ingest.convert.context import ConvertContext

OWNER_MARK = " (owner)"
NEWLINE_MARK = " ⏎ "
SYSTEM = "(system)"

_INVISIBLE = re.compile("[\u200e\u200f\u202a-\u202e\u2066-\u2069\ufeff]")
_BREAKS = re.compile(r"\s*(?:\r\n|\r|\n|\u2028|\u2029)\s*")


@dataclass(frozen=True, slots=True)
class Message:
    """One message. `when` is naive when the export gives local time without a zone."""

    when: datetime | None
    speaker: str
    text: str
    from_owner: bool | None = None  # None: decide by name


def clean(text: str) -> str:
    """Drop the invisible direction marks exports insert, and trim."""
    return text.strip() if text.isascii() else _INVISIBLE.sub("", text).strip()


def one_line(text: str) -> str:
    text = clean(text)
    if "\n" in text or "\r" in text or not text.isascii():
        return _BREAKS.sub(NEWLINE_MARK, text)
    return text


def local_time(when: datetime, zone: tzinfo) -> datetime:
    """An aware time in `zone`; naive times are already local and stay as they are."""
    return when if when.tzinfo is None else when.astimezone(zone)


def from_epoch(seconds: float, zone: tzinfo) -> datetime:
    return datetime.fromtimestamp(seconds, UTC).astimezone(zone)


def stamp(when: datetime | None, ctx: ConvertContext) -> str:
    """`[YYYY-MM-DD HH:MM]` in the owner's zone."""
    if when is None:
        return "[unknown time]"
    if when.tzinfo is not None:
        when = when.astimezone(ctx.timezone).replace(tzinfo=None)
    return f"[{when.isoformat(' ', 'minutes')}]"


def speaker_label(msg: Message, ctx: ConvertContext) -> str:
    name = clean(msg.speaker) or "Unknown"
    owner = msg.from_owner if msg.from_owner is not None else ctx.is_owner(name)
    return name + OWNER_MARK if owner and name != SYSTEM else name


def format_line(msg: Message, ctx: ConvertContext) -> str:
    """`[YYYY-MM-DD HH:MM] Speaker: text`, the text on one line."""
    return f"{stamp(msg.when, ctx)} {speaker_label(msg, ctx)}: {one_line(msg.text)}\n"


def header(kind: str, title: str, participants: list[str] | None = None) -> str:
    """The first lines of a transcript: what it is and who is in it."""
    line = f"{kind}: {clean(title)}" if title else kind
    if participants:
        line += f" (participants: {', '.join(dict.fromkeys(clean(p) for p in participants))})"
    return line + "\n\n"
