"""Log lines go to the data folder's log file; the terminal shows only biomd's own warnings,
plainly, unless --verbose."""

from __future__ import annotations

import logging
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from biomd.frontends import logs


@pytest.fixture
def restore_logging() -> Iterator[None]:
    root = logging.getLogger()
    before, level = list(root.handlers), root.level
    yield
    for handler in [h for h in root.handlers if h not in before]:
        root.removeHandler(handler)
        handler.close()
    root.setLevel(level)


def emit_some() -> None:
    logging.getLogger("matplotlib.font_manager").info("generated new fontManager")
    logging.getLogger("faster_whisper").warning("a library's warning")
    logging.getLogger("biomd.retrieval.embedding").info("loading the model")
    logging.getLogger("biomd.retrieval.embedding").warning("Downloading the model, once.")


def test_the_terminal_shows_only_biomds_warnings_and_the_file_has_everything(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], restore_logging: None
) -> None:
    data = tmp_path / "data"
    logs.configure(data)
    assert not data.exists(), "nothing is made before there is a line to write"
    emit_some()
    assert capsys.readouterr().err == "warning: Downloading the model, once.\n"
    written = logs.log_file(data).read_text()
    for line in ("generated new fontManager", "a library's warning", "loading the model"):
        assert line in written
    assert stat.S_IMODE(logs.log_file(data).stat().st_mode) == 0o600
    assert stat.S_IMODE(logs.log_file(data).parent.stat().st_mode) == 0o700


def test_verbose_shows_every_line_and_a_running_bot_its_own_info(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], restore_logging: None
) -> None:
    logs.configure(tmp_path / "data", verbose=True)
    emit_some()
    assert capsys.readouterr().err.count("\n") == 4
    logs.configure(tmp_path / "data")  # again: its own handlers are replaced, not added to
    logs.running()
    emit_some()
    err = capsys.readouterr().err
    assert "loading the model" in err and "fontManager" not in err and "library" not in err
