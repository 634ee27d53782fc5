"""The SQLite store: one file, WAL, foreign keys, ordered migrations, typed access.

Writes go through one connection guarded by a lock, each in its own short
`BEGIN IMMEDIATE` transaction. Reads use a second connection, so a search never sees
a half-finished write (WAL gives it a consistent snapshot).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import sqlite3
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

import aiosqlite

from core.errors import DiskFull, StoreError
from core.storage.migrations import FTS_TOKENIZER, MIGRATIONS


@dataclass(frozen=True, slots=True)
class Document:
    id: int
    sha256: str
    name: str
    kind: str
    mime: str | None
    size: int
    raw_path: str
    added_at: str
    content_start: str | None
    content_end: str | None
    text_length: int
    n_chunks: int
    status: str
    error: str | None


@dataclass(frozen=True, slots=True)
class ChunkRow:
    """A chunk to store: its span in the document's text, and a content timestamp if known."""

    seq: int
    start: int
    end: int
    text: str
    ts: str | None = None


@dataclass(frozen=True, slots=True)
class StoredChunk:
    id: int
    document_id: int
    seq: int
    start: int
    end: int
    text: str
    ts: str | None


_DOC_COLUMNS = ", ".join(Document.__slots__)
_CHUNK_COLUMNS = "id, document_id, seq, start_char, end_char, text, ts"
_UPSERT_META = (
    "INSERT INTO meta(key, value) VALUES (?, ?)"
    " ON CONFLICT(key) DO UPDATE SET value = excluded.value"
)


def utc_now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def ensure_private_dir(path: Path) -> None:
    """Create `path` (and parents) and make it readable by its owner only."""
    path.mkdir(parents=True, exist_ok=True, mode=0o700)
    path.chmod(0o700)


def _ensure_private_file(path: Path) -> None:
    fd = os.open(path, os.O_CREAT | os.O_WRONLY, 0o600)
    os.close(fd)
    path.chmod(0o600)


