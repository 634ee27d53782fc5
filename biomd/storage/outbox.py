"""`outbox`: messages for the owner that could not be sent while the platform was
unreachable, sent in id order once it answers again. A row the platform refused outright
too often is `failed` and stays for the record."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from biomd.storage.database import Database, utc_now


@dataclass(frozen=True, slots=True)
class KeptMessage:
    id: int
    chat: str
    text: str
    attempts: int


class OutboxQueue:
    def __init__(self, db: Database) -> None:
        self._db = db

    async def waiting(self, platform: str | None = None) -> int:
        """How many wait (for one platform, or all)."""
        return int(
            await self._db.scalar(
                "SELECT COUNT(*) FROM outbox WHERE status = 'waiting'"
                " AND (? IS NULL OR platform = ?)",
                (platform, platform),
            )
        )

    async def kept(self, platform: str) -> list[KeptMessage]:
        """What waits for a platform, oldest first."""
        rows = await self._db.fetchall(
            "SELECT id, chat_id, text, attempts FROM outbox WHERE platform = ?"
            " AND status = 'waiting' ORDER BY id",
            (platform,),
        )
        return [KeptMessage(int(i), str(c), str(t), int(a)) for i, c, t, a in rows]

    async def keep(self, platform: str, chat: str, parts: Sequence[str], why: str) -> None:
        now = utc_now()
        async with self._db.transaction() as db:
            await db.executemany(
                "INSERT INTO outbox(platform, chat_id, text, created_at, error)"
                " VALUES (?, ?, ?, ?, ?)",
                [(platform, chat, part, now, why) for part in parts],
            )

    async def sent(self, message_id: int) -> None:
        async with self._db.transaction() as db:
            await db.execute("DELETE FROM outbox WHERE id = ?", (message_id,))

    async def refused(self, message_id: int, error: str, *, give_up: bool) -> None:
        """The platform refused it; it waits for another try, or with `give_up` is failed."""
        async with self._db.transaction() as db:
            await db.execute(
                "UPDATE outbox SET attempts = attempts + 1, status = ?, error = ? WHERE id = ?",
                ("failed" if give_up else "waiting", error, message_id),
            )
