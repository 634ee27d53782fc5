"""The connections to the one SQLite file, for the table owners in this package only.

Writes go through one connection guarded by a lock, each in its own short `BEGIN IMMEDIATE`
transaction. Reads use a second connection, so a search never sees a half-finished write (WAL
gives it a consistent snapshot), and vector lookups a third, so that they don't queue behind a
keyword query when hybrid search runs both at once. Nothing outside biomd/storage uses this:
other layers call the table owners' named functions."""

from __future__ import annotations

import asyncio
import contextlib
import os
import sqlite3
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import aiosqlite

from biomd.errors import DiskFull, StoreError
from biomd.storage import fts_text
from biomd.storage.migrations import migrate


def utc_now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def ensure_private_dir(path: Path) -> None:
    """Create `path` and make it readable by its owner only; a parent it has to create is
    made so too (mkdir's `mode` is not given to parents)."""
    missing = [p for p in (path, *path.parents) if not p.exists()]
    for folder in reversed(missing):
        folder.mkdir(mode=0o700, exist_ok=True)
        folder.chmod(0o700)
    path.chmod(0o700)


def _ensure_private_file(path: Path) -> None:
    fd = os.open(path, os.O_CREAT | os.O_WRONLY, 0o600)
    os.close(fd)
    path.chmod(0o600)


class Database:
    """The writer, reader and vector-reader connections. Open with `await Database.open`."""

    def __init__(
        self,
        path: Path,
        writer: aiosqlite.Connection,
        reader: aiosqlite.Connection,
        vector_reader: aiosqlite.Connection,
    ) -> None:
        self.path = path
        self._writer = writer
        self.reader = reader
        self._vector_reader = vector_reader
        self._lock = asyncio.Lock()

    @classmethod
    async def open(cls, path: Path) -> Database:
        ensure_private_dir(path.parent)
        _ensure_private_file(path)
        try:
            writer = await _connect(path)
            await writer.execute("PRAGMA journal_mode=WAL")
            await migrate(writer)
            reader = await _connect(path)
            vector_reader = await _connect(path)
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"The database {path} cannot be opened: {exc}") from exc
        for suffix in ("-wal", "-shm"):
            side = path.with_name(path.name + suffix)
            if side.exists():
                side.chmod(0o600)
        return cls(path, writer, reader, vector_reader)

    async def close(self) -> None:
        await self._vector_reader.close()
        await self.reader.close()
        await self._writer.close()

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[aiosqlite.Connection]:
        """One write transaction; rolled back if anything inside raises. A full disk becomes
        DiskFull, with the store left as it was before the transaction."""
        async with self._lock:
            await self._writer.execute("BEGIN IMMEDIATE")
            try:
                yield self._writer
                await self._writer.execute("COMMIT")
            except BaseException as exc:
                with contextlib.suppress(sqlite3.Error):
                    await self._writer.execute("ROLLBACK")
                reason = str(exc).lower()
                if isinstance(exc, sqlite3.OperationalError) and (
                    "full" in reason or "disk i/o" in reason
                ):
                    raise DiskFull(
                        f"A write to the disk failed ({exc}): the disk is probably full. "
                        "Nothing half-written was kept. Free some space and run the same "
                        "command again; it continues where it stopped."
                    ) from exc
                raise

    async def fetchall(
        self, sql: str, params: Sequence[Any] = (), *, vectors: bool = False
    ) -> list[sqlite3.Row]:
        reader = self._vector_reader if vectors else self.reader
        async with reader.execute(sql, params) as cur:
            return list(await cur.fetchall())

    async def fetchone(
        self, sql: str, params: Sequence[Any] = (), *, vectors: bool = False
    ) -> sqlite3.Row | None:
        reader = self._vector_reader if vectors else self.reader
        async with reader.execute(sql, params) as cur:
            row: sqlite3.Row | None = await cur.fetchone()
            return row

    async def scalar(self, sql: str, params: Sequence[Any] = (), *, vectors: bool = False) -> Any:
        """The first column of the first row, or None."""
        row = await self.fetchone(sql, params, vectors=vectors)
        return None if row is None else row[0]


async def scalar_in(db: aiosqlite.Connection, sql: str, params: Sequence[Any] = ()) -> Any:
    """The first column of the first row, inside a transaction."""
    async with db.execute(sql, params) as cur:
        row = await cur.fetchone()
    return None if row is None else row[0]


async def _connect(path: Path) -> aiosqlite.Connection:
    conn = await aiosqlite.connect(path, isolation_level=None, timeout=60)
    await conn.execute("PRAGMA foreign_keys=ON")
    await conn.execute("PRAGMA synchronous=NORMAL")
    await conn.execute("PRAGMA busy_timeout=60000")
    await conn.create_function(fts_text.SQL_NAME, 1, fts_text.index_text, deterministic=True)
    return conn
