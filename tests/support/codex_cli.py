"""The real Codex CLI for the tests: the pinned @openai/codex from npm, installed once into
.cache/codex (the package ships its binary, so nothing else is downloaded). Set
BIOMD_TEST_CODEX_BIN to a codex binary to skip that."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
VERSION = "0.171.0"
TARGET = ROOT / ".cache" / "codex"


def codex_bin() -> Path | None:
    """The codex binary, installing it if npm is there; None if it can't be had."""
    given = os.environ.get("BIOMD_TEST_CODEX_BIN")
    if given and Path(given).is_file():
        return Path(given)
    found = _installed()
    if found is not None:
        return found
    npm = shutil.which("npm")
    if npm is None:
        return None
    TARGET.mkdir(parents=True, exist_ok=True)
    subprocess.run(
        [
            npm,
            "install",
            "--prefix",
            str(TARGET),
            "--no-audit",
            "--no-fund",
            "--loglevel=error",
            f"@openai/codex@{VERSION}",
        ],
        check=True,
        timeout=1800,
    )
    return _installed()


def _installed() -> Path | None:
    modules = TARGET / "node_modules" / "@openai"
    for candidate in sorted(modules.glob("codex-*/vendor/*/bin/codex")) if modules.exists() else []:
        return candidate
    return None
