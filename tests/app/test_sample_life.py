"""The sample life offline: its voice note fails at once for want of the speech model (no
network is found out in a second or two), is said once, and is not tried again on the next
run while the failed download waits out its back-off."""

from __future__ import annotations

from pathlib import Path

import pytest

from biomd import sample
from biomd.app import model_checks, sample_life
from biomd.app.engine import Engine
from biomd.retrieval.embedding import FastEmbedder
from tests.conftest import make_settings

pytestmark = pytest.mark.slow  # the sample ingested by a whole Engine, twice


async def test_offline_the_voice_note_is_said_once_and_waits_out_the_back_off(
    tmp_path: Path, minilm_path: Path, embedder: FastEmbedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")  # as a machine with no network
    settings = make_settings(
        tmp_path / "data",
        minilm_path,
        whisper_model="base",  # not on this machine
        embed_cache_dir=tmp_path / "models",  # never the user's own cache
        owner_names=sample.OWNER_NAMES,
    )
    said: list[str] = []
    async with await Engine.open(settings, embedder) as engine:
        await sample_life.load(engine, said.append)
        first = "\n".join(said)
        assert "Reading 10 sample sources into biomd (first run only)" in first
        assert "voice-note-2024-06-02.ogg: not transcribed" in first
        assert model_checks.speech_failure(settings) is not None
        said.clear()
        await sample_life.load(engine, said.append)  # the next run
    assert not [line for line in said if "sample source" in line or "voice" in line], said
