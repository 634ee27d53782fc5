"""`chat_messages`: the conversation with the owner, in order. Its tail is each chat turn's
memory; its days are what `[chat YYYY-MM-DD]` may cite."""

from __future__ import annotations

from dataclasses import dataclass

from biomd.storage.database import Database, utc_now


@dataclass(frozen=True, slots=True)
class ChatMessage:
    id: int
    at: str  # UTC, ISO 8601
    role: str  # user or assistant
    content: str
    turn_id: int | None


class ChatLog:
    def __init__(self, db: Database) -> None:
        self._db = db

    async def add_exchange(self, question: str, answer: str, turn_id: int | None) -> None:
        """The owner's message and the biographer's answer, together."""
        now = utc_now()
        async with self._db.transaction() as db:
            await db.executemany(
                "INSERT INTO chat_messages(at, role, content, turn_id) VALUES (?, ?, ?, ?)",
                [(now, "user", question, turn_id), (now, "assistant", answer, turn_id)],
            )

    async def recent(self, limit: int) -> list[ChatMessage]:
        """The last `limit` messages, oldest first."""
        rows = await self._db.fetchall(
            "SELECT id, at, role, content, turn_id FROM chat_messages ORDER BY id DESC LIMIT ?",
            (limit,),
        )
        return [ChatMessage(int(i), str(a), str(r), str(c), t) for i, a, r, c, t in reversed(rows)]

    async def owner_times(self) -> list[str]:
        """When the owner wrote, every message (UTC)."""
        rows = await self._db.fetchall("SELECT at FROM chat_messages WHERE role = 'user'")
        return [str(r[0]) for r in rows]
