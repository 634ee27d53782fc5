"""Where log lines go: all of them, with times, to `<data dir>/logs/biomd.log` (rotated, the
owner's only); to the terminal, only biomd's own warnings, said plainly, so that what the
owner reads is the command's output. `--verbose` shows every line there too, and a running
bot shows biomd's own INFO lines (what it is doing), never a library's."""

from __future__ import annotations

import logging
import logging.handlers
import sys
from pathlib import Path

LOG_NAME = "biomd.log"
_OWN = ("biomd", "__main__")
_QUIET_LIBRARIES = ("httpx", "httpcore", "apscheduler", "discord", "telegram", "mcp", "pypdf")


class _PrivateFile(logging.handlers.RotatingFileHandler):
    """The log file, made (with its folder) only when the first line is written, 0600."""

    def _open(self):  # type: ignore[no-untyped-def]
        folder = Path(self.baseFilename).parent
        for missing in reversed([p for p in (folder, *folder.parents) if not p.exists()]):
            missing.mkdir(mode=0o700, exist_ok=True)  # the data folder too, if it is new
        stream = super()._open()
        Path(self.baseFilename).chmod(0o600)
        return stream


class _Stderr(logging.StreamHandler):  # type: ignore[type-arg]
    """The terminal: whatever sys.stderr is when a line is written (a test swaps it)."""

    def emit(self, record: logging.LogRecord) -> None:
        self.stream = sys.stderr
        super().emit(record)


class _Own(logging.Filter):
    """biomd's own lines only."""

    def filter(self, record: logging.LogRecord) -> bool:
        return record.name.startswith(_OWN) or record.name == "root"


class _Plain(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        if record.levelno >= logging.WARNING:
            return f"{record.levelname.lower()}: {record.getMessage()}"
        return record.getMessage()


def log_file(data_dir: Path) -> Path:
    return data_dir / "logs" / LOG_NAME


def configure(data_dir: Path, verbose: bool = False) -> None:
    """Send log lines to the data folder's log file, and to the terminal as the module
    docstring says. Called again (a second command in one process), it replaces its own."""
    root = logging.getLogger()
    for handler in [h for h in root.handlers if getattr(h, "biomd", False)]:
        root.removeHandler(handler)
        handler.close()
    root.setLevel(logging.INFO)
    for name in _QUIET_LIBRARIES:
        logging.getLogger(name).setLevel(logging.WARNING)
    logging.getLogger("pypdf").setLevel(logging.ERROR)  # broken PDFs get our own clear message
    to_file = _PrivateFile(log_file(data_dir), maxBytes=5_000_000, backupCount=3, delay=True)
    to_file.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s %(message)s"))
    console: logging.Handler = _Stderr()
    if verbose:
        console.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s %(message)s"))
    else:
        console.setLevel(logging.WARNING)
        console.addFilter(_Own())
        console.setFormatter(_Plain())
    for handler in (to_file, console):
        setattr(handler, "biomd", True)  # noqa: B010  # marks the handlers this module added
        root.addHandler(handler)


def running() -> None:
    """A running bot or server shows what biomd itself is doing (INFO), not libraries'."""
    for handler in logging.getLogger().handlers:
        console = not isinstance(handler, logging.FileHandler)
        if getattr(handler, "biomd", False) and console and handler.level > logging.INFO:
            handler.setLevel(logging.INFO)
