"""Instagram and Facebook Messenger threads from "Download your information" (JSON):
`message_N.json` files, or the whole downloaded zip, from which only the inboxes are read.

Meta writes UTF-8 text as if each byte were a latin-1 character ("cafÃ©" for "café"); the
strings are repaired on the way in."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

from biomd.errors import CorruptSource
from biomd.ingest.convert.archive import ZipReader, zip_holds
from biomd.ingest.convert.base import Probe
from biomd.ingest.convert.chat import SYSTEM, Message, format_line, from_epoch, header
from biomd.ingest.convert.context import ConvertContext
from biomd.ingest.convert.jsonstream import sniff
from biomd.ingest.convert.text import read_text

_THREAD = re.compile(r"(^|/)messages/[^/]+/[^/]+/message_\d+\.json$")


def fix_mojibake(value: Any) -> Any:
    """Undo UTF-8-read-as-latin-1 in every string of a JSON value; leave proper text alone."""
    if isinstance(value, str):
        try:
            return value.encode("latin-1").decode("utf-8")
        except (UnicodeEncodeError, UnicodeDecodeError):
            return value
    if isinstance(value, list):
        return [fix_mojibake(v) for v in value]
    if isinstance(value, dict):
        return {k: fix_mojibake(v) for k, v in value.items()}
    return value


def _attachments(msg: dict[str, Any]) -> list[str]:
    out = []
    for key, label in (
        ("photos", "photo"),
        ("videos", "video"),
        ("audio_files", "voice message"),
        ("gifs", "GIF"),
        ("files", "file"),
    ):
        for item in msg.get(key) or []:
            out.append(f"[{label}: {item.get('uri', '')}]")
    if sticker := msg.get("sticker"):
        out.append(f"[sticker: {sticker.get('uri', '')}]")
    if share := msg.get("share"):
        out.append(f"[shared: {share.get('link') or share.get('share_text') or ''}]")
    return out


def to_message(msg: dict[str, Any], ctx: ConvertContext) -> Message:
    when = from_epoch(float(msg.get("timestamp_ms", 0)) / 1000, ctx.timezone)
    speaker = str(msg.get("sender_name") or "Unknown")
    if msg.get("is_unsent"):
        return Message(when, speaker, "(unsent a message)")
    if "call_duration" in msg:
        return Message(when, SYSTEM, f"{speaker}: call, {int(msg['call_duration'])} s")
    parts = [*_attachments(msg)]
    if content := msg.get("content"):
        parts.append(str(content))
    reactions = ", ".join(
        f"{r.get('actor')} {r.get('reaction')}" for r in msg.get("reactions") or []
    )
    if reactions:
        parts.append(f"(reactions: {reactions})")
    return Message(when, speaker, " ".join(parts))


class MessengerJson:
    kind = "messenger"
    chat = True
    mime = "application/json"

    def accepts(self, probe: Probe) -> bool:
        return sniff(probe.head, r'"participants":\s*\[', r'"sender_name":', r'"timestamp_ms":')

    def convert(self, probe: Probe, ctx: ConvertContext) -> Iterator[str]:
        try:
            data = fix_mojibake(json.loads(read_text(probe)))
        except json.JSONDecodeError as exc:
            raise CorruptSource(f"{probe.name}: the JSON is broken or cut short ({exc}).") from exc
        if not isinstance(data, dict) or not isinstance(data.get("messages"), list):
            raise CorruptSource(f"{probe.name}: not a Messenger/Instagram thread (no messages).")
        app = "Instagram chat" if "instagram" in probe.name.lower() else "Messenger chat"
        names = [str(p.get("name", "")) for p in data.get("participants") or []]
        yield header(app, str(data.get("title") or ", ".join(names)), names)
        messages = [m for m in data["messages"] if isinstance(m, dict)]
        messages.sort(key=lambda m: m.get("timestamp_ms", 0))  # Meta lists newest first
        for msg in messages:
            yield format_line(to_message(msg, ctx), ctx)


class MetaExportZip(ZipReader):
    """The whole "Download your information" zip: only the message threads become sources."""

    kind = "meta-export"

    def accepts(self, probe: Probe) -> bool:
        return zip_holds(probe, lambda z: any(_THREAD.search(n) for n in z.namelist()))

    def wanted(self, name: str) -> bool:
        return bool(_THREAD.search(name))
