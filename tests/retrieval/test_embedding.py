"""Embeddings: the real MiniLM model, resumable backfill, and a switch of model that keeps
search working."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from biomd.app.engine import Engine
from biomd.retrieval.embedding import FastEmbedder
from biomd.settings import Settings
from tests.conftest import make_settings
from tests.support.model_files import MINILM_NAME


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
    from biomd.retrieval.embedding import QUERY_PREFIXES

    assert QUERY_PREFIXES["snowflake/snowflake-arctic-embed-s"].startswith("Represent this")


def write_notes(folder: Path, n: int) -> None:
    folder.mkdir()
    for i in range(n):
        (folder / f"note{i:03d}.txt").write_text(f"Note {i}: a short thought about topic {i}.")


@pytest.mark.slow
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


OTHER_NAME = "snowflake/snowflake-arctic-embed-xs"


def other_model(minilm_path: Path, folder: Path) -> Path:
    """A second model for a switch: MiniLM's weights laid out as fastembed expects
    snowflake-arctic-embed-xs, which pools and prefixes differently, so its vectors differ
    (no second model can be downloaded here)."""
    (folder / "onnx").mkdir(parents=True)
    (folder / "onnx" / "model.onnx").symlink_to(minilm_path / "model.onnx")
    for f in minilm_path.iterdir():
        if f.suffix == ".json":
            (folder / f.name).symlink_to(f)
    return folder


async def vector_top(engine: Engine, query: str) -> str:
    hits = await engine.sources.search(query, mode="vector", limit=1)
    return hits[0].document


async def embedded_then_switched(
    tmp_path: Path, minilm_path: Path, embedder: FastEmbedder, notes: int
) -> tuple[Settings, bytes]:
    """`notes` notes ingested and embedded with MiniLM; the settings that then name the other
    model, and chunk 1's MiniLM vector."""
    old = make_settings(tmp_path / "data", minilm_path)
    new = old.but(
        **{
            "embed_model": OTHER_NAME,
            "embed_model_path": other_model(minilm_path, tmp_path / "xs"),
        }
    )
    write_notes(tmp_path / "notes", notes)
    async with await Engine.open(old, embedder) as engine:
        _ = [r async for r in engine.sources.ingest([tmp_path / "notes"])]
        await engine.sources.embed_pending()
        return new, (await engine.store.vectors.of([1]))[1]


@pytest.mark.slow
async def test_a_changed_model_keeps_search_working_until_the_switch_is_done(
    tmp_path: Path, minilm_path: Path, embedder: FastEmbedder
) -> None:
    new, before = await embedded_then_switched(tmp_path, minilm_path, embedder, 5)

    def stop(done: int, total: int) -> None:
        raise KeyboardInterrupt

    async with await Engine.open(new) as engine:
        assert await engine.sources.switching()
        # Search goes on with the stored vectors and the model that made them.
        assert await vector_top(engine, "thought about topic 3") == "notes/note003.txt"
        with pytest.raises(KeyboardInterrupt):  # stopped after the first round
            await engine.sources.reindex(stop)
        stats = await engine.sources.stats()
        assert stats.switching and stats.next_vectors == 5 and stats.embed_model == MINILM_NAME
        assert await vector_top(engine, "thought about topic 1") == "notes/note001.txt"
        # A source added meanwhile is searchable at once, and in the switch too.
        (tmp_path / "more").mkdir()
        (tmp_path / "more" / "late.txt").write_text("A late note about sailing to Corsica.")
        _ = [r async for r in engine.sources.ingest([tmp_path / "more"])]
        assert await engine.sources.embed_pending() == 1
        assert await vector_top(engine, "a boat trip to an island") == "more/late.txt"

    async with await Engine.open(new) as engine:
        assert await engine.sources.reindex() == 1  # resumed: only the late note was left
        stats = await engine.sources.stats()
        assert not stats.switching and stats.embed_model == OTHER_NAME
        assert stats.vectors == stats.chunks == 6 and stats.next_vectors == 0
        assert await engine.store.meta.get("embed_model_path") == str(new.embed.model_path)
        assert (await engine.store.vectors.of([1]))[1] != before
        assert await vector_top(engine, "thought about topic 3") == "notes/note003.txt"
        assert await vector_top(engine, "a boat trip to an island") == "more/late.txt"


@pytest.mark.slow
async def test_reindex_with_the_same_model_embeds_everything_again(
    settings: Settings, embedder: FastEmbedder, tmp_path: Path
) -> None:
    write_notes(tmp_path / "notes", 5)
    async with await Engine.open(settings, embedder) as engine:
        _ = [r async for r in engine.sources.ingest([tmp_path / "notes"])]
        await engine.sources.embed_pending()
        assert not await engine.sources.switching()
        assert await engine.sources.reindex() == 5
        assert await engine.sources.stored_model() == MINILM_NAME
        assert await engine.store.meta.get("embed_dim") == "384"
        assert await vector_top(engine, "thought about topic 3") == "notes/note003.txt"


@pytest.mark.slow
async def test_the_bot_finishes_a_switch_of_model_in_the_background(
    tmp_path: Path, minilm_path: Path, embedder: FastEmbedder
) -> None:
    from biomd.frontends.runner import BotApp
    from tests.support.fake_telegram import fake_telegram
    from tests.support.waiting import until

    switching, _ = await embedded_then_switched(tmp_path, minilm_path, embedder, 3)
    async with fake_telegram() as tg:
        new = switching.but(
            **{
                "telegram_token": "123456:TEST",
                "telegram_allowed_users": "111",
                "telegram_api_url": tg.base,
                "telegram_local_mode": False,
            }
        )
        app = BotApp(new)
        await app.start()
        try:

            async def switched() -> bool:
                return not await app.engine.sources.switching()

            await until(switched)
            assert await app.engine.sources.stored_model() == OTHER_NAME
            assert await vector_top(app.engine, "thought about topic 2") == "notes/note002.txt"
        finally:
            await app.stop()


@pytest.mark.slow
async def test_vectors_of_the_old_model_are_refused_once_the_switch_is_done(
    tmp_path: Path, minilm_path: Path, embedder: FastEmbedder
) -> None:
    from biomd.errors import Busy
    from biomd.storage.lock import ProcessLock

    new, late = await embedded_then_switched(tmp_path, minilm_path, embedder, 3)
    async with await Engine.open(new) as engine:
        held = ProcessLock(new.data_dir / "reindex.lock")
        held.acquire()  # another process is switching already
        with pytest.raises(Busy):
            await engine.sources.reindex()
        held.release()
        await engine.sources.reindex()
        await engine.store.vectors.clear({})  # as if a chunk lost its vector meanwhile
        # A job that still holds the old model finishes a round after the swap: refused.
        assert not await engine.store.vectors.add([(1, late)], None, MINILM_NAME)
        assert await engine.store.vectors.of([1]) == {}
        assert await engine.sources.embed_pending() == 3  # made again, with the new model
