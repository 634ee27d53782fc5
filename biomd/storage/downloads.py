"""A model downloaded once: a failed download is remembered, and not tried again for a while
unless asked."""

from __future__ import annotations

import contextlib
import time
from datetime import datetime
from pathlib import Path

RETRY_DOWNLOAD_AFTER_S = 6 * 3600
"""How long a failed download of the model is not tried again, unless asked (`biomd embed`):
without network each try costs a start or an ingest some 40 seconds."""


def _failed_marker(name: str, cache_dir: Path) -> Path:
    return cache_dir / f".unreachable-{name.replace('/', '--')}"


def note_download_failed(name: str, cache_dir: Path, cause: str) -> None:
    """Remember that downloading `name` failed just now, and why."""
    with contextlib.suppress(OSError):
        _failed_marker(name, cache_dir).write_text(cause, encoding="utf-8")


def download_failed(name: str, cache_dir: Path, now: float | None = None) -> str | None:
    """Why downloading `name` failed, if it failed within RETRY_DOWNLOAD_AFTER_S; said as a
    reason not to try again yet."""
    marker = _failed_marker(name, cache_dir)
    try:
        at = marker.stat().st_mtime
        why = marker.read_text(encoding="utf-8")
    except OSError:
        return None
    if (now if now is not None else time.time()) - at > RETRY_DOWNLOAD_AFTER_S:
        return None
    when = datetime.fromtimestamp(at).strftime("%H:%M")
    return (
        f"Vectors wait: the embedding model could not be downloaded at {when}, and is not "
        f"tried again for {RETRY_DOWNLOAD_AFTER_S // 3600} hours unless you run `biomd embed`. "
        f"Sources are keyword-searchable meanwhile. Without network access, put the model "
        f"files in a folder and set BIOMD_EMBED_MODEL_PATH. (It failed with: {why}.)"
    )


def forget_download_failed(name: str, cache_dir: Path) -> None:
    """The model loaded: a failure before no longer counts."""
    _failed_marker(name, cache_dir).unlink(missing_ok=True)
