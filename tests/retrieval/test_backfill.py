"""Vectors sooner: newest sources first, the owner's chunks first, and a chunk whose text
already has a vector gets a copy of it without a model call."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from biomd.app.engine import Engine, embed_input
from biomd.ingest.timestamps import owner_speaks
from biomd.retrieval.embedding import FastEmbedder, Matrix
from biomd.settings import Settings
from tests.conftest import make_settings
from tests.support import db


class Recording:
    """The real model, keeping every text it is asked to embed, in order."""

    def __init__(self, inner: FastEmbedder) -> None:
        self.inner, self.name, self.dim = inner, inner.name, inner.dim
        self.texts: list[str] = []

    def embed_passages(self, texts: Sequence[str]) -> Matrix:
        self.texts += texts
        return self.inner.embed_passages(texts)

    def embed_query(self, text: str) -> Matrix:
        return self.inner.embed_query(text)


def chat(days: int, first_day: int = 1, news: str = "the garden is full of tomatoes again ") -> str:
    """A transcript: each day Mum writes a long paragraph, and every third day Grace answers."""
    lines = []
    for d in range(first_day, first_day + days):
        stamp = f"[2023-05-{d:02d} 09:00]"
        lines.append(f"{stamp} Mum: day {d}, " + news * 12)
        if d % 3 == 0:
            lines.append(f"{stamp} Grace: lovely, day {d} here was long but good")
    return "\n".join(lines) + "\n"


def vectors(settings: Settings) -> dict[str, bytes]:
    return db.vectors_by_text(settings.db_path)


@pytest.mark.slow
async def test_an_export_imported_again_costs_model_calls_only_for_its_new_chunks(
    tmp_path: Path, minilm_path: Path, embedder: FastEmbedder
) -> None:
    """The longer export is kept as the messages after the stored one's end (test_twins),
    so only those go to the model."""
    settings = make_settings(tmp_path / "data", minilm_path)
    old, new = tmp_path / "old" / "chat.txt", tmp_path / "new" / "chat.txt"
    for path, text in ((old, chat(20)), (new, chat(20) + chat(4, first_day=21))):
        path.parent.mkdir()
        path.write_text(text)
    model = Recording(embedder)
    async with await Engine.open(settings, model) as engine:
        _ = [r async for r in engine.sources.ingest([old])]
        first = await engine.sources.embed_pending()
        assert len(model.texts) == first
        before = vectors(settings)
        model.texts.clear()

        _ = [r async for r in engine.sources.ingest([new])]
        second = await engine.sources.embed_pending()
        stats = await engine.sources.stats()
    assert stats.vectors == stats.chunks == first + second
    # the longer export keeps only what is new (biomd.ingest.twins), so only that is embedded
    assert 0 < len(model.texts) == second < first
    assert not any(embed_input(t) in model.texts for t in before), "nothing embedded twice"
    again = vectors(settings)
    for t in before:
        assert again[t] == before[t]


@pytest.mark.slow
async def test_chunks_another_source_already_has_cost_no_model_call(
    tmp_path: Path, minilm_path: Path, embedder: FastEmbedder
) -> None:
    """A chat that shares its start with a stored one, but too little of it to be its twin,
    is a source of its own; its chunks that are the stored one's reuse their vectors."""
    settings = make_settings(tmp_path / "data", minilm_path)
    old, new = tmp_path / "old" / "chat.txt", tmp_path / "new" / "chat.txt"
    since = chat(14, first_day=11, news="the kitchen smells of fresh bread ")
    for path, text in ((old, chat(20)), (new, chat(10) + since)):
        path.parent.mkdir()
        path.write_text(text)
    model = Recording(embedder)
    async with await Engine.open(settings, model) as engine:
        _ = [r async for r in engine.sources.ingest([old])]
        first = await engine.sources.embed_pending()
        before = vectors(settings)
        model.texts.clear()
        [added] = [r async for r in engine.sources.ingest([new])]
        assert added.status == "added", added
        second = await engine.sources.embed_pending()
    again = vectors(settings)
    mine = [c.text for c in db.chunks(settings.db_path) if c.document_id == added.document_id]
    shared = [t for t in mine if t in before]
    assert len(shared) >= 2, "the chunks of the days both hold"
    assert len(model.texts) == second - len(shared) < second
    assert all(embed_input(t) not in model.texts for t in shared)
    assert all(again[t] == before[t] for t in shared) and first > 0


