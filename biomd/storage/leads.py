"""`leads`: the open questions and contradictions raised by rules from the reader's notes, by
their keys, so that each is raised once."""

from __future__ import annotations

from collections.abc import Sequence

from biomd.storage.database import Database, utc_now


class Leads:
    def __init__(self, db: Database) -> None:
        self._db = db

    async def raised(self) -> set[str]:
        return {str(r[0]) for r in await self._db.fetchall("SELECT key FROM leads")}

    async def add(self, keys: Sequence[str]) -> None:
        now = utc_now()
        async with self._db.transaction() as db:
            await db.executemany(
                "INSERT OR IGNORE INTO leads(key, raised_at) VALUES (?, ?)",
                [(k, now) for k in keys],
            )
