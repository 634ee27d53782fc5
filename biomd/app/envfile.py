"""Editing `.env` in place: set keys, keep every comment and every other line."""

from __future__ import annotations

import re
from pathlib import Path

from biomd.storage.atomic import write_atomically

_SAFE = re.compile(r"^[A-Za-z0-9_./:@+,*\-]*$")


def quoted(value: str) -> str:
    """A value as .env needs it: bare when that is unambiguous, else double-quoted."""
    if _SAFE.match(value):
        return value
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def with_values(text: str, values: dict[str, str]) -> str:
    """`text` with each KEY set: its line (or the commented-out `# KEY=` example) replaced,
    or a line appended."""
    lines = text.splitlines()
    for key, value in values.items():
        line = f"{key}={quoted(value)}"
        active = re.compile(rf"^\s*(export\s+)?{re.escape(key)}\s*=")
        example = re.compile(rf"^\s*#\s*{re.escape(key)}\s*=")
        at = next((i for i, x in enumerate(lines) if active.match(x)), None)
        if at is None:
            at = next((i for i, x in enumerate(lines) if example.match(x)), None)
        if at is None:
            lines.append(line)
        else:
            lines[at] = line
    return "\n".join(lines) + "\n"


def update_env_file(path: Path, values: dict[str, str], template: Path | None = None) -> None:
    """Write `values` into the .env at `path` (started from `template` if there is none yet),
    atomically and readable by the owner only: it holds keys and tokens."""
    if path.exists():
        text = path.read_text(encoding="utf-8")
    elif template is not None and template.exists():
        text = template.read_text(encoding="utf-8")
    else:
        text = ""
    write_atomically(path, with_values(text, values))
    path.chmod(0o600)
