"""Embedding the corpus: every indexed chunk gets a vector, newest sources first, and a chunk
whose model input already has a vector gets a copy of it (core.retrieval.backfill says which
and in what order). The model never waits on the database, a cancelled run stops between
batches, and a re-index starts over with another model. What the model sees of a chunk, and
which chunks go first, are given by the app (they are the transcript format's business)."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable

import numpy as np

from core.errors import EmbeddingError, ModelMismatch
from core.retrieval.backfill import input_key, pending_rounds, unique_inputs
from core.retrieval.embedding import Embedder, FastEmbedder, Matrix, to_blob
from core.settings import Settings
from core.storage.store import Store

EmbedProgress = Callable[[int, int], None]
"""Called as (chunks embedded so far, chunks to embed in all)."""

ROUND_BATCHES = 8  # embedding batches per database round trip


def embed_batches(
    embedder: Embedder, texts: list[str], batch: int, stop: threading.Event
) -> Matrix:
    """A round's vectors, one model batch at a time, stopping early once `stop` is set."""
    parts = []
    for at in range(0, len(texts), batch):
        if stop.is_set():
            raise EmbeddingError("Embedding stopped.")
        parts.append(embedder.embed_passages(texts[at : at + batch]))
    return np.concatenate(parts) if parts else embedder.embed_passages([])


class Embeddings:
    """The embedding model and the vectors it makes for the store."""

    def __init__(
        self,
        settings: Settings,
        store: Store,
        embedder: Embedder | None = None,
        *,
        input_of: Callable[[str], str] = lambda text: text,
        first: Callable[[str], bool] | None = None,
    ) -> None:
        self.settings = settings
        self.store = store
        self._embedder = embedder
        self.input_of = input_of  # what the model is given for a chunk's text
        self.first = first  # the chunks of a source that get vectors before the rest

    def embedder(self) -> Embedder:
        """The configured embedder, built on first use (loading a model is slow)."""
        if self._embedder is None:
            s = self.settings
            self._embedder = FastEmbedder(
                s.embed_model,
                model_path=s.embed_model_path,
                cache_dir=s.models_dir,
                threads=s.embed_threads,
                batch_size=s.embed_batch_size,
                int8_cache=s.models_dir / "int8" if s.embed_quantise else None,
            )
        return self._embedder

    @property
    def model_name(self) -> str:
        return self._embedder.name if self._embedder else self.settings.embed_model

    async def stored_model(self) -> str | None:
        """The model the stored vectors were made with (None before the first)."""
        return await self.store.meta.get("embed_model")

    async def check_model(self) -> None:
        """Refuse to mix vectors of two models: a clear error that points to `biomd reindex`."""
        stored = await self.stored_model()
        if stored is not None and stored != self.model_name:
            raise ModelMismatch(
                f"The vectors in {self.settings.db_path} were made with the embedding model "
                f"{stored}, but BIOMD_EMBED_MODEL is now {self.model_name}. Run `biomd reindex` "
                f"to re-embed everything with {self.model_name} (keyword search works meanwhile), "
                f"or set BIOMD_EMBED_MODEL back to {stored}."
            )

    async def embed_pending(self, on_progress: EmbedProgress | None = None) -> int:
        """Give every indexed chunk a vector; how many were given one. Resumable: it starts
        wherever vectors stop."""
        embedder = await asyncio.to_thread(self.embedder)  # importing fastembed takes a while
        await self.check_model()
        total = await self.store.vectors.count_missing()
        if total == 0:
            return 0
        if await self.stored_model() is None:
            await self.store.meta.set(
                {"embed_model": embedder.name, "embed_dim": str(embedder.dim)}
            )
        done = 0
        batch = self.settings.embed_batch_size
        rounds = pending_rounds(self.store, batch * ROUND_BATCHES, self.first)
        rows = await anext(rounds, None)
        stop = threading.Event()  # set when this is cancelled: the thread stops between batches
        try:
            while rows:
                inputs = [self.input_of(text) for _, text in rows]
                keys = [input_key(t) for t in inputs]
                blobs = await self.store.vectors.by_input(list(set(keys)))
                todo = unique_inputs(keys, inputs, set(blobs))
                # The model never waits on the database: the next round is read while this
                # one is embedded (bench/embed_pipeline.py measures the difference).
                embedding = asyncio.ensure_future(
                    asyncio.to_thread(embed_batches, embedder, list(todo.values()), batch, stop)
                )
                upcoming = asyncio.ensure_future(anext(rounds, None))
                try:
                    vectors = await embedding
                except asyncio.CancelledError:
                    stop.set()  # Ctrl-C or shutdown: don't hold the exit up for a whole round
                    raise
                finally:
                    next_rows = await upcoming
                blobs |= {k: to_blob(v) for k, v in zip(todo, vectors, strict=True)}
                await self.store.vectors.add(
                    [(cid, blobs[k]) for (cid, _), k in zip(rows, keys, strict=True)], keys
                )
                done += len(rows)
                if on_progress:
                    on_progress(done, max(total, done))
                rows = next_rows
        finally:
            await rounds.aclose()
        return done

    async def reindex(self, on_progress: EmbedProgress | None = None) -> int:
        """Drop every vector and embed the whole corpus again with the configured model."""
        embedder = self.embedder()
        await self.store.vectors.clear(
            {"embed_model": embedder.name, "embed_dim": str(embedder.dim)}
        )
        return await self.embed_pending(on_progress)
