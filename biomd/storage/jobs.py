"""`jobs`: long work (a forwarded file, an answer, a note), persistent, one lane at a time.
A job is `queued` (not before `not_before`), `running`, `done` or `failed`; `running` jobs
are queued again at start-up. The payload is JSON text; what it means is the app's."""

from __future__ import annotations

from dataclasses import dataclass

from biomd.storage.database import Database, utc_now


@dataclass(frozen=True, slots=True)
class JobRow:
    id: int
    kind: str
    payload: str  # JSON
    attempts: int  # including the one just claimed


class Jobs:
    def __init__(self, db: Database) -> None:
        self._db = db

    async def add(self, kind: str, payload: str, lane: str) -> int:
        async with self._db.transaction() as db:
            cur = await db.execute(
                "INSERT INTO jobs(kind, payload, status, created_at, lane)"
                " VALUES (?, ?, 'queued', ?, ?)",
                (kind, payload, utc_now(), lane),
            )
            assert cur.lastrowid is not None
            return cur.lastrowid

    async def recover(self) -> int:
        """Jobs a previous process was running go back in the queue; how many."""
        async with self._db.transaction() as db:
            cur = await db.execute("UPDATE jobs SET status = 'queued' WHERE status = 'running'")
            return int(cur.rowcount or 0)

    async def queued(self) -> int:
        return int(await self._db.scalar("SELECT COUNT(*) FROM jobs WHERE status = 'queued'"))

    async def unfinished(self) -> int:
        """Jobs queued or running."""
        return int(
            await self._db.scalar("SELECT COUNT(*) FROM jobs WHERE status IN ('queued', 'running')")
        )

    async def claim(self, lane: str | None = None) -> JobRow | None:
        """The oldest job that is due (in `lane`, if given), now marked running."""
        now = utc_now()
        async with self._db.transaction() as db:
            async with db.execute(
                "SELECT id, kind, payload, attempts FROM jobs WHERE status = 'queued'"
                " AND (not_before IS NULL OR not_before <= ?) AND (? IS NULL OR lane = ?)"
                " ORDER BY id LIMIT 1",
                (now, lane, lane),
            ) as cur:
                row = await cur.fetchone()
            if row is None:
                return None
            await db.execute(
                "UPDATE jobs SET status = 'running', started_at = ?, attempts = attempts + 1"
                " WHERE id = ?",
                (now, row[0]),
            )
        return JobRow(int(row[0]), str(row[1]), str(row[2]), int(row[3]) + 1)

    async def claim_id(self, job_id: int) -> JobRow | None:
        """Job `job_id`, marked running, if it is still queued (nobody claimed it yet)."""
        async with self._db.transaction() as db:
            cur = await db.execute(
                "UPDATE jobs SET status = 'running', started_at = ?, attempts = attempts + 1"
                " WHERE id = ? AND status = 'queued' RETURNING id, kind, payload, attempts",
                (utc_now(), job_id),
            )
            row = await cur.fetchone()
        return None if row is None else JobRow(int(row[0]), str(row[1]), str(row[2]), int(row[3]))

    async def again_at(self, job_id: int, not_before: str, error: str, *, counts: bool) -> None:
        """Queue a job again, not before `not_before`; a try that `counts` not is given back."""
        give_back = "" if counts else ", attempts = attempts - 1"
        async with self._db.transaction() as db:
            await db.execute(
                f"UPDATE jobs SET status = 'queued', not_before = ?, error = ?{give_back}"
                " WHERE id = ?",
                (not_before, error, job_id),
            )

    async def finish(self, job_id: int, status: str, error: str | None = None) -> None:
        """`done`, or `failed` with why."""
        async with self._db.transaction() as db:
            await db.execute(
                "UPDATE jobs SET status = ?, finished_at = ?, error = ? WHERE id = ?",
                (status, utc_now(), error, job_id),
            )

    async def save_payload(self, job_id: int, payload: str) -> None:
        async with self._db.transaction() as db:
            await db.execute("UPDATE jobs SET payload = ? WHERE id = ?", (payload, job_id))
