"""A look at a database file from outside any running biomd, for `biomd doctor`: read-only,
changing nothing, whatever state the file is in."""

from __future__ import annotations

import contextlib
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path

from biomd.errors import StoreError
from biomd.storage.migrations import MIGRATIONS


@dataclass(frozen=True)
class Health:
    quick_check: str  # "ok", or what SQLite found wrong
    schema: int
    latest_schema: int
    sources: dict[str, int] = field(default_factory=dict)  # by status
    meta: dict[str, str] = field(default_factory=dict)
    chunks_without_vectors: int = 0


def examine(db_path: Path) -> Health:
    """The state of the store; StoreError when it can't be opened or read."""
    try:
        return _examine(db_path)
    except sqlite3.Error as exc:
        raise StoreError(f"{db_path} could not be read: {exc}") from exc


def _examine(db_path: Path) -> Health:
    with contextlib.closing(sqlite3.connect(f"file:{db_path}?mode=ro", uri=True, timeout=10)) as db:
        quick = str(db.execute("PRAGMA quick_check").fetchone()[0])
        version = int(db.execute("PRAGMA user_version").fetchone()[0])
        if quick != "ok":
            return Health(quick, version, len(MIGRATIONS))
        sources = {
            str(s): int(n)
            for s, n in db.execute("SELECT status, COUNT(*) FROM documents GROUP BY status")
        }
        meta = {str(k): str(v) for k, v in db.execute("SELECT key, value FROM meta")}
        missing = int(
            db.execute(
                "SELECT COUNT(*) FROM chunks WHERE id NOT IN (SELECT chunk_id FROM vectors)"
            ).fetchone()[0]
        )
    return Health(quick, version, len(MIGRATIONS), sources, meta, missing)
