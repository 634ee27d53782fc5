"""What `biomd` prints when piped: plain tab-separated lines, whole (a long name is not cut
to "intervie…"), with the dates each source covers."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from biomd.frontends.cli import app
from tests.support.model_files import MINILM_NAME


def test_sources_piped_are_whole_tab_separated_lines_with_the_dates_covered(
    tmp_path: Path, minilm_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("BIOMD_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("BIOMD_EMBED_MODEL", MINILM_NAME)
    monkeypatch.setenv("BIOMD_EMBED_MODEL_PATH", str(minilm_path))
    monkeypatch.setenv("COLUMNS", "80")
    name = "interview-with-my-grandmother-about-the-farm-in-county-clare-1962.txt"
    chat = tmp_path / "WhatsApp Chat with Saoirse.txt"
    chat.write_text("12/03/21, 10:15 - Saoirse: the flat\n14/05/22, 09:00 - Saoirse: moved in\n")
    (tmp_path / name).write_text("She remembered the farm and the long winters there.")
    runner = CliRunner()
    assert (
        runner.invoke(app, ["ingest", "--no-embed", str(chat), str(tmp_path / name)]).exit_code == 0
    )
    result = runner.invoke(app, ["sources"])
    assert result.exit_code == 0
    header, *rows = result.stdout.splitlines()  # stderr says why they wait
    assert header.split("\t")[:6] == ["id", "name", "kind", "lang", "chunks", "covers"]
    cells = {row.split("\t")[1]: row.split("\t") for row in rows}
    assert name in cells, "the whole name, however narrow the terminal"
    assert cells[chat.name][5] == "2021-03-12 to 2022-05-14"
    assert "…" not in result.output
