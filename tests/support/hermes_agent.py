"""The real Hermes Agent for the tests: `hermes-agent` from PyPI, pinned, in a venv of its
own made once into .cache/hermes-venv (Hermes pins a hundred dependencies biomd's own
environment must not share). Set BIOMD_TEST_HERMES_PYTHON to a Python that has it to skip
that."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
VERSION = "0.19.0"
VENV = ROOT / ".cache" / "hermes-venv"
PROBE = Path(__file__).with_name("hermes_probe.py")


def _python(venv: Path) -> Path:
    return venv / ("Scripts/python.exe" if sys.platform == "win32" else "bin/python")


def _has_hermes(python: Path) -> bool:
    if not python.is_file():
        return False
    check = [str(python), "-c", "import importlib.metadata as m; print(m.version('hermes-agent'))"]
    done = subprocess.run(check, capture_output=True, text=True, timeout=120)
    return done.returncode == 0 and done.stdout.strip() == VERSION


def hermes_python() -> Path | None:
    """A Python with hermes-agent installed, making the venv if need be; None if it can't."""
    given = os.environ.get("BIOMD_TEST_HERMES_PYTHON")
    if given and _has_hermes(Path(given)):
        return Path(given)
    python = _python(VENV)
    if _has_hermes(python):
        return python
    try:
        subprocess.run([sys.executable, "-m", "venv", "--clear", str(VENV)], check=True)
        pip = [str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
        subprocess.run([*pip, f"hermes-agent=={VERSION}"], check=True, timeout=3600)
    except (OSError, subprocess.SubprocessError):
        return None
    return python if _has_hermes(python) else None