class Store:
    """Typed access to the database. Open with `await Store.open(path)`."""

    def __init__(
        self,
        path: Path,
        writer: aiosqlite.Connection,
        reader: aiosqlite.Connection,
        vector_reader: aiosqlite.Connection,
    ):
        self.path = path
        self._writer = writer
        self._reader = reader
        # Vector lookups get their own connection (and thread), so that they do not queue
        # behind a keyword query when hybrid search runs both sides at once.
        self._vector_reader = vector_reader
        self._lock = asyncio.Lock()
        self._terms_lock = asyncio.Lock()
        self._terms_ready = False
        self._df_cache: dict[str, tuple[int, int]] = {}

    @classmethod
    async def open(cls, path: Path) -> Store:
        ensure_private_dir(path.parent)
        _ensure_private_file(path)
        try:
            writer = await _connect(path)
            await writer.execute("PRAGMA journal_mode=WAL")
            await _migrate(writer)
            reader = await _connect(path)
            vector_reader = await _connect(path)
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"The database {path} cannot be opened: {exc}") from exc
        for suffix in ("-wal", "-shm"):
            side = path.with_name(path.name + suffix)
            if side.exists():
                side.chmod(0o600)
        store = cls(path, writer, reader, vector_reader)
        if await store.get_meta("store_id") is None:
            import uuid

            await store.set_meta({"store_id": uuid.uuid4().hex})
        return store

    async def close(self) -> None:
        await self._vector_reader.close()
        await self._reader.close()
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
        reader = self._vector_reader if vectors else self._reader
        async with reader.execute(sql, params) as cur:
            return list(await cur.fetchall())

    async def fetchone(
        self, sql: str, params: Sequence[Any] = (), *, vectors: bool = False
    ) -> sqlite3.Row | None:
        reader = self._vector_reader if vectors else self._reader
        async with reader.execute(sql, params) as cur:
            row: sqlite3.Row | None = await cur.fetchone()
            return row

    async def integrity_check(self) -> str:
        row = await self.fetchone("PRAGMA integrity_check")
        return str(row[0]) if row else "no answer"

    # -- meta ---------------------------------------------------------------------------

    async def get_meta(self, key: str) -> str | None:
        row = await self.fetchone("SELECT value FROM meta WHERE key = ?", (key,))
        return None if row is None else str(row[0])

    async def set_meta(self, items: dict[str, str]) -> None:
        async with self.transaction() as db:
            await db.executemany(
                _UPSERT_META,
                list(items.items()),
            )

    # -- documents ----------------------------------------------------------------------

    async def document(self, doc_id: int) -> Document | None:
        row = await self.fetchone(f"SELECT {_DOC_COLUMNS} FROM documents WHERE id = ?", (doc_id,))
        return None if row is None else Document(*row)

    async def document_by_sha(self, sha256: str) -> Document | None:
        row = await self.fetchone(
            f"SELECT {_DOC_COLUMNS} FROM documents WHERE sha256 = ?", (sha256,)
        )
        return None if row is None else Document(*row)

    async def documents(self, status: str | None = None) -> list[Document]:
        if status is None:
            rows = await self.fetchall(f"SELECT {_DOC_COLUMNS} FROM documents ORDER BY id")
        else:
            rows = await self.fetchall(
                f"SELECT {_DOC_COLUMNS} FROM documents WHERE status = ? ORDER BY id", (status,)
            )
        return [Document(*r) for r in rows]

    async def add_document(
        self, *, sha256: str, name: str, kind: str, mime: str | None, size: int, raw_path: str
    ) -> int:
        """Record a new source as pending; its text comes next."""
        async with self.transaction() as db:
            cur = await db.execute(
                "INSERT INTO documents(sha256, name, kind, mime, size, raw_path, added_at, status)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, 'pending')",
                (sha256, name, kind, mime, size, raw_path, utc_now()),
            )
            assert cur.lastrowid is not None
            return cur.lastrowid

    async def restart_document(
        self, doc_id: int, *, kind: str, mime: str | None, raw_path: str
    ) -> None:
        """Drop whatever a previous attempt indexed, and mark the document pending again."""
        async with self.transaction() as db:
            await db.execute("DELETE FROM chunks WHERE document_id = ?", (doc_id,))
            await db.execute(
                "UPDATE documents SET status = 'pending', error = NULL, n_chunks = 0,"
                " text_length = 0, content_start = NULL, content_end = NULL, kind = ?, mime = ?,"
                " raw_path = ? WHERE id = ?",
                (kind, mime, raw_path, doc_id),
            )

    async def add_chunks(self, doc_id: int, chunks: Sequence[ChunkRow]) -> None:
        """Store a batch of a document's chunks and index them for keyword search, atomically."""
        if not chunks:
            return
        rows = json.dumps([(c.seq, c.start, c.end, c.text, c.ts) for c in chunks])
        async with self.transaction() as db:
            # One statement for the whole batch: a step per row would hand the GIL back and
            # forth with the converting thread thousands of times (ingest ran at 13 MB/s).
            await db.execute(
                "INSERT INTO chunks(document_id, seq, start_char, end_char, text, ts)"
                " SELECT ?, value ->> 0, value ->> 1, value ->> 2, value ->> 3, value ->> 4"
                " FROM json_each(?)",
                (doc_id, rows),
            )
            await db.execute(
                "INSERT INTO chunks_fts(rowid, text) SELECT id, text FROM chunks"
                " WHERE document_id = ? AND seq BETWEEN ? AND ?",
                (doc_id, chunks[0].seq, chunks[-1].seq),
            )

    async def finish_document(
        self,
        doc_id: int,
        *,
        text_length: int,
        n_chunks: int,
        content_start: str | None,
        content_end: str | None,
        names: dict[str, int] | None = None,
        months: dict[tuple[str, str], int] | None = None,
    ) -> None:
        """Mark a document ready: from now on it is searchable."""
        async with self.transaction() as db:
            await db.execute(
                "UPDATE documents SET status = 'ready', error = NULL, text_length = ?,"
                " n_chunks = ?, content_start = ?, content_end = ? WHERE id = ?",
                (text_length, n_chunks, content_start, content_end, doc_id),
            )
            await db.execute("DELETE FROM document_names WHERE document_id = ?", (doc_id,))
            await db.executemany(
                "INSERT INTO document_names(document_id, name, mentions) VALUES (?, ?, ?)",
                [(doc_id, name, count) for name, count in (names or {}).items()],
            )
            await _set_months(db, doc_id, months or {})

    async def set_message_counts(self, doc_id: int, months: dict[tuple[str, str], int]) -> None:
        async with self.transaction() as db:
            await _set_months(db, doc_id, months)

    async def enqueue_reading(self, doc_id: int) -> None:
        """Put a source on the biographer's reading list (once)."""
        async with self.transaction() as db:
            await db.execute(
                "INSERT OR IGNORE INTO reading_queue(document_id, added_at) VALUES (?, ?)",
                (doc_id, utc_now()),
            )

    async def fail_document(self, doc_id: int, error: str) -> None:
        """Mark a document failed and drop any text it had, so nothing half-indexed remains."""
        async with self.transaction() as db:
            await db.execute("DELETE FROM chunks WHERE document_id = ?", (doc_id,))
            await db.execute(
                "UPDATE documents SET status = 'failed', error = ?, n_chunks = 0, text_length = 0,"
                " raw_path = ''"
                " WHERE id = ?",
                (error, doc_id),
            )

    async def delete_document(self, doc_id: int) -> Document | None:
        """Delete a document with its chunks, FTS rows and vectors (by cascade and trigger)."""
        doc = await self.document(doc_id)
        if doc is None:
            return None
        async with self.transaction() as db:
            had_vectors = await _scalar(
                db,
                "SELECT EXISTS(SELECT 1 FROM vectors v JOIN chunks c ON c.id = v.chunk_id"
                " WHERE c.document_id = ?)",
                (doc_id,),
            )
            await db.execute("DELETE FROM documents WHERE id = ?", (doc_id,))
            if had_vectors:
                await _bump_vectors_epoch(db)
        return doc

    # -- chunks -------------------------------------------------------------------------

    async def chunks_overlapping(self, doc_id: int, start: int, end: int) -> list[StoredChunk]:
        """Chunks of a document whose span meets [start, end), in order."""
        rows = await self.fetchall(
            f"SELECT {_CHUNK_COLUMNS} FROM chunks WHERE document_id = ?"
            " AND start_char < ? AND end_char > ? ORDER BY start_char",
            (doc_id, end, start),
        )
        return [StoredChunk(*r) for r in rows]

    async def chunks_by_id(self, ids: Sequence[int]) -> dict[int, StoredChunk]:
        if not ids:
            return {}
        marks = ",".join("?" * len(ids))
        rows = await self.fetchall(
            f"SELECT {_CHUNK_COLUMNS} FROM chunks WHERE id IN ({marks})", list(ids)
        )
        return {r[0]: StoredChunk(*r) for r in rows}

    async def chunks_needing_vectors(self, after: int, limit: int) -> list[tuple[int, str, str]]:
        """(chunk id, text, document name) of ready documents' chunks with ids above `after`
        that have no vector yet, by id. Walking `after` forward makes a full pass linear."""
        rows = await self.fetchall(
            "SELECT c.id, c.text, d.name FROM chunks c JOIN documents d ON d.id = c.document_id"
            " WHERE c.id > ? AND d.status = 'ready' AND NOT EXISTS (SELECT 1 FROM vectors v"
            " WHERE v.chunk_id = c.id) ORDER BY c.id LIMIT ?",
            (after, limit),
        )
        return [(int(r[0]), str(r[1]), str(r[2])) for r in rows]

    async def documents_needing_vectors(self, above: int = 0) -> list[int]:
        """Ready documents with ids above `above` that have a chunk without a vector, newest
        first."""
        rows = await self.fetchall(
            "SELECT d.id FROM documents d WHERE d.id > ? AND d.status = 'ready' AND EXISTS"
            " (SELECT 1 FROM chunks c WHERE c.document_id = d.id AND NOT EXISTS"
            " (SELECT 1 FROM vectors v WHERE v.chunk_id = c.id)) ORDER BY d.id DESC",
            (above,),
        )
        return [int(r[0]) for r in rows]

    async def document_chunks_needing_vectors(
        self, doc_id: int, after_seq: int, limit: int
    ) -> list[tuple[int, int, str]]:
        """(chunk id, seq, text) of one document's chunks after `after_seq` that have no
        vector yet, in order (an index walk: a full pass over a document is linear)."""
        rows = await self.fetchall(
            "SELECT c.id, c.seq, c.text FROM chunks c WHERE c.document_id = ? AND c.seq > ?"
            " AND NOT EXISTS (SELECT 1 FROM vectors v WHERE v.chunk_id = c.id)"
            " ORDER BY c.seq LIMIT ?",
            (doc_id, after_seq, limit),
        )
        return [(int(r[0]), int(r[1]), str(r[2])) for r in rows]

    # -- vectors ------------------------------------------------------------------------

    async def add_vectors(
        self, rows: Sequence[tuple[int, bytes]], input_hashes: Sequence[bytes] | None = None
    ) -> None:
        """Store vectors for chunks, each with the hash of the model's input if given; a chunk
        deleted meanwhile is skipped."""
        hashes: Sequence[bytes | None] = input_hashes or [None] * len(rows)
        async with self.transaction() as db:
            await db.executemany(
                "INSERT OR IGNORE INTO vectors(chunk_id, vector, input_hash)"
                " SELECT ?, ?, ? WHERE EXISTS (SELECT 1 FROM chunks WHERE id = ?)",
                [(cid, blob, h, cid) for (cid, blob), h in zip(rows, hashes, strict=True)],
            )

    async def vectors_by_input(self, hashes: Sequence[bytes]) -> dict[bytes, bytes]:
        """A stored vector for each of these input hashes that has one."""
        rows = await self._vectors_by("input_hash", hashes)
        return {bytes(key): blob for key, blob in rows}

    async def clear_vectors(self, meta: dict[str, str]) -> None:
        """Delete every vector and set new meta in one step (for a re-index)."""
        async with self.transaction() as db:
            await db.execute("DELETE FROM vectors")
            await db.executemany(
                _UPSERT_META,
                list(meta.items()),
            )
            await _bump_vectors_epoch(db)

    async def vectors_after(self, after_id: int, limit: int) -> list[tuple[int, int, bytes]]:
        """(vector row id, chunk id, blob) for rows newer than `after_id`."""
        rows = await self.fetchall(
            "SELECT id, chunk_id, vector FROM vectors WHERE id > ? ORDER BY id LIMIT ?",
            (after_id, limit),
            vectors=True,
        )
        return [(int(r[0]), int(r[1]), bytes(r[2])) for r in rows]

    async def vectors_of(self, chunk_ids: Sequence[int]) -> dict[int, bytes]:
        """The float32 blobs of these chunks (those that have one)."""
        rows = await self._vectors_by("chunk_id", chunk_ids)
        return {int(key): blob for key, blob in rows}

    async def _vectors_by(
        self, column: Literal["chunk_id", "input_hash"], keys: Sequence[object]
    ) -> list[tuple[Any, bytes]]:
        """(key, float32 blob) of the vectors whose `column` is one of `keys`."""
        if not keys:
            return []
        marks = ",".join("?" * len(keys))
        rows = await self.fetchall(
            f"SELECT {column}, vector FROM vectors WHERE {column} IN ({marks})",
            list(keys),
            vectors=True,
        )
        return [(r[0], bytes(r[1])) for r in rows]

    async def count_vectors_upto(self, last_id: int) -> int:
        row = await self.fetchone(
            "SELECT COUNT(*) FROM vectors WHERE id <= ?", (last_id,), vectors=True
        )
        return int(row[0]) if row else 0

    async def term_doc_freq(self, tokens: Sequence[str], total: int = 0) -> dict[str, int]:
        """How many chunks hold each token, as the FTS index stems it (0 if none). Counting
        a common word reads its whole posting list (20 ms for 400k chunks), so counts are
        cached until the corpus has grown by a tenth."""
        fresh = {
            t: hit[0]
            for t in tokens
            if (hit := self._df_cache.get(t)) is not None and total <= hit[1] * 1.1 + 100
        }
        missing = [t for t in dict.fromkeys(tokens) if t not in fresh]
        if missing:
            counted = await self._count_terms(missing)
            for token, count in counted.items():
                self._df_cache[token] = (count, total)
            if len(self._df_cache) > 50_000:
                self._df_cache.clear()
            fresh.update(counted)
        return {t: fresh.get(t, 0) for t in tokens}

    async def _count_terms(self, tokens: list[str]) -> dict[str, int]:
        async with self._terms_lock:
            if not self._terms_ready:
                await self._reader.execute(
                    "CREATE VIRTUAL TABLE IF NOT EXISTS temp.biomd_query USING fts5(x,"
                    f" tokenize = '{FTS_TOKENIZER}')"
                )
                await self._reader.execute(
                    "CREATE VIRTUAL TABLE IF NOT EXISTS temp.biomd_query_terms"
                    " USING fts5vocab(temp, biomd_query, instance)"
                )
                await self._reader.execute(
                    "CREATE VIRTUAL TABLE IF NOT EXISTS temp.biomd_vocab"
                    " USING fts5vocab(main, chunks_fts, row)"
                )
                self._terms_ready = True
            await self._reader.execute("DELETE FROM temp.biomd_query")
            await self._reader.executemany(
                "INSERT INTO temp.biomd_query(rowid, x) VALUES (?, ?)",
                [(i + 1, t) for i, t in enumerate(tokens)],
            )
            async with self._reader.execute(
                "SELECT q.doc, MIN(COALESCE(v.doc, 0)) FROM temp.biomd_query_terms q"
                " LEFT JOIN temp.biomd_vocab v ON v.term = q.term GROUP BY q.doc"
            ) as cur:
                rows = await cur.fetchall()
        found = {tokens[int(r[0]) - 1]: int(r[1]) for r in rows}
        return {t: found.get(t, 0) for t in tokens}

    async def count_vectors_after(self, after_id: int) -> int:
        row = await self.fetchone(
            "SELECT COUNT(*) FROM vectors WHERE id > ?", (after_id,), vectors=True
        )
        return int(row[0]) if row else 0

    async def vectors_state(self) -> tuple[str, int]:
        """(epoch, newest vector row id): enough to tell whether an in-RAM copy is current."""
        row = await self.fetchone(
            "SELECT (SELECT value FROM meta WHERE key = 'vectors_epoch'),"
            " (SELECT COALESCE(MAX(id), 0) FROM vectors)",
            vectors=True,
        )
        assert row is not None
        return (str(row[0] or "0"), int(row[1]))

    # -- counts -------------------------------------------------------------------------

    async def counts(self) -> dict[str, int]:
        row = await self.fetchone(
            "SELECT (SELECT COUNT(*) FROM documents WHERE status = 'ready'),"
            " (SELECT COUNT(*) FROM documents WHERE status = 'pending'),"
            " (SELECT COUNT(*) FROM documents WHERE status = 'failed'),"
            " (SELECT COUNT(*) FROM chunks),"
            " (SELECT COUNT(*) FROM vectors),"
            " (SELECT COALESCE(SUM(text_length), 0) FROM documents WHERE status = 'ready'),"
            " (SELECT COALESCE(SUM(size), 0) FROM documents)"
        )
        assert row is not None
        keys = ("documents", "pending", "failed", "chunks", "vectors", "text_chars", "raw_bytes")
        return dict(zip(keys, (int(v) for v in row), strict=True))


