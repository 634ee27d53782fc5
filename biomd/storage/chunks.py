"""`chunks` and their keyword index `chunks_fts`: the ≤900-character pieces of every source's
text, with their spans (chunk.text == text[start:end]) and content timestamps. Chunks are
written a batch at a time, indexed in the same transaction; reads here return spans and
plain-text scans (grep, mentions), keyword ranking is biomd.storage.keywords'."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass

import aiosqlite

from biomd.storage import fts_text
from biomd.storage.database import Database


@dataclass(frozen=True, slots=True)
class ChunkRow:
    """A chunk to store: its span in the source's text, and a content timestamp if known."""

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


@dataclass(frozen=True, slots=True)
class Located:
    """A chunk of a ready source found by a text scan, with the source's name."""

    document_id: int
    name: str
    start: int
    text: str


@dataclass(frozen=True, slots=True)
class DatedText:
    """A chunk's text with the year of its first dated line (else of its source)."""

    year: int
    text: str


_COLUMNS = "id, document_id, seq, start_char, end_char, text, ts"


LONGEST = 4096  # characters: no chunk is longer (the chunker makes them ≤ 900)


class Chunks:
    def __init__(self, db: Database) -> None:
        self._db = db

    async def add(self, doc_id: int, chunks: Sequence[ChunkRow]) -> None:
        """Store a batch of a source's chunks and index them for keyword search, atomically."""
        if not chunks:
            return
        rows = json.dumps([(c.seq, c.start, c.end, c.text, c.ts) for c in chunks])
        # What the keyword index takes where it is not the text itself (CJK, accents), made
        # here: a function called by SQLite for every row would take the GIL from the
        # converting thread a row at a time (ingest fell from 8.4 to 5.6 MB/s).
        indexed = json.dumps(
            [(c.seq, t) for c in chunks if (t := fts_text.index_text(c.text)) is not c.text]
        )
        async with self._db.transaction() as db:
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
                " WHERE document_id = ? AND seq BETWEEN ? AND ?"
                " AND seq NOT IN (SELECT value ->> 0 FROM json_each(?))",
                (doc_id, chunks[0].seq, chunks[-1].seq, indexed),
            )
            if indexed != "[]":
                await db.execute(
                    "INSERT INTO chunks_fts(rowid, text) SELECT c.id, x.value ->> 1"
                    " FROM json_each(?) x CROSS JOIN chunks c"  # by the index, row by row
                    " ON c.document_id = ? AND c.seq = x.value ->> 0",
                    (indexed, doc_id),
                )

    async def overlapping(self, doc_id: int, start: int, end: int) -> list[StoredChunk]:
        """Chunks of a source whose span meets [start, end), in order. The index is walked
        from `start - LONGEST` only, not from the source's beginning (a long chat has a
        hundred thousand chunks before a late passage)."""
        rows = await self._db.fetchall(
            f"SELECT {_COLUMNS} FROM chunks WHERE document_id = ?"
            " AND start_char > ? AND start_char < ? AND end_char > ? ORDER BY start_char",
            (doc_id, start - LONGEST, end, start),
        )
        return [StoredChunk(*r) for r in rows]

    async def text(self, doc_id: int, start: int, end: int) -> str:
        """A source's exact text from `start` to `end` (or as far as it goes), stitched from
        its overlapping chunks."""
        parts: list[str] = []
        covered = start
        for chunk in await self.overlapping(doc_id, start, end):
            if chunk.end <= covered:
                continue
            parts.append(chunk.text[covered - chunk.start : end - chunk.start])
            covered = min(chunk.end, end)
        return "".join(parts)

    async def by_id(self, ids: Sequence[int]) -> dict[int, StoredChunk]:
        if not ids:
            return {}
        marks = ",".join("?" * len(ids))
        rows = await self._db.fetchall(
            f"SELECT {_COLUMNS} FROM chunks WHERE id IN ({marks})", list(ids)
        )
        return {r[0]: StoredChunk(*r) for r in rows}

    async def of_source(self, doc_id: int, limit: int = -1) -> list[StoredChunk]:
        """A source's chunks in order (the first `limit` of them)."""
        rows = await self._db.fetchall(
            f"SELECT {_COLUMNS} FROM chunks WHERE document_id = ? ORDER BY seq LIMIT ?",
            (doc_id, limit),
        )
        return [StoredChunk(*r) for r in rows]

    async def spans_from(self, doc_id: int, start: int, limit: int) -> list[tuple[int, int, str]]:
        """(start, end, text) of up to `limit` chunks of a source that begin at or after
        `start`, in order: a long source read a batch at a time."""
        rows = await self._db.fetchall(
            "SELECT start_char, end_char, text FROM chunks WHERE document_id = ?"
            " AND start_char >= ? ORDER BY start_char LIMIT ?",
            (doc_id, start, limit),
        )
        return [(int(s), int(e), str(t)) for s, e, t in rows]

    async def sample(self, n: int) -> list[str]:
        """The text of up to `n` chunks spread evenly over the corpus (by id)."""
        low, high = await self._db.fetchone(
            "SELECT COALESCE(MIN(id), 0), COALESCE(MAX(id), 0) FROM chunks"
        ) or (0, 0)
        if not high:
            return []
        step = max(1, (int(high) - int(low) + 1) // max(1, n))
        ids = list(range(int(low), int(high) + 1, step))[:n]
        marks = ",".join("?" * len(ids))
        rows = await self._db.fetchall(f"SELECT text FROM chunks WHERE id IN ({marks})", ids)
        return [str(r[0]) for r in rows]

    async def sample_of(self, doc_id: int, n: int) -> list[str]:
        """The text of up to `n` chunks spread evenly over one source (by position)."""
        total = int(
            await self._db.scalar("SELECT COUNT(*) FROM chunks WHERE document_id = ?", (doc_id,))
        )
        step = max(1, total // max(1, n))
        rows = await self._db.fetchall(
            "SELECT text FROM chunks WHERE document_id = ? AND seq % ? = 0 ORDER BY seq LIMIT ?",
            (doc_id, step, n),
        )
        return [str(r[0]) for r in rows]

    async def at(self, places: Sequence[tuple[int, int]]) -> dict[tuple[int, int], StoredChunk]:
        """The chunks at these (source, place) pairs that exist, in one query."""
        by_doc: dict[int, list[int]] = {}
        for doc, seq in places:
            by_doc.setdefault(doc, []).append(seq)
        if not by_doc:
            return {}
        terms, params = [], []
        for doc, seqs in by_doc.items():
            terms.append(f"(document_id = ? AND seq IN ({','.join('?' * len(seqs))}))")
            params += [doc, *seqs]
        rows = await self._db.fetchall(
            f"SELECT {_COLUMNS} FROM chunks WHERE {' OR '.join(terms)}", params
        )
        return {(int(r[1]), int(r[2])): StoredChunk(*r) for r in rows}

    async def dates(self, ids: Sequence[int]) -> dict[int, str | None]:
        """Each chunk's date: its first dated line's, else its source's first date."""
        if not ids:
            return {}
        marks = ",".join("?" * len(ids))
        rows = await self._db.fetchall(
            "SELECT c.id, COALESCE(c.ts, d.content_start) FROM chunks c"
            f" JOIN documents d ON d.id = c.document_id WHERE c.id IN ({marks})",
            list(ids),
        )
        return {int(i): (str(t) if t else None) for i, t in rows}

    async def id_span(self) -> int:
        """About how many chunks there are: the id range (a count of a million rows is slow;
        so is MIN and MAX in one SELECT, which scans the table: 1.1 s at 1.27M chunks)."""
        return int(
            await self._db.scalar(
                "SELECT COALESCE((SELECT MAX(id) FROM chunks) - (SELECT MIN(id) FROM chunks)"
                " + 1, 0)"
            )
        )

    async def containing(self, like: str, within: int | None = None) -> list[Located]:
        """Chunks of ready sources (of source `within` only, if given) whose text is LIKE
        `like` (with \\ as the escape), by source and position: grep's candidates."""
        rows = await self._db.fetchall(
            "SELECT c.document_id, d.name, c.start_char, c.text FROM chunks c"
            " JOIN documents d ON d.id = c.document_id AND d.status = 'ready'"
            " WHERE c.text LIKE ? ESCAPE '\\' AND (? IS NULL OR c.document_id = ?)"
            " ORDER BY c.document_id, c.start_char",
            (like, within, within),
        )
        return [Located(int(d), str(n), int(s), str(t)) for d, n, s, t in rows]

    async def dated_containing(self, words: Sequence[str]) -> list[DatedText]:
        """Dated chunks of ready sources that contain any of `words` (a LIKE scan, case
        folded for ASCII only), with their year."""
        if not words:
            return []
        rows = await self._db.fetchall(
            "SELECT CAST(substr(COALESCE(c.ts, d.content_start), 1, 4) AS INTEGER), c.text"
            " FROM chunks c JOIN documents d ON d.id = c.document_id AND d.status = 'ready'"
            " WHERE COALESCE(c.ts, d.content_start) IS NOT NULL AND ("
            + " OR ".join("c.text LIKE ?" for _ in words)
            + ")",
            tuple(f"%{w}%" for w in words),
        )
        return [DatedText(int(y), str(t)) for y, t in rows if y]


async def drop(db: aiosqlite.Connection, doc_id: int) -> None:
    """Delete a source's chunks (and, by trigger, their keyword index), inside the transaction
    that restarts or fails the source."""
    await db.execute("DELETE FROM chunks WHERE document_id = ?", (doc_id,))
