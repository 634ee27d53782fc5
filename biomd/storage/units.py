"""`source_units`: each source's units by hash, to find the same text in another file
(biomd.ingest.twins); `documents.units` and `documents.chat` say how many and what kind."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

from biomd.storage.database import Database

_ASKED_AT_MOST = 500  # hashes a lookup asks about, spread over the source


@dataclass(frozen=True, slots=True)
class KeptUnits:
    """A stored source's fingerprint."""

    count: int
    chat: bool
    hashes: set[int]


class SourceUnits:
    def __init__(self, db: Database) -> None:
        self._db = db

    async def keep(self, doc_id: int, count: int, chat: bool, hashes: Collection[int]) -> None:
        """A source's fingerprint, replacing any it had."""
        async with self._db.transaction() as db:
            await db.execute("DELETE FROM source_units WHERE document_id = ?", (doc_id,))
            await db.executemany(
                "INSERT OR IGNORE INTO source_units(document_id, hash) VALUES (?, ?)",
                [(doc_id, h) for h in hashes],
            )
            await db.execute(
                "UPDATE documents SET units = ?, chat = ? WHERE id = ?", (count, int(chat), doc_id)
            )

    async def sharing(self, hashes: Collection[int], other_than: int) -> list[int]:
        """Ready sources that hold any of (a spread of at most 500 of) `hashes`, those that
        hold most first."""
        ordered = sorted(hashes)
        step = max(1, len(ordered) // _ASKED_AT_MOST)
        asked = ordered[::step][:_ASKED_AT_MOST]
        if not asked:
            return []
        marks = ",".join("?" * len(asked))
        rows = await self._db.fetchall(
            "SELECT u.document_id FROM source_units u"
            " JOIN documents d ON d.id = u.document_id AND d.status = 'ready'"
            f" WHERE u.hash IN ({marks}) AND u.document_id != ?"
            " GROUP BY u.document_id ORDER BY COUNT(*) DESC, u.document_id LIMIT 20",
            (*asked, other_than),
        )
        return [int(r[0]) for r in rows]

    async def of(self, doc_id: int) -> KeptUnits | None:
        row = await self._db.fetchone("SELECT units, chat FROM documents WHERE id = ?", (doc_id,))
        if row is None or row[0] is None:
            return None
        rows = await self._db.fetchall(
            "SELECT hash FROM source_units WHERE document_id = ?", (doc_id,)
        )
        return KeptUnits(int(row[0]), bool(row[1]), {int(r[0]) for r in rows})

    async def missing(self) -> list[int]:
        """Ready sources not fingerprinted yet (stored before fingerprints were kept)."""
        rows = await self._db.fetchall(
            "SELECT id FROM documents WHERE status = 'ready' AND units IS NULL ORDER BY id"
        )
        return [int(r[0]) for r in rows]
