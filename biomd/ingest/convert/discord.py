"""Discord channels and DMs exported with DiscordChatExporter (JSON)."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterator
from datetime import datetime
from typing import Any

from biomd.errors import CorruptSource
from biomd.ingest.convert.base import Probe
from biomd.ingest.convert.chat import SYSTEM, Message, format_line, header, one_line
from biomd.ingest.convert.context import ConvertContext
from biomd.ingest.convert.jsonstream import iter_objects, sniff

_CHAT_TYPES = {"Default", "Reply", "ThreadStarterMessage"}
_REPLY_MEMORY = 100_000


def author_name(author: dict[str, Any]) -> str:
    return str(author.get("nickname") or author.get("name") or "Unknown")


def to_message(msg: dict[str, Any], replies: OrderedDict[Any, str]) -> Message:
    try:
        when: datetime | None = datetime.fromisoformat(str(msg.get("timestamp")))
    except ValueError:
        when = None
    author = msg.get("author") or {}
    speaker = author_name(author)
    content = str(msg.get("content") or "")
    if msg.get("type") not in _CHAT_TYPES:
        kind = str(msg.get("type", "event"))
        return Message(when, SYSTEM, f"{speaker}: {kind}" + (f" {content}" if content else ""))
    parts = []
    ref = (msg.get("reference") or {}).get("messageId")
    if ref is not None:
        quoted = replies.get(ref)
        parts.append(f"(replying to {quoted})" if quoted else "(replying to an earlier message)")
    for att in msg.get("attachments") or []:
        parts.append(f"[attachment: {att.get('fileName', '')}]")
    for sticker in msg.get("stickers") or []:
        parts.append(f"[sticker: {sticker.get('name', '')}]")
    if content:
        parts.append(content)
    for embed in msg.get("embeds") or []:
        title = embed.get("title") or embed.get("url")
        if title:
            parts.append(f"[link: {title}]")
    replies[msg.get("id")] = f'{speaker}: "{one_line(content)[:60]}"'
    if len(replies) > _REPLY_MEMORY:
        replies.popitem(last=False)
    return Message(when, speaker, " ".join(parts))


class DiscordJson:
    kind = "discord"
    chat = True
    mime = "application/json"

    def accepts(self, probe: Probe) -> bool:
        return sniff(probe.head, r'"guild":\s*\{', r'"channel":\s*\{', r'"messages":\s*\[')

    def convert(self, probe: Probe, ctx: ConvertContext) -> Iterator[str]:
        replies: OrderedDict[Any, str] = OrderedDict()
        count = 0
        for _, msg, scalars in iter_objects(probe.path, probe.name, {"messages.item"}):
            if count == 0:
                guild = scalars.get("guild.name") or ""
                channel = scalars.get("channel.name") or ""
                title = f"{guild} #{channel}" if guild and guild != "Direct Messages" else channel
                yield header("Discord chat", str(title))
            if isinstance(msg, dict):
                count += 1
                message = to_message(msg, replies)
                author = msg.get("author") or {}
                if message.from_owner is None and any(
                    ctx.is_owner(str(author.get(k) or "")) for k in ("name", "nickname")
                ):
                    message = Message(message.when, message.speaker, message.text, True)
                yield format_line(message, ctx)
        if count == 0:
            raise CorruptSource(f"{probe.name}: a Discord export with no messages in it.")
