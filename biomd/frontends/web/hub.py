"""The web view as a chat platform: the `Channel` that jobs and the assistant write to, whose
messages and status lines reach every open page as server-sent events."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import shutil
from collections import deque
from pathlib import Path
from typing import Any

from biomd.app.channels import Buttons
from biomd.errors import NotFound

PLATFORM = "web"
CHAT = "web"
KEEP = 200  # recent events a newly opened page catches up on


class Hub:
    """Events for the open pages: job status lines, messages, and a chat turn's steps."""

    def __init__(self) -> None:
        self._subscribers: set[asyncio.Queue[dict[str, Any]]] = set()
        self._recent: deque[dict[str, Any]] = deque(maxlen=KEEP)
        self._ids = itertools.count(1)

    def publish(self, kind: str, **data: Any) -> dict[str, Any]:
        event = {"id": next(self._ids), "type": kind, **data}
        self._recent.append(event)
        for queue in list(self._subscribers):
            with contextlib.suppress(asyncio.QueueFull):
                queue.put_nowait(event)
        return event

    def recent(self, kind: str | None = None) -> list[dict[str, Any]]:
        return [e for e in self._recent if kind is None or e["type"] == kind]

    @contextlib.contextmanager
    def subscribe(self) -> Any:
        queue: asyncio.Queue[dict[str, Any]] = asyncio.Queue(maxsize=1000)
        self._subscribers.add(queue)
        try:
            yield queue
        finally:
            self._subscribers.discard(queue)


def sse(event: dict[str, Any]) -> str:
    """One server-sent event."""
    return f"id: {event['id']}\nevent: {event['type']}\ndata: {json.dumps(event)}\n\n"


class WebChannel:
    """`Channel` for the web view. A status line a job edits is one `status` event, updated
    in place on the page; a message is a `message` event."""

    platform = PLATFORM
    max_length = 1_000_000
    local = False

    def __init__(self, hub: Hub, uploads: Path) -> None:
        self.hub = hub
        self.uploads = uploads
        self._ids = itertools.count(1)

    async def send(self, chat: str, text: str, buttons: Buttons = ()) -> str:
        message = f"w{next(self._ids)}"
        self.hub.publish("message", message=message, text=text)
        return message

    async def edit(self, chat: str, message: str, text: str) -> None:
        self.hub.publish("status", message=message, text=text)

    async def send_file(self, chat: str, name: str, data: bytes, caption: str = "") -> str:
        return await self.send(chat, f"{caption or name} (open it from the Profile page)")

    async def send_image(self, chat: str, name: str, png: bytes, caption: str = "") -> str:
        return await self.send(chat, f"{caption or name} (see the {Path(name).stem} page)")

    async def download(self, file_ref: str, dest: Path) -> None:
        """Uploads are already on disk: move one into the inbox."""
        source = (self.uploads / Path(file_ref).name).resolve()
        if source.parent != self.uploads.resolve() or not source.exists():
            raise NotFound(f"The upload {file_ref!r} is gone.")
        await asyncio.to_thread(shutil.move, source, dest)
