"""Conversations with AI assistants: the ChatGPT and Claude data exports (conversations.json),
and the Hermes Agent sessions biomd's memory provider hands over (one session's new turns).

ChatGPT stores each conversation as a tree of messages (every edit or regeneration is a
branch); the text that was actually kept is the path from `current_node` up to the root."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from biomd.errors import CorruptSource
from biomd.ingest.convert.base import Probe
from biomd.ingest.convert.chat import Message, format_line, from_epoch, header
from biomd.ingest.convert.context import ConvertContext
from biomd.ingest.convert.jsonstream import iter_objects, sniff


def chatgpt_branch(conversation: dict[str, Any]) -> list[dict[str, Any]]:
    """The messages on the current branch, oldest first."""
    mapping = conversation.get("mapping") or {}
    node_id = conversation.get("current_node")
    if node_id not in mapping:  # older exports: follow the last child from the root
        roots = [k for k, v in mapping.items() if not v.get("parent")]
        node_id = roots[0] if roots else None
        while node_id and mapping[node_id].get("children"):
            node_id = mapping[node_id]["children"][-1]
    path = []
    seen: set[str] = set()
    while node_id and node_id in mapping and node_id not in seen:
        seen.add(node_id)
        node = mapping[node_id]
        if node.get("message"):
            path.append(node["message"])
        node_id = node.get("parent")
    return path[::-1]


def _chatgpt_text(message: dict[str, Any]) -> str:
    content = message.get("content") or {}
    parts = []
    for part in content.get("parts") or []:
        if isinstance(part, str):
            parts.append(part)
        elif isinstance(part, dict):
            kind = part.get("content_type", "attachment")
            parts.append("[image]" if "image" in str(kind) else f"[{kind}]")
    if not parts and content.get("text"):
        parts.append(str(content["text"]))
    return "\n".join(p for p in parts if p.strip())


def chatgpt_lines(conversation: dict[str, Any], ctx: ConvertContext) -> Iterator[str]:
    created = conversation.get("create_time")
    title = str(conversation.get("title") or "Untitled")
    when = f" ({from_epoch(float(created), ctx.timezone):%Y-%m-%d})" if created else ""
    yield header("ChatGPT conversation", title + when)
    for message in chatgpt_branch(conversation):
        role = (message.get("author") or {}).get("role")
        text = _chatgpt_text(message)
        if role not in ("user", "assistant") or not text.strip():
            continue
        ts = message.get("create_time") or created
        at = from_epoch(float(ts), ctx.timezone) if ts else None
        if role == "user":
            yield format_line(Message(at, ctx.owner_label, text, from_owner=True), ctx)
        else:
            yield format_line(Message(at, "ChatGPT", text, from_owner=False), ctx)
    yield "\n"


def _iso(value: Any) -> datetime | None:
    try:
        return datetime.fromisoformat(str(value).replace("Z", "+00:00"))
    except ValueError:
        return None


def _claude_text(message: dict[str, Any]) -> str:
    parts = [
        str(c.get("text", ""))
        for c in message.get("content") or []
        if isinstance(c, dict) and c.get("type") == "text"
    ]
    text = "\n".join(p for p in parts if p) or str(message.get("text") or "")
    files = [
        a.get("file_name")
        for a in (message.get("attachments") or []) + (message.get("files") or [])
    ]
    names = [str(f) for f in files if f]
    return text + "".join(f" [attached: {n}]" for n in names)


def claude_lines(conversation: dict[str, Any], ctx: ConvertContext) -> Iterator[str]:
    created = _iso(conversation.get("created_at"))
    title = str(conversation.get("name") or "Untitled")
    when = f" ({created.astimezone(ctx.timezone):%Y-%m-%d})" if created else ""
    yield header("Claude conversation", title + when)
    for message in conversation.get("chat_messages") or []:
        text = _claude_text(message)
        if not text.strip():
            continue
        at = _iso(message.get("created_at")) or created
        if message.get("sender") == "human":
            yield format_line(Message(at, ctx.owner_label, text, from_owner=True), ctx)
        else:
            yield format_line(Message(at, "Claude", text, from_owner=False), ctx)
    yield "\n"


_RECALLED = re.compile(r"<\s*memory-context\s*>[\s\S]*?<\s*/\s*memory-context\s*>", re.I)


def without_recall(text: str) -> str:
    """A message without the <memory-context> blocks the assistant was shown: biomd never
    learns from its own output."""
    return _RECALLED.sub("", text).strip()


def hermes_lines(session: dict[str, Any], ctx: ConvertContext) -> Iterator[str]:
    turns = [t for t in session.get("turns") or [] if isinstance(t, dict)]
    first = _iso(turns[0].get("at")) if turns else None
    when = f" ({first.astimezone(ctx.timezone):%Y-%m-%d})" if first else ""
    yield header("Hermes Agent session", f"{session.get('hermes_session', '?')}{when}")
    for turn in turns:
        at = _iso(turn.get("at")) or first
        if user := without_recall(str(turn.get("user") or "")):
            yield format_line(Message(at, ctx.owner_label, user, from_owner=True), ctx)
        if reply := without_recall(str(turn.get("assistant") or "")):
            yield format_line(Message(at, "Hermes", reply, from_owner=False), ctx)
    yield "\n"


@dataclass(frozen=True)
class AiExportJson:
    """A `conversations.json`: a top-level list of conversations, streamed one at a time."""

    kind: str
    chat = False
    label: str
    patterns: tuple[str, ...]
    lines: Callable[[dict[str, Any], ConvertContext], Iterator[str]]
    mime: str = "application/json"

    def accepts(self, probe: Probe) -> bool:
        return sniff(probe.head, r"^\[\s*\{", *self.patterns)

    def convert(self, probe: Probe, ctx: ConvertContext) -> Iterator[str]:
        count = 0
        for _, conversation, _ in iter_objects(probe.path, probe.name, {"item"}):
            if isinstance(conversation, dict):
                count += 1
                yield from self.lines(conversation, ctx)
        if count == 0:
            raise CorruptSource(f"{probe.name}: a {self.label} export with no conversations in it.")


CHATGPT = AiExportJson(
    "chatgpt", "ChatGPT", (r'"mapping":\s*\{', r'"current_node"|"parent"'), chatgpt_lines
)
CLAUDE = AiExportJson("claude", "Claude", (r'"chat_messages":\s*\[',), claude_lines)
HERMES = AiExportJson("hermes", "Hermes Agent", (r'"hermes_session":',), hermes_lines)
