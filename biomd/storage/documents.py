"""`documents`: one row per source. "Source" is the word for what the owner gave biomd (a
file, an export, a voice note, an answer); in the schema and the wire formats (JSON output,
MCP) its id is `document_id`, and a source row is a `Source` here. Ids are never reused, so a
citation [#12] stays unambiguous. A source is `pending` while it is indexed, `ready` once
every chunk is in (searchable from then on), or `failed` with the reason."""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from biomd.storage import activity, chunks, meta, vectors
from biomd.storage.database import Database, utc_now


class DuplicateSource(Exception):
    """A source with the same content (sha256) is stored already."""


@dataclass(frozen=True, slots=True)
class Source:
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
    languages: str = ""  # ISO 639-1 codes of the languages its text is in, most first
    private: bool = False  # kept from other assistants (the owner's to search and read)

    def __post_init__(self) -> None:
        object.__setattr__(self, "private", bool(self.private))  # SQLite's 0 or 1


@dataclass(frozen=True, slots=True)
class Counts:
    documents: int
    pending: int
    failed: int
    chunks: int
    vectors: int
    text_chars: int
    raw_bytes: int


@dataclass(frozen=True, slots=True)
class SourceState:
    """A source with how far biomd has got with it: vectors made, and the biographer's
    reading (done, set aside, or why not)."""

    source: Source
    vectors: int
    read_at: str | None
    set_aside_at: str | None
    reading_error: str | None
    next_offset: int | None = None  # how far it is read; None when it is not queued


_COLUMNS = ", ".join(Source.__slots__)


