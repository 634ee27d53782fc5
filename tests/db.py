"""A test's look into a biomd database: a connection of its own, as an auditor would open
the file, so that what a test checks is what is on disk (biomd's own code reaches SQL only
through core/storage)."""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Sequence
from pathlib import Path
from typing import Any


def _connect(path: Path) -> sqlite3.Connection:
    db = sqlite3.connect(path, timeout=30, isolation_level=None)
    db.execute("PRAGMA busy_timeout=30000")
    return db


def rows(path: Path, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
    with contextlib.closing(_connect(path)) as db:
        return [tuple(r) for r in db.execute(sql, params).fetchall()]


def one(path: Path, sql: str, params: Sequence[Any] = ()) -> tuple[Any, ...]:
    """The first row; a test that expects one fails here if there is none."""
    found = rows(path, sql, params)
    assert found, f"no row for {sql}"
    return found[0]


def write(path: Path, *statements: str | tuple[str, Sequence[Any]]) -> None:
    """Change the database behind biomd's back (to stage an old or crashed state)."""
    with contextlib.closing(_connect(path)) as db:
        db.execute("BEGIN IMMEDIATE")
        for statement in statements:
            sql, params = (statement, ()) if isinstance(statement, str) else statement
            db.execute(sql, params)
        db.execute("COMMIT")
