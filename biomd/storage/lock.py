"""A lock file so that only one biomd process writes sources at a time."""

from __future__ import annotations

import fcntl
import os
from pathlib import Path

from biomd.errors import Busy


class ProcessLock:
    """An exclusive `flock` on a file in the data dir, held until `release`."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._fd: int | None = None

    @property
    def held(self) -> bool:
        return self._fd is not None

    def acquire(self) -> None:
        if self._fd is not None:
            return
        fd = os.open(self.path, os.O_CREAT | os.O_RDWR, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            raise Busy(
                "Another biomd process (the bot, a terminal session or an ingest) is writing to "
                "this data dir. Use that one, or stop it, then try again."
            ) from None
        self._fd = fd

    def release(self) -> None:
        if self._fd is not None:
            fcntl.flock(self._fd, fcntl.LOCK_UN)
            os.close(self._fd)
            self._fd = None
