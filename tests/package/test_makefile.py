"""`make run` and `make test` as a newcomer's first command: pip's own notices (build
back-end warnings, upgrade hints) go to .venv/install.log, and only a failure prints them."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("target", ["run", "test"])
def test_every_pip_install_writes_to_the_install_log(tmp_path: Path, target: str) -> None:
    if shutil.which("make") is None:
        pytest.skip("make is not installed")
    shutil.copy(ROOT / "Makefile", tmp_path / "Makefile")
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'x'\n")
    planned = subprocess.run(
        ["make", "-n", target], cwd=tmp_path, capture_output=True, text=True, check=True
    ).stdout
    installs = [line for line in planned.splitlines() if "pip install" in line]
    assert len(installs) >= 2, planned
    for line in installs:
        assert "> .venv/install.log 2>&1" in line, line
    assert planned.count("cat .venv/install.log; exit 1") == len(installs), planned
