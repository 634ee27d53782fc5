"""Where the owner's data is: the user's data folder (biomd.settings.default_data_dir),
whichever folder biomd runs from. A `./biomd-data` left by an earlier biomd, whose default
was that folder, is moved there once, with a message; never lost, and never left beside a
second, empty one."""

from __future__ import annotations

import shutil
from pathlib import Path

from biomd.errors import Busy
from biomd.settings import Settings
from biomd.storage.lock import ProcessLock

LEGACY = "biomd-data"
DATABASE = "biomd.sqlite3"


def adopt_legacy(settings: Settings, cwd: Path) -> str | None:
    """Move `cwd/biomd-data` to the data folder when the owner did not choose one and the data
    folder holds no database yet; what was done, to tell the owner, or None."""
    if "data_dir" in settings.model_fields_set:
        return None  # chosen (BIOMD_DATA_DIR, --data-dir): nothing to adopt
    old, new = (cwd / LEGACY).resolve(), settings.data_dir
    if not (old / DATABASE).is_file() or old == new.resolve():
        return None
    if (new / DATABASE).exists():
        return (
            f"Using your biomd data in {new}. There is another biomd data folder at {old}, "
            f"which is not used: set BIOMD_DATA_DIR={old} to use it instead."
        )
    if new.exists() and any(new.iterdir()):
        return (
            f"Found biomd data at {old}, but {new} is not empty, so nothing was moved. Move "
            f"it yourself, or set BIOMD_DATA_DIR={old}."
        )
    lock = ProcessLock(old / "ingest.lock")
    try:
        lock.acquire()  # no biomd process is writing to it while it moves
    except Busy:
        return f"Found biomd data at {old}, in use by another biomd process; stop it to move it."
    try:
        new.parent.mkdir(parents=True, exist_ok=True)
        if new.exists():
            new.rmdir()
        shutil.move(str(old), str(new))
    finally:
        lock.release()
    return (
        f"Moved your biomd data from {old} to {new}, where biomd keeps it whichever folder "
        "it runs from (BIOMD_DATA_DIR chooses another)."
    )
