"""`meta`: key/value facts about the store (its id, the embedding model and dimension, the
vectors' epoch, the next question id, one-off backfills done, what each assistant last
read)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import aiosqlite

from biomd.storage.database import Database

_UPSERT = (
    "INSERT INTO meta(key, value) VALUES (?, ?)"
    " ON CONFLICT(key) DO UPDATE SET value = excluded.value"
)


class Meta:
    def __init__(self, db: Database) -> None:
        self._db = db

    async def get(self, key: str) -> str | None:
        value = await self._db.scalar("SELECT value FROM meta WHERE key = ?", (key,))
        return None if value is None else str(value)

    async def set(self, items: Mapping[str, str]) -> None:
        async with self._db.transaction() as db:
            await upsert(db, items)

    async def starting(self, prefix: str) -> dict[str, str]:
        """Every key that starts with `prefix`, with its value."""
        escaped = prefix.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        rows = await self._db.fetchall(
            "SELECT key, value FROM meta WHERE key LIKE ? ESCAPE '\\'", (escaped + "%",)
        )
        return {str(k): str(v) for k, v in rows}


async def upsert(db: aiosqlite.Connection, items: Mapping[str, str]) -> None:
    """Set meta keys inside another owner's transaction."""
    await db.executemany(_UPSERT, list(items.items()))


async def remove(db: aiosqlite.Connection, keys: Sequence[str]) -> None:
    """Delete meta keys inside another owner's transaction."""
    await db.executemany("DELETE FROM meta WHERE key = ?", [(k,) for k in keys])


async def bump(db: aiosqlite.Connection, key: str) -> None:
    """Add one to a counter kept in meta, inside another owner's transaction."""
    await db.execute(
        "INSERT INTO meta(key, value) VALUES (?, '1') ON CONFLICT(key)"
        " DO UPDATE SET value = CAST(CAST(value AS INTEGER) + 1 AS TEXT)",
        (key,),
    )
