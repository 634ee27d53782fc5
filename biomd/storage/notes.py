"""`notes`, `notes_fts`, `note_vectors` and `noted_parts`: the reader's notes on
each source (a kind, a statement, a date, the people, a verbatim quote and its exact span),
which stretches of a source have been noted, and which notes a reading turn has taken
into bio.md. A part is noted with all its notes in one transaction, once."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import aiosqlite

from biomd.storage.database import Database, scalar_in, utc_now

_COLUMNS = (
    "id, document_id, kind, statement, date, people, quote, start_char, end_char, integrated_turn"
)


@dataclass(frozen=True, slots=True)
class NewNote:
    """A note whose quote was found in its source, at [start, end)."""

    kind: str
    statement: str
    date: str | None
    people: tuple[str, ...]
    quote: str
    start: int
    end: int


@dataclass(frozen=True, slots=True)
class Note:
    id: int
    document_id: int
    kind: str
    statement: str
    date: str | None
    people: tuple[str, ...]
    quote: str  # as the source has it: text[start:end]
    start: int
    end: int
    integrated_turn: int | None


@dataclass(frozen=True, slots=True)
class NotedPart:
    """A stretch of a source the reader was given: noted (with how many notes were kept
    and dropped for quotes not found), or tried and failed."""

    document_id: int
    start: int
    end: int
    noted: bool
    kept: int
    dropped: int
    attempts: int
    error: str | None


@dataclass(frozen=True, slots=True)
class Tally:
    """Extracts across all sources: kept, dropped for unverified quotes, still waiting."""

    kept: int
    dropped: int
    waiting: int


def _people(value: str) -> tuple[str, ...]:
    return tuple(p for p in value.split("\n") if p)


def _row_to_note(row: Sequence[object]) -> Note:
    i, doc, kind, statement, date, people, quote, start, end, turn = row
    return Note(
        int(str(i)),
        int(str(doc)),
        str(kind),
        str(statement),
        None if date is None else str(date),
        _people(str(people or "")),
        str(quote),
        int(str(start)),
        int(str(end)),
        None if turn is None else int(str(turn)),
    )


class Notes:
    def __init__(self, db: Database) -> None:
        self._db = db

    async def parts(self, doc_id: int) -> list[NotedPart]:
        """The parts of a source the reader was given, in order."""
        rows = await self._db.fetchall(
            "SELECT document_id, start_char, end_char, noted_at IS NOT NULL, kept, dropped,"
            " attempts, error FROM noted_parts WHERE document_id = ? ORDER BY start_char",
            (doc_id,),
        )
        return [
            NotedPart(int(d), int(s), int(e), bool(n), int(k), int(x), int(a), err)
            for d, s, e, n, k, x, a, err in rows
        ]

    async def take(
        self, doc_id: int, start: int, end: int, found: Sequence[NewNote], dropped: int
    ) -> bool:
        """Keep a part's notes and mark the part noted, all at once; False (and nothing
        written) if the part was noted already, or its source is gone."""
        async with self._db.transaction() as db:
            done = await scalar_in(
                db,
                "SELECT noted_at IS NOT NULL FROM noted_parts"
                " WHERE document_id = ? AND start_char = ?",
                (doc_id, start),
            )
            alive = await scalar_in(db, "SELECT 1 FROM documents WHERE id = ?", (doc_id,))
            if done or not alive:
                return False
            now = utc_now()
            await db.executemany(
                "INSERT INTO notes(document_id, kind, statement, date, people, quote,"
                " start_char, end_char, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    (
                        doc_id,
                        x.kind,
                        x.statement,
                        x.date,
                        "\n".join(x.people),
                        x.quote,
                        x.start,
                        x.end,
                        now,
                    )
                    for x in found
                ],
            )
            await db.execute(
                "INSERT INTO noted_parts(document_id, start_char, end_char, noted_at, kept,"
                " dropped, attempts) VALUES (?, ?, ?, ?, ?, ?, 1)"
                " ON CONFLICT(document_id, start_char) DO UPDATE SET end_char = excluded.end_char,"
                " noted_at = excluded.noted_at, kept = excluded.kept, dropped = excluded.dropped,"
                " attempts = attempts + 1, error = NULL",
                (doc_id, start, end, now, len(found), dropped),
            )
        return True

    async def failed(self, doc_id: int, start: int, end: int, error: str) -> int:
        """Count a failed try at noting a part; the tries so far."""
        async with self._db.transaction() as db:
            if not await scalar_in(db, "SELECT 1 FROM documents WHERE id = ?", (doc_id,)):
                return 0
            await db.execute(
                "INSERT INTO noted_parts(document_id, start_char, end_char, attempts, error)"
                " VALUES (?, ?, ?, 1, ?) ON CONFLICT(document_id, start_char) DO UPDATE SET"
                " end_char = excluded.end_char, attempts = attempts + 1, error = excluded.error",
                (doc_id, start, end, error),
            )
            return int(
                await scalar_in(
                    db,
                    "SELECT attempts FROM noted_parts WHERE document_id = ? AND start_char = ?",
                    (doc_id, start),
                )
                or 1
            )

    async def forget_failures(self, doc_id: int) -> None:
        """Failed tries at a source start again from nothing (the owner asked to retry)."""
        async with self._db.transaction() as db:
            await db.execute(
                "DELETE FROM noted_parts WHERE document_id = ? AND noted_at IS NULL", (doc_id,)
            )

    async def waiting(self, doc_id: int) -> list[Note]:
        """A source's notes not yet taken into bio.md, in the order of the text."""
        rows = await self._db.fetchall(
            f"SELECT {_COLUMNS} FROM notes WHERE document_id = ? AND integrated_turn IS NULL"
            " ORDER BY start_char, id",
            (doc_id,),
        )
        return [_row_to_note(r) for r in rows]

    async def of_source(self, doc_id: int) -> list[Note]:
        rows = await self._db.fetchall(
            f"SELECT {_COLUMNS} FROM notes WHERE document_id = ? ORDER BY start_char, id",
            (doc_id,),
        )
        return [_row_to_note(r) for r in rows]

    async def of_ready(self) -> list[Note]:
        """Every note of every ready source, by source and place."""
        cols = ", ".join(f"x.{c.strip()}" for c in _COLUMNS.split(","))
        rows = await self._db.fetchall(
            f"SELECT {cols} FROM notes x JOIN documents d ON d.id = x.document_id"
            " AND d.status = 'ready' ORDER BY x.document_id, x.start_char, x.id"
        )
        return [_row_to_note(r) for r in rows]

    async def get(self, ids: Sequence[int]) -> list[Note]:
        """These notes, in the order asked (those that exist)."""
        if not ids:
            return []
        marks = ",".join("?" * len(ids))
        rows = await self._db.fetchall(
            f"SELECT {_COLUMNS} FROM notes WHERE id IN ({marks})", list(ids)
        )
        by_id = {x.id: x for x in map(_row_to_note, rows)}
        return [by_id[i] for i in ids if i in by_id]

    async def integrated(self, ids: Sequence[int], turn_id: int) -> None:
        """These notes were taken into bio.md by reading turn `turn_id`."""
        async with self._db.transaction() as db:
            await db.executemany(
                "UPDATE notes SET integrated_turn = ? WHERE id = ?",
                [(turn_id, i) for i in ids],
            )

    async def match(
        self, expression: str, limit: int, doc_id: int | None = None
    ) -> list[tuple[int, float]]:
        """(note id, bm25) of notes of ready sources matching an FTS5 expression, best
        first; only one source's with `doc_id`."""
        only = " AND x.document_id = ?" if doc_id is not None else ""
        params: list[object] = [expression]
        if doc_id is not None:
            params.append(doc_id)
        params.append(limit)
        rows = await self._db.fetchall(
            "SELECT x.id, bm25(notes_fts) AS score FROM notes_fts"
            " JOIN notes x ON x.id = notes_fts.rowid"
            " JOIN documents d ON d.id = x.document_id AND d.status = 'ready'"
            f" WHERE notes_fts MATCH ?{only} ORDER BY score LIMIT ?",
            params,
        )
        return [(int(i), float(s)) for i, s in rows]

    async def add_vectors(
        self, rows: Sequence[tuple[int, bytes]], model: str | None = None
    ) -> bool:
        """Store (note id, float32 blob) pairs; a note deleted meanwhile is skipped.
        With `model`, only while it is still the stored vectors' model: False if not."""
        async with self._db.transaction() as db:
            if model is not None:
                stored = await scalar_in(db, "SELECT value FROM meta WHERE key = 'embed_model'")
                if stored is not None and stored != model:
                    return False
            await db.executemany(
                "INSERT OR REPLACE INTO note_vectors(note_id, vector)"
                " SELECT ?, ? WHERE EXISTS (SELECT 1 FROM notes WHERE id = ?)",
                [(i, blob, i) for i, blob in rows],
            )
        return True

    async def unembedded(self, limit: int) -> list[tuple[int, str]]:
        """(id, statement) of notes with no vector yet."""
        rows = await self._db.fetchall(
            "SELECT x.id, x.statement FROM notes x LEFT JOIN note_vectors v"
            " ON v.note_id = x.id WHERE v.note_id IS NULL ORDER BY x.id LIMIT ?",
            (limit,),
        )
        return [(int(i), str(t)) for i, t in rows]

    async def vectors(self) -> list[tuple[int, bytes]]:
        """Every note vector of a ready source, as (note id, float32 blob)."""
        rows = await self._db.fetchall(
            "SELECT v.note_id, v.vector FROM note_vectors v"
            " JOIN notes x ON x.id = v.note_id"
            " JOIN documents d ON d.id = x.document_id AND d.status = 'ready'"
            " ORDER BY v.note_id"
        )
        return [(int(i), bytes(b)) for i, b in rows]

    async def tally(self) -> Tally:
        row = await self._db.fetchone(
            "SELECT (SELECT COUNT(*) FROM notes),"
            " (SELECT COALESCE(SUM(dropped), 0) FROM noted_parts),"
            " (SELECT COUNT(*) FROM notes WHERE integrated_turn IS NULL)"
        )
        assert row is not None
        return Tally(int(row[0]), int(row[1]), int(row[2]))


async def drop_vectors(db: aiosqlite.Connection) -> None:
    """Forget every note vector (the embedding model changed), inside another owner's
    transaction; NoteSearch.embed_new makes them again."""
    await db.execute("DELETE FROM note_vectors")
