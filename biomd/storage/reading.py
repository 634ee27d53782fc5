"""`reading_queue`: the sources the biographer still has to read, how far it got, and the
ones it gave up on. A source leaves the queue only when a turn really read it; turns that
did not are counted, and past a limit the source is set aside with the reason."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

from biomd.storage.database import Database, scalar_in, utc_now


@dataclass(frozen=True)
class Reading:
    """A source still to be read by the biographer, and how far it got."""

    document_id: int
    name: str
    kind: str
    text_length: int
    next_offset: int
    content_start: str | None
    content_end: str | None
    scope: str = "all"  # all, mine, or since:YYYY-MM-DD
    approved: bool = False  # the owner said read it (at its estimate)
    held: bool = False  # the owner said not now


@dataclass(frozen=True, slots=True)
class SetAside:
    """A source the biographer gave up on, and why."""

    document_id: int
    name: str
    why: str


@dataclass(frozen=True, slots=True)
class Attempt:
    """A turn that did not read its part: the tries so far, and whether that was the last."""

    attempts: int
    gave_up: bool


class ReadingQueue:
    def __init__(self, db: Database) -> None:
        self._db = db

    async def add(self, doc_id: int) -> None:
        """Put a source on the reading list (once)."""
        async with self._db.transaction() as db:
            await db.execute(
                "INSERT OR IGNORE INTO reading_queue(document_id, added_at) VALUES (?, ?)",
                (doc_id, utc_now()),
            )

    async def pending(self, include_set_aside: bool = False) -> list[Reading]:
        """Ready sources waiting to be read, oldest first; with `include_set_aside`, the ones
        given up on too."""
        aside = "" if include_set_aside else " AND q.gave_up_at IS NULL"
        rows = await self._db.fetchall(
            "SELECT d.id, d.name, d.kind, d.text_length, q.next_offset, d.content_start,"
            " d.content_end, q.scope, q.approved_at IS NOT NULL, q.held_at IS NOT NULL"
            " FROM reading_queue q JOIN documents d ON d.id = q.document_id"
            f" WHERE q.done_at IS NULL AND d.status = 'ready'{aside} ORDER BY d.id"
        )
        return [
            Reading(int(i), str(n), str(k), int(t), int(o), a, b, str(sc), bool(ok), bool(held))
            for i, n, k, t, o, a, b, sc, ok, held in rows
        ]

    async def set_aside(self) -> list[SetAside]:
        rows = await self._db.fetchall(
            "SELECT d.id, d.name, COALESCE(q.error, '') FROM reading_queue q JOIN documents d"
            " ON d.id = q.document_id WHERE q.done_at IS NULL AND q.gave_up_at IS NOT NULL"
            " ORDER BY d.id"
        )
        return [SetAside(int(i), str(n), str(w)) for i, n, w in rows]

    async def progress(
        self, doc_id: int, offset: int, done: bool, error: str | None = None
    ) -> None:
        """Read up to `offset` (the whole source when `done`); the tries start again."""
        async with self._db.transaction() as db:
            await db.execute(
                "UPDATE reading_queue SET next_offset = ?, done_at = ?, error = ?, attempts = 0"
                " WHERE document_id = ?",
                (offset, utc_now() if done else None, error, doc_id),
            )

    async def not_read(self, doc_id: int, why: str, limit: int) -> Attempt:
        """Count a turn that read nothing of the source; at `limit` tries it is set aside."""
        async with self._db.transaction() as db:
            await db.execute(
                "UPDATE reading_queue SET attempts = attempts + 1, error = ? WHERE document_id = ?",
                (why, doc_id),
            )
            attempts = int(
                await scalar_in(
                    db, "SELECT attempts FROM reading_queue WHERE document_id = ?", (doc_id,)
                )
                or 1
            )
            gave_up = attempts >= limit
            if gave_up:
                await db.execute(
                    "UPDATE reading_queue SET gave_up_at = ? WHERE document_id = ?",
                    (utc_now(), doc_id),
                )
        return Attempt(attempts, gave_up)

    async def choose(self, doc_id: int, scope: str) -> bool:
        """The owner chose to read a source (all of it, or a scope); False if it is not
        waiting to be read."""
        async with self._db.transaction() as db:
            cur = await db.execute(
                "UPDATE reading_queue SET scope = ?, approved_at = ?, held_at = NULL,"
                " gave_up_at = NULL, attempts = 0 WHERE document_id = ? AND done_at IS NULL",
                (scope, utc_now(), doc_id),
            )
            return cur.rowcount > 0

    async def hold(self, doc_id: int) -> bool:
        """The owner said not now: the source waits until they choose."""
        async with self._db.transaction() as db:
            cur = await db.execute(
                "UPDATE reading_queue SET held_at = ?, approved_at = NULL"
                " WHERE document_id = ? AND done_at IS NULL",
                (utc_now(), doc_id),
            )
            return cur.rowcount > 0

    async def give_up(self, doc_id: int, why: str) -> None:
        """Set a source aside, with the reason."""
        async with self._db.transaction() as db:
            await db.execute(
                "UPDATE reading_queue SET gave_up_at = ?, error = ? WHERE document_id = ?",
                (utc_now(), why, doc_id),
            )

    async def retry(self, only: Collection[int] | None = None) -> list[int]:
        """Sources set aside (or just those in `only`) wait to be read again; their ids."""
        rows = await self._db.fetchall(
            "SELECT document_id FROM reading_queue WHERE gave_up_at IS NOT NULL AND done_at IS NULL"
        )
        ids = [int(r[0]) for r in rows if only is None or int(r[0]) in only]
        async with self._db.transaction() as db:
            await db.executemany(
                "UPDATE reading_queue SET gave_up_at = NULL, attempts = 0 WHERE document_id = ?",
                [(i,) for i in ids],
            )
        return ids
