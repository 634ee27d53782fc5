"""The public repository's workflow (.github/workflows/ci.yml) can't run here: it is checked
against GitHub's published workflow schema (check-jsonschema's vendored copy, offline), and
for what it must do: the fast tests on Linux, macOS and Windows."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
WORKFLOW = ROOT / ".github" / "workflows" / "ci.yml"


def validate(path: Path) -> subprocess.CompletedProcess[str]:
    check = Path(sys.executable).with_name("check-jsonschema")
    return subprocess.run(
        [str(check), "--builtin-schema", "vendor.github-workflows", str(path)],
        capture_output=True,
        text=True,
        timeout=60,
    )


@pytest.mark.slow
def test_the_workflow_is_valid_and_a_broken_one_is_not(tmp_path: Path) -> None:
    done = validate(WORKFLOW)
    assert done.returncode == 0, done.stdout + done.stderr
    broken = tmp_path / "ci.yml"
    broken.write_text(WORKFLOW.read_text().replace("runs-on:", "runs_on:"))
    assert validate(broken).returncode != 0, "the check can fail"


def test_the_workflow_runs_the_fast_tests_on_every_os_and_the_whole_suite_on_linux() -> None:
    text = WORKFLOW.read_text()
    assert "os: [ubuntu-latest, macos-latest, windows-latest]" in text
    assert 'python -m pytest -m "not slow"' in text
    assert "bash .ci/run" in text
    assert "biomd --version" in text
