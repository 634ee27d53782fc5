"""`document_names` and `message_counts`: who speaks in each source and how often, and its
dated messages per month and speaker. Written with the source when it is indexed; read for
speech hints, the timeline picture and each person's appearances by year."""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import aiosqlite

from biomd.storage.database import Database

Months = Mapping[tuple[str, str], int]
"""(YYYY-MM, speaker) → dated messages; the speaker is '' for lines with none."""


@dataclass(frozen=True, slots=True)
class SpeakerYear:
    speaker: str
    year: int
    messages: int


class Activity:
    def __init__(self, db: Database) -> None:
        self._db = db

    async def set_months(self, document_id: int, months: Months) -> None:
        async with self._db.transaction() as db:
            await replace(db, document_id, None, months)

    async def months(self) -> dict[str, int]:
        """Dated messages per month ("YYYY-MM"), over every source."""
        rows = await self._db.fetchall(
            "SELECT month, SUM(messages) FROM message_counts GROUP BY month ORDER BY month"
        )
        return {str(m): int(n) for m, n in rows}

    async def speakers_by_year(self) -> list[SpeakerYear]:
        """Messages each speaker wrote, per year."""
        rows = await self._db.fetchall(
            "SELECT speaker, CAST(substr(month, 1, 4) AS INTEGER), SUM(messages)"
            " FROM message_counts WHERE speaker != '' GROUP BY speaker, 2"
        )
        return [SpeakerYear(str(s), int(y), int(n)) for s, y, n in rows]

    async def uncounted_sources(self) -> list[int]:
        """Ready, dated sources with no message counts (indexed before counting existed)."""
        rows = await self._db.fetchall(
            "SELECT id FROM documents WHERE status = 'ready' AND content_start IS NOT NULL"
            " AND id NOT IN (SELECT DISTINCT document_id FROM message_counts)"
        )
        return [int(r[0]) for r in rows]


async def replace(
    db: aiosqlite.Connection,
    document_id: int,
    names: Mapping[str, int] | None,
    months: Months,
) -> None:
    """A source's speakers (unless `names` is None) and monthly counts, inside the
    transaction that indexes it."""
    if names is not None:
        await db.execute("DELETE FROM document_names WHERE document_id = ?", (document_id,))
        await db.executemany(
            "INSERT INTO document_names(document_id, name, mentions) VALUES (?, ?, ?)",
            [(document_id, name, count) for name, count in names.items()],
        )
    await db.execute("DELETE FROM message_counts WHERE document_id = ?", (document_id,))
    await db.executemany(
        "INSERT INTO message_counts(document_id, month, speaker, messages) VALUES (?, ?, ?, ?)",
        [(document_id, month, speaker, n) for (month, speaker), n in months.items()],
    )


def speaker_names(db_path: Path, limit: int = 500) -> list[tuple[str, int]]:
    """(name, mentions) of the corpus's speakers, most frequent first. Synchronous, on a
    read-only connection of its own: speech recognition asks from a worker thread."""
    with contextlib.closing(sqlite3.connect(f"file:{db_path}?mode=ro", uri=True)) as db:
        rows = db.execute(
            "SELECT name, SUM(mentions) FROM document_names GROUP BY name ORDER BY 2 DESC LIMIT ?",
            (limit,),
        ).fetchall()
    return [(str(n), int(c)) for n, c in rows]
