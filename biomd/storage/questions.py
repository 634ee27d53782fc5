"""`questions` and `question_messages`: the open questions of bio.md by stable id (when each
was asked, and which source answered it), and which chat message carried which question, so
that a reply to it maps back."""

from __future__ import annotations

from collections.abc import Iterable

import aiosqlite

from biomd.storage.database import Database, utc_now


class QuestionTable:
    def __init__(self, db: Database) -> None:
        self._db = db

    async def count(self) -> int:
        return int(await self._db.scalar("SELECT COUNT(*) FROM questions"))

    async def answered(self, qid: str, text: str, at: str, document_id: int) -> None:
        """Source `document_id` is the owner's answer to `qid`, given at `at`."""
        async with self._db.transaction() as db:
            await db.execute(
                "INSERT INTO questions(id, text, created_at, answered_at, answer_document_id)"
                " VALUES (?, ?, ?, ?, ?) ON CONFLICT(id) DO UPDATE SET answered_at ="
                " excluded.answered_at, answer_document_id = excluded.answer_document_id",
                (qid, text, at, at, document_id),
            )

    async def asked(self) -> dict[str, str]:
        """When each question was last asked (UTC), for those that were."""
        rows = await self._db.fetchall(
            "SELECT id, asked_at FROM questions WHERE asked_at IS NOT NULL"
        )
        return {str(i): str(a) for i, a in rows}

    async def sent(self, platform: str, chat: str, message: str, qid: str) -> None:
        """`message` in `chat` asked `qid` just now."""
        now = utc_now()
        async with self._db.transaction() as db:
            await db.execute(
                "INSERT OR REPLACE INTO question_messages(platform, chat_id, message_id,"
                " question_id, sent_at) VALUES (?, ?, ?, ?, ?)",
                (platform, chat, message, qid, now),
            )
            await db.execute("UPDATE questions SET asked_at = ? WHERE id = ?", (now, qid))

    async def of_message(self, platform: str, chat: str, message: str) -> str | None:
        """The question a chat message asked, if it asked one."""
        value = await self._db.scalar(
            "SELECT question_id FROM question_messages WHERE platform = ? AND chat_id = ?"
            " AND message_id = ?",
            (platform, chat, message),
        )
        return None if value is None else str(value)


async def keep_open(db: aiosqlite.Connection, questions: Iterable[tuple[str, str]]) -> None:
    """Record bio.md's open questions (id, text) by id, inside the transaction of the
    revision that has them."""
    await db.executemany(
        "INSERT INTO questions(id, text, created_at) VALUES (?, ?, ?)"
        " ON CONFLICT(id) DO UPDATE SET text = excluded.text",
        [(qid, text, utc_now()) for qid, text in questions],
    )
