"""Editing a file of `KEY=value` lines (the config file, an old .env) in place: set keys or take
them out, keeping every comment and every other line."""

from __future__ import annotations

import re
from collections.abc import Collection
from pathlib import Path

from biomd.storage.atomic import write_atomically

_SAFE = re.compile(r"^[A-Za-z0-9_./:@+,*\-]*$")


def quoted(value: str) -> str:
    """A value as the file needs it: bare when that is unambiguous, else double-quoted."""
    if _SAFE.match(value):
        return value
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _active(key: str) -> re.Pattern[str]:
    return re.compile(rf"^\s*(export\s+)?{re.escape(key)}\s*=", re.I)


def with_values(text: str, values: dict[str, str]) -> str:
    """`text` with each KEY set: its line (or the commented-out `# KEY=` example) replaced,
    or a line appended."""
    lines = text.splitlines()
    for key, value in values.items():
        line = f"{key}={quoted(value)}"
        active = _active(key)
        example = re.compile(rf"^\s*#\s*{re.escape(key)}\s*=")
        at = next((i for i, x in enumerate(lines) if active.match(x)), None)
        if at is None:
            at = next((i for i, x in enumerate(lines) if example.match(x)), None)
        if at is None:
            lines.append(line)
        else:
            lines[at] = line
    return "\n".join(lines) + "\n"


def without(text: str, keys: Collection[str]) -> str:
    """`text` without the lines that set any of `keys` (a quoted value over several lines
    included); comments and other keys stay."""
    patterns = [_active(key) for key in keys]
    kept: list[str] = []
    skipping = False
    for line in text.splitlines():
        if skipping:
            skipping = not _closes(line)
            continue
        if any(p.match(line) for p in patterns):
            skipping = _opens(line)
            continue
        kept.append(line)
    return "\n".join(kept) + "\n" if kept else ""


def _opens(line: str) -> bool:
    """Whether a KEY="value line leaves its quote open, to be closed on a later line."""
    value = line.split("=", 1)[1].strip()
    return value[:1] in "\"'" and len(value) > 0 and not _closes(value[1:])


def _closes(text: str) -> bool:
    return re.search(r"(?<!\\)[\"']\s*(#.*)?$", text) is not None


def update_env_file(path: Path, values: dict[str, str], text: str | None = None) -> None:
    """Write `values` into the file at `path` (starting from `text` where given, else from the
    file as it is), atomically and readable by the owner only: it holds keys and tokens."""
    if text is None:
        text = path.read_text(encoding="utf-8") if path.exists() else ""
    write_atomically(path, with_values(text, values) if values else text)
    path.chmod(0o600)
