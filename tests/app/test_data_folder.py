"""The owner's data is in the user's data folder whichever folder biomd runs from; a
`./biomd-data` an earlier biomd left is moved there once, never lost, never doubled."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from biomd.app import data_folder, sample_life
from biomd.frontends.cli import app
from biomd.settings import Settings
from biomd.storage.store import Store
from tests.support.model_files import MINILM_NAME


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, minilm_path: Path) -> Path:
    """XDG folders of their own, so the platform's data folder is under tmp_path."""
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg-data"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg-cache"))
    monkeypatch.delenv("BIOMD_DATA_DIR", raising=False)
    monkeypatch.setenv("BIOMD_EMBED_MODEL", MINILM_NAME)
    monkeypatch.setenv("BIOMD_EMBED_MODEL_PATH", str(minilm_path))
    return tmp_path


async def legacy_folder(cwd: Path) -> Path:
    old = cwd / "biomd-data"
    old.mkdir(parents=True, mode=0o700)
    store = await Store.open(old / "biomd.sqlite3")
    await store.close()
    (old / "bio.md").write_text("# Summary\nGrace, a potter in Galway.\n")
    return old


def test_the_default_is_the_users_data_folder(home: Path) -> None:
    settings = Settings(_env_file=None)  # type: ignore[call-arg]
    assert settings.data_dir == home / "xdg-data" / "biomd"
    assert settings.models_dir == home / "xdg-cache" / "biomd" / "models"


async def test_an_old_biomd_data_folder_is_moved_once_with_a_message(home: Path) -> None:
    cwd = home / "projects" / "biomd"
    old = await legacy_folder(cwd)
    settings = Settings(_env_file=None)  # type: ignore[call-arg]
    said = data_folder.adopt_legacy(settings, cwd)
    assert said and said.startswith(f"Moved your biomd data from {old} to {settings.data_dir}")
    assert not old.exists()
    assert (settings.data_dir / "bio.md").read_text().startswith("# Summary\nGrace")
    assert data_folder.adopt_legacy(settings, cwd) is None, "once"


async def test_with_data_in_both_places_nothing_moves_and_the_owner_is_told(home: Path) -> None:
    cwd = home / "elsewhere"
    old = await legacy_folder(cwd)
    settings = Settings(_env_file=None)  # type: ignore[call-arg]
    await legacy_folder(settings.data_dir.parent / "tmp")  # a database of its own
    (settings.data_dir.parent / "tmp" / "biomd-data").rename(settings.data_dir)
    said = data_folder.adopt_legacy(settings, cwd)
    assert said and "is not used" in said and f"BIOMD_DATA_DIR={old}" in said
    assert (old / "biomd.sqlite3").exists()
    chosen = Settings(_env_file=None, data_dir=old)  # type: ignore[call-arg]
    assert data_folder.adopt_legacy(chosen, cwd) is None, "a chosen folder is left alone"


def test_biomd_run_from_any_folder_finds_the_same_data(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    note = home / "note.md"
    note.write_text("We walked to the lighthouse at Hook Head.")
    runner = CliRunner()
    for folder in ("a", "b"):
        (home / folder).mkdir()
    monkeypatch.chdir(home / "a")
    assert runner.invoke(app, ["ingest", "--no-embed", str(note)]).exit_code == 0
    monkeypatch.chdir(home / "b")
    result = runner.invoke(app, ["stats"])
    assert result.exit_code == 0 and "1 ready" in result.output, result.output
    assert not (home / "b" / "biomd-data").exists() and not (home / "a" / "biomd-data").exists()


def test_the_sample_writes_only_its_own_folder(home: Path) -> None:
    settings = Settings(_env_file=None)  # type: ignore[call-arg]
    sample = sample_life.settings_for(settings)
    assert sample.data_dir == settings.data_dir.parent / "biomd-sample"
    assert not settings.data_dir.exists(), "the owner's folder is not made by the sample"
    assert sample.models_dir == settings.models_dir
    assert sample.models_dir.stat().st_mode & 0o077 == 0
