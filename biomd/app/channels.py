"""What the engine needs from a chat platform: send, edit, send a file, download a file. The
Telegram and Discord adapters implement it; the engine never imports them."""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Protocol

from biomd.errors import PlatformUnavailable

log = logging.getLogger(__name__)


Buttons = Sequence[tuple[str, str]]
TELEGRAM_LIMIT = 4096  # characters in one message
DISCORD_LIMIT = 2000
EDIT_EVERY_S = 1.5  # a status message is edited at most this often


def split_message(text: str, limit: int) -> list[str]:
    """Pieces of at most `limit` characters, cut at a paragraph break if one fits, else at a
    line break, a sentence end, a space, and only then anywhere. Nothing is lost but the
    whitespace at the cuts."""
    text = text.strip()
    pieces: list[str] = []
    while len(text) > limit:
        window = text[: limit + 1]
        cut = -1
        for sep in ("\n\n", "\n", ". ", " "):
            at = window.rfind(sep, limit // 3)
            if at > 0:
                cut = at + (1 if sep == ". " else 0)
                break
        if cut <= 0:
            cut = limit
        pieces.append(text[:cut].rstrip())
        text = text[cut:].lstrip()
    if text:
        pieces.append(text)
    return pieces


class Channel(Protocol):
    platform: str
    max_length: int
    local: bool  # on the owner's own computer (the terminal): it may be given local paths

    async def send(self, chat: str, text: str, buttons: Buttons = ()) -> str:
        """Send one message (within `max_length`); its id. `buttons` (label, the command
        it sends) are shown where the platform has them; the text always says the
        commands too."""
        ...

    async def edit(self, chat: str, message: str, text: str) -> None: ...

    async def send_file(self, chat: str, name: str, data: bytes, caption: str = "") -> str: ...

    async def send_image(self, chat: str, name: str, png: bytes, caption: str = "") -> str:
        """A picture shown as one (the timeline, the people), with a short caption."""
        ...

    async def download(self, file_ref: str, dest: Path) -> None: ...


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
        except PlatformUnavailable as exc:  # a status line is never worth failing a job over
            log.info("status message not updated: %s", exc.user_message)
        except Exception:
            log.warning("could not update the status message", exc_info=True)


class Throttled:
    """Status updates at most every 1.5 s, except forced ones."""

    def __init__(self, status: StatusMessage | None) -> None:
        self.status = status
        self._at = 0.0

    async def __call__(self, text: str, force: bool = False) -> None:
        if self.status is None:
            return
        now = time.monotonic()
        if force or now - self._at >= EDIT_EVERY_S:
            self._at = now
            await self.status.set(text)
