"""biomd as it runs on Windows, on this machine: no `fcntl` to import, no `os.killpg`, and an
event loop whose `add_signal_handler` raises NotImplementedError. The CLI ingests a file,
finds it, and runs the terminal session with its input closed."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.support.model_files import MINILM_NAME

pytestmark = pytest.mark.slow  # runs `biomd` three times

AS_ON_WINDOWS = textwrap.dedent(
    """
    import asyncio, os, sys

    class NoFcntl:
        def find_spec(self, name, path=None, target=None):
            if name == "fcntl":
                raise ModuleNotFoundError("No module named 'fcntl' (as on Windows)")
            return None

    sys.modules.pop("fcntl", None)
    sys.meta_path.insert(0, NoFcntl())
    del os.killpg

    def no_signals(self, *args, **kwargs):
        raise NotImplementedError
    asyncio.AbstractEventLoop.add_signal_handler = no_signals
    asyncio.SelectorEventLoop.add_signal_handler = no_signals

    from biomd.frontends.cli import main
    sys.argv = ["biomd", *sys.argv[1:]]
    try:
        main()
    finally:
        assert "fcntl" not in sys.modules, "nothing imported fcntl"
    """
)


def test_the_cli_ingests_finds_and_chats_where_fcntl_killpg_and_signals_are_missing(
    tmp_path: Path, minilm_path: Path
) -> None:
    env = os.environ | {
        "BIOMD_DATA_DIR": str(tmp_path / "data"),
        "BIOMD_EMBED_MODEL": MINILM_NAME,
        "BIOMD_EMBED_MODEL_PATH": str(minilm_path),
    }
    note = tmp_path / "kiln.txt"
    note.write_text("The kiln was fired on Sunday, and the blue glaze cracked in the cold.")

    def biomd(*args: str) -> str:
        done = subprocess.run(
            [sys.executable, "-c", AS_ON_WINDOWS, *args],
            env=env,
            cwd=tmp_path,
            capture_output=True,
            text=True,
            stdin=subprocess.DEVNULL,
            timeout=180,
        )
        assert done.returncode == 0, done.stdout + done.stderr
        return done.stdout

    assert "1 added" in biomd("ingest", str(note), "--no-read")
    assert "kiln.txt" in biomd("search", "pottery glaze that cracked")
    chat = biomd("chat")
    assert "biomd" in chat.lower()
