"""The data dir's upkeep, for `biomd export`, `biomd import` and `biomd doctor`: one-file
backups, the store's health seen from outside, and whether a biomd process is at work on
it. None of these opens the engine."""

from __future__ import annotations

from pathlib import Path

from biomd.app.sources import ingest_lock
from biomd.errors import Busy
from biomd.settings import Settings
from biomd.storage import backup
from biomd.storage.backup import BackupSummary
from biomd.storage.health import Health, examine

__all__ = ["BackupSummary", "Health", "export", "in_use", "restore", "store_health"]


def export(settings: Settings, target: Path, *, replace: bool = False) -> BackupSummary:
    """Everything in the data dir, in one archive (safe while the bot runs); a file already
    at `target` is replaced only if `replace`."""
    return backup.export(settings.data_dir, target, replace=replace)


def restore(settings: Settings, archive: Path) -> BackupSummary:
    """A backup restored into the (empty) data dir."""
    return backup.restore(archive, settings.data_dir)


def store_health(settings: Settings) -> Health:
    """The database's state, read-only; StoreError when it can't be opened or read."""
    return examine(settings.db_path)


def in_use(settings: Settings) -> bool:
    """Whether a biomd process (the bot, a terminal session, an ingest) holds the data dir."""
    if not (settings.data_dir / "ingest.lock").exists():
        return False
    probe = ingest_lock(settings)
    try:
        probe.acquire()
    except Busy:
        return True
    probe.release()
    return False
