"""A lock file so that only one biomd process writes sources at a time: an OS lock (flock on
POSIX, LockFileEx on Windows) through filelock, released by the OS if the process dies."""

from __future__ import annotations

from pathlib import Path

from filelock import FileLock, Timeout

from biomd.errors import Busy


class ProcessLock:
    """An exclusive lock on a file in the data dir, held until `release`."""

    def __init__(self, path: Path) -> None:
        self.path = path
        # Not thread-local: the lock is the process's, whichever thread takes or leaves it.
        self._lock = FileLock(path, mode=0o600, thread_local=False)

    @property
    def held(self) -> bool:
        return self._lock.is_locked

    def try_acquire(self) -> bool:
        """Take the lock if nobody holds it; whether it is held now."""
        if self.held:
            return True
        try:
            self._lock.acquire(timeout=0)
        except Timeout:
            return False
        return True

    def acquire(self) -> None:
        if not self.try_acquire():
            raise Busy(
                "Another biomd process (the bot, a terminal session or an ingest) is writing to "
                "this data dir. Use that one, or stop it, then try again."
            )

    def release(self) -> None:
        if self.held:
            self._lock.release(force=True)
