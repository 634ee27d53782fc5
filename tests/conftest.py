"""Shared fixtures: a private data dir per test, real settings, the real MiniLM model."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest

from biomd.app.engine import Engine
from biomd.retrieval.embedding import FastEmbedder
from biomd.settings import Settings
from tests.support.fake_llm import FakeLLM, fake_llm
from tests.support.model_files import MINILM_NAME, minilm_dir


@pytest.fixture(scope="session", autouse=True)
def user_folders(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """The user's data, cache and config folders (platformdirs's, which biomd defaults to)
    under the test run's temporary folder, for this process and every process it starts: no
    test reads or writes the real home."""
    base = tmp_path_factory.mktemp("home")
    saved = {k: os.environ.get(k) for k in ("XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_CONFIG_HOME")}
    os.environ["XDG_DATA_HOME"] = str(base / "data")
    os.environ["XDG_CACHE_HOME"] = str(base / "cache")
    os.environ["XDG_CONFIG_HOME"] = str(base / "config")
    yield
    for key, value in saved.items():
        if value is None:
            os.environ.pop(key, None)
        else:
            os.environ[key] = value


@pytest.fixture(autouse=True)
def config_folder(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Path:
    """A config folder of each test's own (BIOMD_CONFIG_DIR), for it and the processes it
    starts: what one test sets with `biomd config set` no other test sees."""
    folder = tmp_path_factory.mktemp("config")
    monkeypatch.setenv("BIOMD_CONFIG_DIR", str(folder))
    return folder


@pytest.fixture(scope="session", autouse=True)
def this_checkout() -> Iterator[None]:
    """Every process a test starts (`biomd ...`, `python -m biomd`) imports this
    checkout's code, as the test process does, not the one the virtualenv's editable install names
    (a second git worktree shares the first one's .venv)."""
    saved = os.environ.get("PYTHONPATH")
    root = str(Path(__file__).resolve().parent.parent)
    os.environ["PYTHONPATH"] = os.pathsep.join([root, *filter(None, [saved])])
    yield
    if saved is None:
        os.environ.pop("PYTHONPATH", None)
    else:
        os.environ["PYTHONPATH"] = saved


@pytest.fixture(scope="session")
def minilm_path() -> Path:
    return minilm_dir()


@pytest.fixture(scope="session")
def embedder(minilm_path: Path, tmp_path_factory: pytest.TempPathFactory) -> FastEmbedder:
    """One loaded model for the whole run (loading takes most of a second)."""
    return FastEmbedder(
        MINILM_NAME, model_path=minilm_path, cache_dir=tmp_path_factory.mktemp("fastembed")
    )


def make_settings(data_dir: Path, minilm_path: Path, **overrides: object) -> Settings:
    """Settings for a test: the small model, no .env, and the web view (where a bot serves
    one) on any free port, so that two runs on one machine don't collide."""
    return Settings(
        _env_file=None,  # type: ignore[call-arg]
        data_dir=data_dir,
        embed_model=MINILM_NAME,
        embed_model_path=minilm_path,
        **({"web_port": 0} | overrides),  # type: ignore[arg-type]
    )


@pytest.fixture
def settings(tmp_path: Path, minilm_path: Path) -> Settings:
    return make_settings(tmp_path / "data", minilm_path)


@pytest.fixture
async def engine(settings: Settings, embedder: FastEmbedder) -> AsyncIterator[Engine]:
    eng = await Engine.open(settings, embedder)
    try:
        yield eng
    finally:
        await eng.close()


@pytest.fixture
def llm() -> Iterator[FakeLLM]:
    with fake_llm() as server:
        yield server


@pytest.fixture
async def bio_engine(
    tmp_path: Path, minilm_path: Path, llm: FakeLLM, embedder: FastEmbedder
) -> AsyncIterator[Engine]:
    """An engine whose biographer talks to the fake LLM."""
    settings = llm_settings(tmp_path, minilm_path, llm)
    async with await Engine.open(settings, embedder) as engine:
        yield engine


def llm_settings(tmp_path: Path, minilm_path: Path, llm: FakeLLM, **extra: Any) -> Settings:
    values: dict[str, Any] = {
        "llm_base_url": llm.base_url,
        "llm_api_key": "sk-test",
        "llm_model": "test/model",
        "llm_max_retries": 2,
        "owner_names": "Grace",
        "timezone": "UTC",
    }
    values.update(extra)
    return make_settings(tmp_path / "data", minilm_path, **values)
