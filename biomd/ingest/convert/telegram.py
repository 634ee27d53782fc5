"""Telegram Desktop exports (`result.json`): one chat, or the whole account."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterator
from datetime import datetime
from typing import Any

from biomd.errors import CorruptSource
from biomd.ingest.convert.audio import clock
from biomd.ingest.convert.base import Probe
from biomd.ingest.convert.chat import SYSTEM, Message, format_line, from_epoch, header, one_line
from biomd.ingest.convert.context import ConvertContext
from biomd.ingest.convert.jsonstream import iter_objects, sniff

_SINGLE = "messages.item"
_FULL = "chats.list.item.messages.item"
_REPLY_MEMORY = 100_000
_ACTIONS = {
    "phone_call": "call",
    "group_call": "group call",
    "create_group": "created the group",
    "invite_members": "added",
    "remove_members": "removed",
    "join_group_by_link": "joined by link",
    "edit_group_title": "renamed the group to",
    "edit_group_photo": "changed the group photo",
    "pin_message": "pinned a message",
    "migrate_to_supergroup": "made the group a supergroup",
}


def flatten_text(value: Any) -> str:
    """Telegram's `text`: a string, or a list of strings and entities ({type, text, href})."""
    if isinstance(value, str):
        return value
    out = []
    for part in value or []:
        if isinstance(part, str):
            out.append(part)
        elif isinstance(part, dict):
            text = str(part.get("text", ""))
            href = part.get("href")
            out.append(f"{text} ({href})" if href and href != text else text)
    return "".join(out)


def _when(msg: dict[str, Any], ctx: ConvertContext) -> datetime | None:
    if msg.get("date_unixtime"):
        return from_epoch(float(msg["date_unixtime"]), ctx.timezone)
    try:
        return datetime.fromisoformat(str(msg.get("date")))
    except ValueError:
        return None


def _media(msg: dict[str, Any]) -> str:
    kind = msg.get("media_type")
    file = msg.get("file") or msg.get("photo")
    secs = msg.get("duration_seconds")
    length = f" {clock(float(secs))}" if secs else ""
    if msg.get("photo"):
        return f"[photo: {msg['photo']}]"
    if kind == "sticker":
        return f"[sticker {msg.get('sticker_emoji', '')}]".replace(" ]", "]")
    if kind in ("voice_message", "video_message", "audio_file", "video_file", "animation"):
        label = kind.replace("_", " ").replace("animation", "GIF")
        return f"[{label}{length}: {file}]"
    if file:
        return f"[file: {file}]"
    if loc := msg.get("location_information"):
        return f"[location: {loc.get('latitude')}, {loc.get('longitude')}]"
    if poll := msg.get("poll"):
        return f"[poll: {poll.get('question', '')}]"
    if contact := msg.get("contact_information"):
        return f"[contact: {contact.get('first_name', '')} {contact.get('last_name', '')}]".strip()
    return ""


def to_message(
    msg: dict[str, Any], ctx: ConvertContext, owner_id: str | None, replies: OrderedDict[Any, str]
) -> Message:
    when = _when(msg, ctx)
    text = flatten_text(msg.get("text"))
    if msg.get("type") == "service":
        action = _ACTIONS.get(str(msg.get("action")), str(msg.get("action", "")).replace("_", " "))
        extra = msg.get("title") or ", ".join(msg.get("members") or [])
        if msg.get("duration_seconds"):
            extra = f"{extra} {clock(float(msg['duration_seconds']))}".strip()
        actor = msg.get("actor") or ""
        return Message(when, SYSTEM, " ".join(p for p in (actor, action, str(extra)) if p))
    speaker = str(msg.get("from") or msg.get("from_id") or "Unknown")
    parts = []
    if (reply_id := msg.get("reply_to_message_id")) is not None:
        quoted = replies.get(reply_id)
        parts.append(f"(replying to {quoted})" if quoted else "(replying to an earlier message)")
    if msg.get("forwarded_from"):
        parts.append(f"(forwarded from {msg['forwarded_from']})")
    if media := _media(msg):
        parts.append(media)
    if text:
        parts.append(text)
    replies[msg.get("id")] = f'{speaker}: "{one_line(text)[:60]}"'
    if len(replies) > _REPLY_MEMORY:
        replies.popitem(last=False)
    from_owner = True if owner_id and msg.get("from_id") == owner_id else None
    return Message(when, speaker, " ".join(parts), from_owner)


class TelegramJson:
    kind = "telegram"
    chat = True
    mime = "application/json"

    def accepts(self, probe: Probe) -> bool:
        single = sniff(
            probe.head,
            r'"type":\s*"(personal_chat|private_group|private_supergroup|'
            r'public_supergroup|public_channel|private_channel|bot_chat|saved_messages)"',
            r'"messages":\s*\[',
        )
        full = sniff(probe.head, r'"personal_information":\s*\{', r'"chats":\s*\{')
        return single or full

    def convert(self, probe: Probe, ctx: ConvertContext) -> Iterator[str]:
        replies: OrderedDict[Any, str] = OrderedDict()
        current_chat: tuple[str, Any] | None = None
        count = 0
        for path, msg, scalars in iter_objects(probe.path, probe.name, {_SINGLE, _FULL}):
            base = "chats.list.item." if path == _FULL else ""
            chat = (str(scalars.get(base + "name") or "Saved messages"), scalars.get(base + "id"))
            if chat != current_chat:
                current_chat = chat
                replies.clear()
                yield ("\n" if count else "") + header("Telegram chat", chat[0])
            uid = scalars.get("personal_information.user_id")
            owner_id = f"user{uid}" if uid is not None else None
            if isinstance(msg, dict):
                count += 1
                yield format_line(to_message(msg, ctx, owner_id, replies), ctx)
        if count == 0:
            raise CorruptSource(f"{probe.name}: a Telegram export with no messages in it.")