@pytest.mark.slow
async def test_chunks_the_model_would_see_alike_go_to_it_once(
    tmp_path: Path, minilm_path: Path, embedder: FastEmbedder
) -> None:
    settings = make_settings(tmp_path / "data", minilm_path)
    notes = tmp_path / "notes"
    notes.mkdir()
    for i in range(4):
        (notes / f"{i}.txt").write_text(f"Note {i}: nothing like the others.\n")
    for day in (1, 2):  # the same line on two days: the stamps differ, the model input not
        (notes / f"chat{day}.txt").write_text(f"[2023-05-0{day} 09:00] Mum: Call me back.\n")
    model = Recording(embedder)
    async with await Engine.open(settings, model) as engine:
        _ = [r async for r in engine.sources.ingest([notes])]
        assert await engine.sources.embed_pending() == 6
    assert len(model.texts) == 5 and model.texts.count("Mum: Call me back.\n") == 1
    stored = vectors(settings)
    assert len(stored) == 6
    assert (
        stored["[2023-05-01 09:00] Mum: Call me back.\n"]
        == stored["[2023-05-02 09:00] Mum: Call me back.\n"]
    )


@pytest.mark.slow
async def test_newest_sources_and_the_owners_chunks_get_vectors_first(
    tmp_path: Path, minilm_path: Path, embedder: FastEmbedder
) -> None:
    settings = make_settings(
        tmp_path / "data", minilm_path, owner_names="Grace", embed_batch_size=1
    )
    model = Recording(embedder)
    async with await Engine.open(settings, model) as engine:
        for i, text in enumerate([chat(6), "An old journal entry.\n", chat(9, first_day=11)]):
            path = tmp_path / f"source{i}.txt"
            path.write_text(text)
            _ = [r async for r in engine.sources.ingest([path])]
        docs = [(c.text, c.document_id) for c in db.chunks(settings.db_path)]
        total = await engine.sources.embed_pending()
    doc_of = {embed_input(str(t)): int(d) for t, d in docs}
    chunk_of = {embed_input(str(t)): str(t) for t, _ in docs}
    order = [doc_of[t] for t in model.texts]
    assert len(order) == total == len(docs)
    assert order == sorted(order, reverse=True)  # the newest source first, the oldest last
    newest = [t for t in model.texts if doc_of[t] == order[0]]
    owners = [owner_speaks(chunk_of[t], ["Grace"]) for t in newest]
    assert True in owners and False in owners
    assert owners == sorted(owners, reverse=True)  # Grace's chunks before the rest


def test_who_speaks_is_read_from_the_chat_lines() -> None:
    assert owner_speaks("[2023-05-01 09:00] grace: hi", ["Grace"])
    assert owner_speaks("[2023-05-01 09:00] Ana Silva (owner): hi", [])
    assert not owner_speaks("[2023-05-01 09:00] Mum: Grace, hi", ["Grace"])
    assert not owner_speaks("Grace: a line without a stamp", ["Grace"])


async def test_vectors_made_before_the_migration_stay_and_new_ones_are_reused(
    tmp_path: Path, minilm_path: Path, embedder: FastEmbedder
) -> None:
    settings = make_settings(tmp_path / "data", minilm_path)
    settings.data_dir.mkdir(mode=0o700)
    db.old_database(settings.db_path, before="vector_inputs")
    blob = np.ones(384, dtype="<f4").tobytes()
    db.old_source(settings.db_path, "old.txt", ["Hello"], vector=blob)
    async with await Engine.open(settings, embedder):
        (row,) = db.vectors(settings.db_path)
        assert row.vector == blob and row.input_hash is None