class Documents:
    def __init__(self, db: Database) -> None:
        self._db = db

    async def get(self, doc_id: int) -> Source | None:
        row = await self._db.fetchone(f"SELECT {_COLUMNS} FROM documents WHERE id = ?", (doc_id,))
        return None if row is None else Source(*row)

    async def by_sha(self, sha256: str) -> Source | None:
        row = await self._db.fetchone(
            f"SELECT {_COLUMNS} FROM documents WHERE sha256 = ?", (sha256,)
        )
        return None if row is None else Source(*row)

    async def all(self, status: str | None = None) -> list[Source]:
        """Every source (or those with `status`), oldest first."""
        if status is None:
            rows = await self._db.fetchall(f"SELECT {_COLUMNS} FROM documents ORDER BY id")
        else:
            rows = await self._db.fetchall(
                f"SELECT {_COLUMNS} FROM documents WHERE status = ? ORDER BY id", (status,)
            )
        return [Source(*r) for r in rows]

    async def ready_ids(self) -> set[int]:
        rows = await self._db.fetchall("SELECT id FROM documents WHERE status = 'ready'")
        return {int(r[0]) for r in rows}

    async def names(self, ids: Sequence[int]) -> dict[int, str]:
        """The names of these sources."""
        if not ids:
            return {}
        marks = ",".join("?" * len(ids))
        rows = await self._db.fetchall(
            f"SELECT id, name FROM documents WHERE id IN ({marks})", sorted(ids)
        )
        return {int(r[0]): str(r[1]) for r in rows}

    async def add(
        self, *, sha256: str, name: str, kind: str, mime: str | None, size: int, raw_path: str
    ) -> int:
        """Record a new source as pending (its text comes next); DuplicateSource if the same
        content is stored already."""
        try:
            async with self._db.transaction() as db:
                cur = await db.execute(
                    "INSERT INTO documents(sha256, name, kind, mime, size, raw_path, added_at,"
                    " status) VALUES (?, ?, ?, ?, ?, ?, ?, 'pending')",
                    (sha256, name, kind, mime, size, raw_path, utc_now()),
                )
                assert cur.lastrowid is not None
                return cur.lastrowid
        except sqlite3.IntegrityError as exc:
            raise DuplicateSource(sha256) from exc

    async def restart(self, doc_id: int, *, kind: str, mime: str | None, raw_path: str) -> None:
        """Drop whatever a previous attempt indexed, and mark the source pending again."""
        async with self._db.transaction() as db:
            await chunks.drop(db, doc_id)
            await db.execute(
                "UPDATE documents SET status = 'pending', error = NULL, n_chunks = 0,"
                " text_length = 0, content_start = NULL, content_end = NULL, kind = ?, mime = ?,"
                " raw_path = ? WHERE id = ?",
                (kind, mime, raw_path, doc_id),
            )

    async def finish(
        self,
        doc_id: int,
        *,
        text_length: int,
        n_chunks: int,
        content_start: str | None,
        content_end: str | None,
        names: Mapping[str, int] | None = None,
        months: activity.Months | None = None,
    ) -> None:
        """Mark a source ready (searchable from now on), with who speaks in it and when."""
        async with self._db.transaction() as db:
            await db.execute(
                "UPDATE documents SET status = 'ready', error = NULL, text_length = ?,"
                " n_chunks = ?, content_start = ?, content_end = ? WHERE id = ?",
                (text_length, n_chunks, content_start, content_end, doc_id),
            )
            await activity.replace(db, doc_id, names or {}, months or {})

    async def date_span(self) -> tuple[str | None, str | None]:
        """The first and last dates any ready source covers."""
        row = await self._db.fetchone(
            "SELECT MIN(content_start), MAX(COALESCE(content_end, content_start)) FROM documents"
            " WHERE status = 'ready'"
        )
        return (row[0], row[1]) if row else (None, None)

    async def set_languages(self, doc_id: int, codes: Sequence[str]) -> None:
        """The languages a source's text is in, most first."""
        async with self._db.transaction() as db:
            await db.execute(
                "UPDATE documents SET languages = ? WHERE id = ?", (",".join(codes), doc_id)
            )

    async def set_private(self, doc_id: int, private: bool) -> bool:
        """Keep a source from other assistants, or share it again; False if there is none."""
        async with self._db.transaction() as db:
            done = await db.execute(
                "UPDATE documents SET private = ? WHERE id = ?", (int(private), doc_id)
            )
            return bool(done.rowcount)

    async def private_ids(self) -> frozenset[int]:
        """The sources kept from other assistants."""
        rows = await self._db.fetchall("SELECT id FROM documents WHERE private = 1")
        return frozenset(int(r[0]) for r in rows)

    async def fail(self, doc_id: int, error: str) -> None:
        """Mark a source failed and drop any text it had, so nothing half-indexed remains."""
        async with self._db.transaction() as db:
            await chunks.drop(db, doc_id)
            await db.execute(
                "UPDATE documents SET status = 'failed', error = ?, n_chunks = 0, text_length = 0,"
                " raw_path = '' WHERE id = ?",
                (error, doc_id),
            )

    async def delete(self, doc_id: int, *, refused: bool = False) -> Source | None:
        """Delete a source with its chunks, keyword index, vectors, counts and place in the
        reading queue (by cascade and trigger). A source `refused` as it was added (the same
        text as a stored one), never shown with its id, gives its id back when it was the
        last: the next source takes it, so ids don't skip. A forgotten source's id is never
        used again (bio.md may cite it)."""
        doc = await self.get(doc_id)
        if doc is None:
            return None
        async with self._db.transaction() as db:
            had_vectors = await vectors.any_of_document(db, doc_id)
            await db.execute("DELETE FROM documents WHERE id = ?", (doc_id,))
            if had_vectors:
                await meta.bump(db, vectors.EPOCH)
            if refused:
                await db.execute(
                    "UPDATE sqlite_sequence SET seq = (SELECT COALESCE(MAX(id), 0) FROM"
                    " documents) WHERE name = 'documents' AND seq = ?",
                    (doc_id,),
                )
        return doc

    async def counts(self) -> Counts:
        row = await self._db.fetchone(
            "SELECT (SELECT COUNT(*) FROM documents WHERE status = 'ready'),"
            " (SELECT COUNT(*) FROM documents WHERE status = 'pending'),"
            " (SELECT COUNT(*) FROM documents WHERE status = 'failed'),"
            " (SELECT COUNT(*) FROM chunks),"
            " (SELECT COUNT(*) FROM vectors),"
            " (SELECT COALESCE(SUM(text_length), 0) FROM documents WHERE status = 'ready'),"
            " (SELECT COALESCE(SUM(size), 0) FROM documents)"
        )
        assert row is not None
        return Counts(*(int(v) for v in row))

    async def states(self) -> list[SourceState]:
        """Every source, newest first, with its vectors and reading state."""
        cols = ", ".join(f"d.{c}" for c in Source.__slots__)
        rows = await self._db.fetchall(
            f"SELECT {cols}, (SELECT COUNT(*) FROM vectors v JOIN chunks c ON c.id = v.chunk_id"
            " WHERE c.document_id = d.id), q.done_at, q.gave_up_at, q.error, q.next_offset"
            " FROM documents d LEFT JOIN reading_queue q ON q.document_id = d.id"
            " ORDER BY d.id DESC"
        )
        width = len(Source.__slots__)
        return [SourceState(Source(*r[:width]), int(r[width]), *r[width + 1 :]) for r in rows]
