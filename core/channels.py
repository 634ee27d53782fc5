"""What core needs from a chat platform: send, edit, send a file, download a file. The
Telegram and Discord adapters implement it; core never imports them."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Protocol

from core.messages import split_message

log = logging.getLogger(__name__)


class Channel(Protocol):
    platform: str
    max_length: int

    async def send(self, chat: str, text: str) -> str:
        """Send one message (within `max_length`); its id."""
        ...

    async def edit(self, chat: str, message: str, text: str) -> None: ...

    async def send_file(self, chat: str, name: str, data: bytes, caption: str = "") -> str: ...

    async def download(self, file_ref: str, dest: Path) -> None: ...


async def deliver(channel: Channel, chat: str, text: str) -> list[str]:
    """Send text of any length, split cleanly; the ids of the messages sent."""
    return [await channel.send(chat, part) for part in split_message(text, channel.max_length)]


class StatusMessage:
    """One message that is edited as a job goes along; edits that say nothing new, or come
    too fast, are skipped."""

    def __init__(self, channel: Channel, chat: str, message: str | None) -> None:
        self.channel = channel
        self.chat = chat
        self.message = message
        self._last = ""

    async def set(self, text: str) -> None:
        if text == self._last:
            return
        self._last = text
        try:
            if self.message is None:
                self.message = await self.channel.send(self.chat, text)
            else:
                await self.channel.edit(self.chat, self.message, text)
        except Exception:  # a status line is never worth failing a job over
            log.warning("could not update the status message", exc_info=True)
