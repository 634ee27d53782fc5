"""Named, ordered schema migrations. `PRAGMA user_version` records how many have run."""

from __future__ import annotations

import logging
import sqlite3

import aiosqlite

from biomd.errors import StoreError
from biomd.storage.migrations.early import EARLY
from biomd.storage.migrations.later import LATER
from biomd.storage.migrations.migration import FTS_TOKENIZER, Migration

log = logging.getLogger(__name__)

__all__ = ["FTS_TOKENIZER", "MIGRATIONS", "Migration", "migrate", "split_sql"]

MIGRATIONS: tuple[Migration, ...] = EARLY + LATER
"""Every step, in order; `PRAGMA user_version` counts those a database has run."""

REINDEX_BATCH = 20_000  # chunks per step of a re-index, each step logged


async def reindex_words(db: aiosqlite.Connection) -> None:
    """Put every chunk into the new keyword index, in steps, saying how far it has got; one
    transaction with the migration, so a crash leaves the old index and starts again."""
    async with db.execute("SELECT COALESCE(MIN(id), 0), COALESCE(MAX(id), 0) FROM chunks") as cur:
        row = await cur.fetchone()
    low, high = (int(row[0]), int(row[1])) if row else (0, 0)
    if high == 0:
        return
    at = low
    while at <= high:
        await db.execute(
            "INSERT INTO chunks_fts(rowid, text) SELECT id, biomd_fts_text(text) FROM chunks"
            " WHERE id >= ? AND id < ?",
            (at, at + REINDEX_BATCH),
        )
        at += REINDEX_BATCH
        done = min(1.0, (at - low) / max(1, high - low + 1))
        log.info("Re-indexing words for keyword search in any language: %.0f%%", done * 100)


async def migrate(db: aiosqlite.Connection) -> None:
    """Run the migrations this database has not seen yet, each in its own transaction."""
    async with db.execute("PRAGMA user_version") as cur:
        row = await cur.fetchone()
    version = int(row[0]) if row else 0
    if version > len(MIGRATIONS):
        raise StoreError(
            f"This database was written by a newer biomd (schema {version}, this one knows "
            f"{len(MIGRATIONS)}). Upgrade biomd."
        )
    for number, migration in enumerate(MIGRATIONS[version:], start=version + 1):
        await db.execute("BEGIN IMMEDIATE")
        try:
            for statement in split_sql(migration.sql):
                await db.execute(statement)
            if migration.reindex_words:
                await reindex_words(db)
            await db.execute(f"PRAGMA user_version = {number}")
        except BaseException:
            await db.execute("ROLLBACK")
            raise
        await db.execute("COMMIT")


def split_sql(script: str) -> list[str]:
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