async def _connect(path: Path) -> aiosqlite.Connection:
    conn = await aiosqlite.connect(path, isolation_level=None, timeout=60)
    await conn.execute("PRAGMA foreign_keys=ON")
    await conn.execute("PRAGMA synchronous=NORMAL")
    await conn.execute("PRAGMA busy_timeout=60000")
    return conn


async def _set_months(
    db: aiosqlite.Connection, doc_id: int, months: dict[tuple[str, str], int]
) -> None:
    await db.execute("DELETE FROM message_counts WHERE document_id = ?", (doc_id,))
    await db.executemany(
        "INSERT INTO message_counts(document_id, month, speaker, messages) VALUES (?, ?, ?, ?)",
        [(doc_id, month, speaker, n) for (month, speaker), n in months.items()],
    )


async def _scalar(db: aiosqlite.Connection, sql: str, params: Sequence[Any] = ()) -> Any:
    async with db.execute(sql, params) as cur:
        row = await cur.fetchone()
    return None if row is None else row[0]


async def _bump_vectors_epoch(db: aiosqlite.Connection) -> None:
    await db.execute(
        "INSERT INTO meta(key, value) VALUES ('vectors_epoch', '1') ON CONFLICT(key)"
        " DO UPDATE SET value = CAST(CAST(value AS INTEGER) + 1 AS TEXT)"
    )


async def _migrate(db: aiosqlite.Connection) -> None:
    """Run the migrations this database has not seen yet, each in its own transaction."""
    version = int(await _scalar(db, "PRAGMA user_version") or 0)
    if version > len(MIGRATIONS):
        raise StoreError(
            f"This database was written by a newer biomd (schema {version}, this one knows "
            f"{len(MIGRATIONS)}). Upgrade biomd."
        )
    for number, migration in enumerate(MIGRATIONS[version:], start=version + 1):
        await db.execute("BEGIN IMMEDIATE")
        try:
            for statement in _split_sql(migration.sql):
                await db.execute(statement)
            await db.execute(f"PRAGMA user_version = {number}")
        except BaseException:
            await db.execute("ROLLBACK")
            raise
        await db.execute("COMMIT")


def _split_sql(script: str) -> list[str]:
    """Split a script into complete statements (trigger bodies stay whole)."""
    statements: list[str] = []
    current = ""
    for line in script.splitlines(keepends=True):
        if line.strip().startswith("--"):
            continue
        current += line
        if sqlite3.complete_statement(current):
            if current.strip():
                statements.append(current.strip())
            current = ""
    if current.strip():
        statements.append(current.strip())
    return statements
