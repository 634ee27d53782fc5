"""The real OpenClaw for the tests: `openclaw` from npm, pinned, with the Node it needs
(Node 26 from npm's `node` package: Debian has 18, these machines 20), both installed once
into .cache/openclaw. Returns the folders to put first on PATH."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
VERSION = "2026.9.6"
NODE = "26"
TARGET = ROOT / ".cache" / "openclaw"


def _bins() -> list[Path] | None:
    node = TARGET / "node" / "node_modules" / "node" / "bin"
    claw = TARGET / "oc" / "node_modules" / ".bin"
    if (node / "node").exists() and (claw / "openclaw").exists():
        return [node, claw]
    return None


def openclaw_path() -> list[Path] | None:
    """[Node 26's bin, openclaw's bin], installing them if npm is there; None if not."""
    found = _bins()
    if found is not None:
        return found
    npm = shutil.which("npm")
    if npm is None:
        return None
    quiet = ["--no-audit", "--no-fund", "--loglevel=error"]
    node = TARGET / "node" / "node_modules" / "node" / "bin"
    env = {**os.environ, "PATH": f"{node}{os.pathsep}{os.environ.get('PATH', '')}"}
    for prefix, package in (("node", f"node@{NODE}"), ("oc", f"openclaw@{VERSION}")):
        (TARGET / prefix).mkdir(parents=True, exist_ok=True)
        subprocess.run(  # openclaw's install scripts run on Node 26, installed first
            [npm, "install", "--prefix", str(TARGET / prefix), *quiet, package],
            check=True,
            timeout=1800,
            env=env,
        )
    return _bins()
