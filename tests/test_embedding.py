"""Embeddings: the real MiniLM model, resumable backfill, model mismatch and reindex."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from core.app.engine import Engine
from core.errors import ModelMismatch
from core.retrieval.embedding import FastEmbedder
from core.settings import Settings
from tests.conftest import make_settings


def test_the_real_model_gives_unit_vectors_that_rank_meaning(embedder: FastEmbedder) -> None:
    passages = embedder.embed_passages(
        ["My grandmother baked bread every Sunday.", "The stock market fell sharply today."]
    )
    query = embedder.embed_query("memories of baking with grandma")
    assert passages.shape == (2, 384) and passages.dtype == np.float32
    assert np.allclose(np.linalg.norm(passages, axis=1), 1.0, atol=1e-5)
    scores = passages @ query
    assert scores[0] > scores[1] + 0.2


def test_the_default_model_gets_its_query_prefix() -> None:
    from core.retrieval.embedding import QUERY_PREFIXES

    assert QUERY_PREFIXES["snowflake/snowflake-arctic-embed-s"].startswith("Represent this")


def write_notes(folder: Path, n: int) -> None:
    folder.mkdir()
    for i in range(n):
        (folder / f"note{i:03d}.txt").write_text(f"Note {i}: a short thought about topic {i}.")


async def test_embedding_is_resumable_after_an_interruption(
    tmp_path: Path, minilm_path: Path, embedder: FastEmbedder
) -> None:
    settings = make_settings(tmp_path / "data", minilm_path, embed_batch_size=2)
    write_notes(tmp_path / "notes", 40)
    seen: list[tuple[int, int]] = []

    def stop_after_two_rounds(done: int, total: int) -> None:
        seen.append((done, total))
        if len(seen) == 2:
            raise KeyboardInterrupt

    async with await Engine.open(settings, embedder) as engine:
        _ = [r async for r in engine.sources.ingest([tmp_path / "notes"])]
        with pytest.raises(KeyboardInterrupt):
            await engine.sources.embed_pending(stop_after_two_rounds)
        assert seen == [(16, 40), (32, 40)]
        assert (await engine.sources.stats()).vectors == 32

    async with await Engine.open(settings, embedder) as engine:
        assert await engine.sources.embed_pending() == 8
        stats = await engine.sources.stats()
        assert stats.vectors == stats.chunks == 40
        assert await engine.sources.embed_pending() == 0


async def test_a_different_model_at_start_up_is_a_clear_error_pointing_to_reindex(
    settings: Settings, embedder: FastEmbedder, tmp_path: Path
) -> None:
    write_notes(tmp_path / "notes", 3)
    async with await Engine.open(settings, embedder) as engine:
        _ = [r async for r in engine.sources.ingest([tmp_path / "notes"])]
        await engine.sources.embed_pending()
        await engine.store.meta.set({"embed_model": "BAAI/bge-small-en-v1.5"})

    with pytest.raises(ModelMismatch) as caught:
        await Engine.open(settings, embedder)
    message = caught.value.user_message
    assert (
        "BAAI/bge-small-en-v1.5" in message and "sentence-transformers/all-MiniLM-L6-v2" in message
    )
    assert "biomd reindex" in message


async def test_reindex_re_embeds_everything_with_the_configured_model(
    settings: Settings, embedder: FastEmbedder, tmp_path: Path
) -> None:
    write_notes(tmp_path / "notes", 5)
    async with await Engine.open(settings, embedder) as engine:
        _ = [r async for r in engine.sources.ingest([tmp_path / "notes"])]
        await engine.sources.embed_pending()
        await engine.store.meta.set({"embed_model": "some/older-model", "embed_dim": "768"})

    async with await Engine.open(settings, embedder, check_model=False) as engine:
        assert await engine.sources.reindex() == 5
        assert await engine.sources.stored_model() == "sentence-transformers/all-MiniLM-L6-v2"
        assert await engine.store.meta.get("embed_dim") == "384"

    async with await Engine.open(settings, embedder) as engine:
        hits = await engine.sources.search("thought about topic 3", mode="vector", limit=1)
        assert hits[0].document == "notes/note003.txt"
