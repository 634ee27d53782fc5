"""Messages for the owner survive a platform outage: what cannot be sent while Telegram or
Discord is unreachable is kept in SQLite and sent, in order, once it answers again."""

from __future__ import annotations

import asyncio
import logging

from core.app.channels import Channel
from core.app.replies import split_message
from core.errors import PlatformUnavailable
from core.storage.store import Store, utc_now

log = logging.getLogger(__name__)

MAX_REFUSALS = 5  # a message the platform refuses outright this often is set aside


class Outbox:
    """`deliver` sends now or keeps the message; `flush` sends what was kept."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self._locks: dict[str, asyncio.Lock] = {}

    def _lock(self, platform: str) -> asyncio.Lock:
        return self._locks.setdefault(platform, asyncio.Lock())

    async def deliver(self, channel: Channel, chat: str, text: str) -> list[str]:
        """Send text of any length, split cleanly; the ids of the parts sent now (the rest,
        if the platform is unreachable, wait in the outbox behind anything already there)."""
        parts = split_message(text, channel.max_length)
        async with self._lock(channel.platform):
            if await self.waiting(channel.platform) and not await self._flush(channel):
                await self._keep(channel.platform, chat, parts, "behind earlier messages")
                return []
            sent: list[str] = []
            for i, part in enumerate(parts):
                try:
                    sent.append(await channel.send(chat, part))
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
        row = await self.store.fetchone(
            "SELECT COUNT(*) FROM outbox WHERE status = 'waiting' AND (? IS NULL OR platform = ?)",
            (platform, platform),
        )
        return int(row[0]) if row else 0

    async def _flush(self, channel: Channel) -> bool:
        rows = await self.store.fetchall(
            "SELECT id, chat_id, text, attempts FROM outbox WHERE platform = ?"
            " AND status = 'waiting' ORDER BY id",
            (channel.platform,),
        )
        for row_id, chat, text, attempts in rows:
            try:
                await channel.send(str(chat), str(text))
            except PlatformUnavailable:
                return False
            except Exception as exc:  # refused: a chat that is gone, say
                log.warning("%s refused a kept message: %s", channel.platform, exc)
                status = "failed" if attempts + 1 >= MAX_REFUSALS else "waiting"
                async with self.store.transaction() as db:
                    await db.execute(
                        "UPDATE outbox SET attempts = attempts + 1, status = ?, error = ?"
                        " WHERE id = ?",
                        (status, str(exc)[:300], row_id),
                    )
                if status == "waiting":
                    return False
                continue
            async with self.store.transaction() as db:
                await db.execute("DELETE FROM outbox WHERE id = ?", (row_id,))
        if rows:
            log.info("%s is back; sent %d kept message(s)", channel.platform, len(rows))
        return True

    async def _keep(self, platform: str, chat: str, parts: list[str], why: str) -> None:
        now = utc_now()
        async with self.store.transaction() as db:
            await db.executemany(
                "INSERT INTO outbox(platform, chat_id, text, created_at, error)"
                " VALUES (?, ?, ?, ?, ?)",
                [(platform, chat, part, now, why) for part in parts],
            )
