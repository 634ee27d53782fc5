"""Messages for the owner survive a platform outage: what cannot be sent while Telegram or
Discord is unreachable is kept in SQLite and sent, in order, once it answers again."""

from __future__ import annotations

import asyncio
import logging

from biomd.app.channels import Buttons, Channel, split_message
from biomd.errors import PlatformUnavailable
from biomd.storage.store import Store

log = logging.getLogger(__name__)

MAX_REFUSALS = 5  # a message the platform refuses outright this often is set aside


class Outbox:
    """`deliver` sends now or keeps the message; `flush` sends what was kept."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self._locks: dict[str, asyncio.Lock] = {}

    def _lock(self, platform: str) -> asyncio.Lock:
        return self._locks.setdefault(platform, asyncio.Lock())

    async def deliver(
        self, channel: Channel, chat: str, text: str, buttons: Buttons = ()
    ) -> list[str]:
        """Send text of any length, split cleanly, `buttons` under its last part; the ids of
        the parts sent now (the rest, if the platform is unreachable, wait in the outbox
        behind anything already there, as text)."""
        parts = split_message(text, channel.max_length)
        async with self._lock(channel.platform):
            if await self.waiting(channel.platform) and not await self._flush(channel):
                await self._keep(channel.platform, chat, parts, "behind earlier messages")
                return []
            sent: list[str] = []
            for i, part in enumerate(parts):
                try:
                    last = i == len(parts) - 1
                    sent.append(await channel.send(chat, part, buttons if last else ()))
                except PlatformUnavailable as exc:
                    log.warning(
                        "%s is unreachable (%s); %d message(s) kept to send later",
                        channel.platform,
                        exc.user_message,
                        len(parts) - i,
                    )
                    await self._keep(channel.platform, chat, parts[i:], exc.user_message)
                    break
            return sent

    async def flush(self, channel: Channel) -> bool:
        """Send what waits for this platform, oldest first; True once nothing waits."""
        async with self._lock(channel.platform):
            return await self._flush(channel)

    async def waiting(self, platform: str | None = None) -> int:
        return await self.store.outbox.waiting(platform)

    async def _flush(self, channel: Channel) -> bool:
        kept = await self.store.outbox.kept(channel.platform)
        for message in kept:
            try:
                await channel.send(message.chat, message.text)
            except PlatformUnavailable:
                return False
            except Exception as exc:  # refused: a chat that is gone, say
                log.warning("%s refused a kept message: %s", channel.platform, exc)
                give_up = message.attempts + 1 >= MAX_REFUSALS
                await self.store.outbox.refused(message.id, str(exc)[:300], give_up=give_up)
                if not give_up:
                    return False
                continue
            await self.store.outbox.sent(message.id)
        if kept:
            log.info("%s is back; sent %d kept message(s)", channel.platform, len(kept))
        return True

    async def _keep(self, platform: str, chat: str, parts: list[str], why: str) -> None:
        await self.store.outbox.keep(platform, chat, parts, why)
