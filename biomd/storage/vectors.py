"""`vectors`: one embedding per chunk, as little-endian float32 bytes, with a hash of what the
model was given (so the same input is never embedded twice). `id` grows with every insert,
so a reader can load only what is new; deleting vectors bumps meta's `vectors_epoch`, which
tells an in-RAM copy to start over.

`next_vectors` has the same shape: a switch of embedding model fills it with the new model's
vectors while search keeps using `vectors`, and `take_next` moves them over in one step."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import aiosqlite

from biomd.storage import meta, notes
from biomd.storage.database import Database, scalar_in

EPOCH = "vectors_epoch"
Table = Literal["vectors", "next_vectors"]


@dataclass(frozen=True, slots=True)
class VectorRow:
    id: int  # grows with every insert
    chunk_id: int
    blob: bytes


@dataclass(frozen=True, slots=True)
class VectorsState:
    """Enough to tell whether an in-RAM copy of the vectors is current."""

    epoch: str
    newest: int  # the newest vector row id


@dataclass(frozen=True, slots=True)
class Unembedded:
    """A chunk of a ready source that has no vector yet."""

    chunk_id: int
    seq: int
    text: str
    name: str = ""  # its source's name, where asked for


class Vectors:
    def __init__(self, db: Database, table: Table = "vectors") -> None:
        self._db = db
        self._t = table

    async def add(
        self,
        rows: Sequence[tuple[int, bytes]],
        input_hashes: Sequence[bytes] | None = None,
        model: str | None = None,
    ) -> bool:
        """Store (chunk id, float32 blob) pairs, each with the hash of the model's input if
        given; a chunk deleted meanwhile is skipped. With `model`, only while the table is
        still that model's (a switch of model may have ended meanwhile): False if not."""
        hashes: Sequence[bytes | None] = input_hashes or [None] * len(rows)
        async with self._db.transaction() as db:
            if model is not None:
                key = "embed_model" if self._t == "vectors" else "next_embed_model"
                if await scalar_in(db, "SELECT value FROM meta WHERE key = ?", (key,)) != model:
                    return False
            await db.executemany(
                f"INSERT OR IGNORE INTO {self._t}(chunk_id, vector, input_hash)"
                " SELECT ?, ?, ? WHERE EXISTS (SELECT 1 FROM chunks WHERE id = ?)",
                [(cid, blob, h, cid) for (cid, blob), h in zip(rows, hashes, strict=True)],
            )
        return True

    async def by_input(self, hashes: Sequence[bytes]) -> dict[bytes, bytes]:
        """A stored vector for each of these input hashes that has one."""
        rows = await self._by("input_hash", hashes)
        return {bytes(key): blob for key, blob in rows}

    async def of(self, chunk_ids: Sequence[int]) -> dict[int, bytes]:
        """The float32 blobs of these chunks (those that have one)."""
        rows = await self._by("chunk_id", chunk_ids)
        return {int(key): blob for key, blob in rows}

    async def _by(
        self, column: Literal["chunk_id", "input_hash"], keys: Sequence[object]
    ) -> list[tuple[Any, bytes]]:
        if not keys:
            return []
        marks = ",".join("?" * len(keys))
        rows = await self._db.fetchall(
            f"SELECT {column}, vector FROM {self._t} WHERE {column} IN ({marks})",
            list(keys),
            vectors=True,
        )
        return [(r[0], bytes(r[1])) for r in rows]

    async def clear(self, new_meta: Mapping[str, str]) -> None:
        """Delete every vector and set new meta (the model's name) in one step."""
        async with self._db.transaction() as db:
            await db.execute(f"DELETE FROM {self._t}")
            await meta.upsert(db, new_meta)
            if self._t == "vectors":
                await meta.bump(db, EPOCH)

    async def take_next(self, new_meta: Mapping[str, str], done_keys: Sequence[str]) -> bool:
        """End a switch of model: `next_vectors` becomes `vectors` (a rename, so a million
        vectors move at no cost), the reader's note vectors (the old model's) are dropped to
        be made again, and the meta says so, all in one transaction. False, and nothing
        done, when `next_vectors` is no longer being filled with that model."""
        async with self._db.transaction() as db:
            filling = await scalar_in(db, "SELECT value FROM meta WHERE key = 'next_embed_model'")
            if filling != new_meta.get("embed_model"):
                return False
            for statement in _TAKE_NEXT:
                await db.execute(statement)
            await notes.drop_vectors(db)
            await meta.upsert(db, new_meta)
            await meta.remove(db, done_keys)
            await meta.bump(db, EPOCH)
        return True

    async def after(self, after_id: int, limit: int) -> list[VectorRow]:
        """Vector rows newer than `after_id`, oldest first."""
        rows = await self._db.fetchall(
            f"SELECT id, chunk_id, vector FROM {self._t} WHERE id > ? ORDER BY id LIMIT ?",
            (after_id, limit),
            vectors=True,
        )
        return [VectorRow(int(r[0]), int(r[1]), bytes(r[2])) for r in rows]

    async def count_upto(self, last_id: int) -> int:
        return int(
            await self._db.scalar(
                f"SELECT COUNT(*) FROM {self._t} WHERE id <= ?", (last_id,), vectors=True
            )
        )

    async def count_after(self, after_id: int) -> int:
        return int(
            await self._db.scalar(
                f"SELECT COUNT(*) FROM {self._t} WHERE id > ?", (after_id,), vectors=True
            )
        )

    async def state(self) -> VectorsState:
        row = await self._db.fetchone(
            "SELECT (SELECT value FROM meta WHERE key = ?),"
            f" (SELECT COALESCE(MAX(id), 0) FROM {self._t})",
            (EPOCH,),
            vectors=True,
        )
        assert row is not None
        return VectorsState(str(row[0] or "0"), int(row[1]))

    # -- what still needs one ---------------------------------------------------------------

    async def count_missing(self) -> int:
        """Chunks of ready sources without a vector."""
        return int(
            await self._db.scalar(
                "SELECT COUNT(*) FROM chunks c JOIN documents d ON d.id = c.document_id"
                " WHERE d.status = 'ready' AND NOT EXISTS"
                f" (SELECT 1 FROM {self._t} v WHERE v.chunk_id = c.id)"
            )
        )

    async def sources_missing(self, above: int = 0) -> list[int]:
        """Ready sources with ids above `above` that have a chunk without a vector, newest
        first."""
        rows = await self._db.fetchall(
            "SELECT d.id FROM documents d WHERE d.id > ? AND d.status = 'ready' AND EXISTS"
            " (SELECT 1 FROM chunks c WHERE c.document_id = d.id AND NOT EXISTS"
            f" (SELECT 1 FROM {self._t} v WHERE v.chunk_id = c.id)) ORDER BY d.id DESC",
            (above,),
        )
        return [int(r[0]) for r in rows]

    async def missing_in_source(self, doc_id: int, after_seq: int, limit: int) -> list[Unembedded]:
        """One source's chunks after `after_seq` that have no vector yet, in order (an index
        walk: a full pass over a source is linear)."""
        rows = await self._db.fetchall(
            "SELECT c.id, c.seq, c.text FROM chunks c WHERE c.document_id = ? AND c.seq > ?"
            f" AND NOT EXISTS (SELECT 1 FROM {self._t} v WHERE v.chunk_id = c.id)"
            " ORDER BY c.seq LIMIT ?",
            (doc_id, after_seq, limit),
        )
        return [Unembedded(int(r[0]), int(r[1]), str(r[2])) for r in rows]

    async def missing_after(self, after: int, limit: int) -> list[Unembedded]:
        """Chunks of ready sources with ids above `after` that have no vector yet, by id,
        with their source's name. Walking `after` forward makes a full pass linear."""
        rows = await self._db.fetchall(
            "SELECT c.id, c.seq, c.text, d.name FROM chunks c JOIN documents d"
            " ON d.id = c.document_id WHERE c.id > ? AND d.status = 'ready' AND NOT EXISTS"
            f" (SELECT 1 FROM {self._t} v WHERE v.chunk_id = c.id) ORDER BY c.id LIMIT ?",
            (after, limit),
        )
        return [Unembedded(int(r[0]), int(r[1]), str(r[2]), str(r[3])) for r in rows]


_TAKE_NEXT = (
    "DROP TABLE vectors",
    "DROP INDEX next_vectors_input_hash",
    "ALTER TABLE next_vectors RENAME TO vectors",
    "CREATE INDEX vectors_input_hash ON vectors(input_hash) WHERE input_hash IS NOT NULL",
    "CREATE TABLE next_vectors ("
    " id INTEGER PRIMARY KEY AUTOINCREMENT,"
    " chunk_id INTEGER NOT NULL UNIQUE REFERENCES chunks(id) ON DELETE CASCADE,"
    " vector BLOB NOT NULL, input_hash BLOB)",
    "CREATE INDEX next_vectors_input_hash ON next_vectors(input_hash) WHERE input_hash IS NOT NULL",
)


async def any_of_document(db: aiosqlite.Connection, doc_id: int) -> bool:
    """Whether a source has any vector, inside another owner's transaction."""
    return bool(
        await scalar_in(
            db,
            "SELECT EXISTS(SELECT 1 FROM vectors v JOIN chunks c ON c.id = v.chunk_id"
            " WHERE c.document_id = ?)",
            (doc_id,),
        )
    )
