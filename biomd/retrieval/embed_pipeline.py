"""Embedding the corpus: every indexed chunk gets a vector, newest sources first, and a chunk
whose model input already has a vector gets a copy of it (biomd.retrieval.backfill says which
and in what order). The model never waits on the database, a cancelled run stops between
batches, and a switch of model fills a second table while search goes on with the first.
What the model sees of a chunk, and which chunks go first, are given by the app (they are
the transcript format's business)."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from pathlib import Path

import numpy as np

from biomd.errors import EmbeddingError
from biomd.retrieval.backfill import input_key, pending_rounds, unique_inputs
from biomd.retrieval.embedding import Embedder, FastEmbedder, Matrix, to_blob
from biomd.settings.groups import EmbedSettings
from biomd.storage.downloads import forget_download_failed
from biomd.storage.lock import ProcessLock
from biomd.storage.store import Store
from biomd.storage.vectors import Vectors

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


NEXT_KEYS = ("next_embed_model", "next_embed_dim", "next_embed_model_path")
"""meta of a switch of model under way: the model `next_vectors` is being filled with."""


def model_meta(embedder: Embedder, path: Path | None, prefix: str = "") -> dict[str, str]:
    """The meta that names the model a table of vectors was made with."""
    return {
        f"{prefix}embed_model": embedder.name,
        f"{prefix}embed_dim": str(embedder.dim),
        f"{prefix}embed_model_path": str(path or ""),
    }


class Embeddings:
    """The embedding models and the vectors they make for the store. Search and new chunks
    use the model the stored vectors come from (the serving model); after BIOMD_EMBED_MODEL
    changes, `reindex` fills `next_vectors` with the configured model while search goes on
    with the old one, then swaps them in one step."""

    def __init__(
        self,
        embed: EmbedSettings,
        models_dir: Path,
        store: Store,
        embedder: Embedder | None = None,
        *,
        input_of: Callable[[str], str] = lambda text: text,
        first: Callable[[str], bool] | None = None,
    ) -> None:
        """Models are kept in `models_dir`; a switch of model takes reindex.lock beside the
        store's database."""
        self.embed = embed
        self.models_dir = models_dir
        self.store = store
        self._models: dict[str, Embedder] = {embedder.name: embedder} if embedder else {}
        self._lock = threading.Lock()
        self._switch = asyncio.Lock()
        self.input_of = input_of  # what the model is given for a chunk's text
        self.first = first  # the chunks of a source that get vectors before the rest

    def embedder(self) -> Embedder:
        """The configured embedder, built on first use (loading a model is slow)."""
        return self._model(self.embed.model, self.embed.model_path)

    def _model(self, name: str, path: Path | None) -> Embedder:
        with self._lock:
            if name not in self._models:
                e = self.embed
                self._models[name] = FastEmbedder(
                    name,
                    model_path=path,
                    cache_dir=self.models_dir,
                    threads=e.threads,
                    batch_size=e.batch_size,
                    int8_cache=self.models_dir / "int8" if e.quantise else None,
                )
            return self._models[name]

    async def serving(self) -> Embedder:
        """The model the stored vectors come from, which queries must be embedded with (the
        configured one before there are any)."""
        stored = await self.stored_model()
        if stored is None or stored == self.embed.model:
            return await asyncio.to_thread(self.embedder)
        path = await self.store.meta.get("embed_model_path")
        return await asyncio.to_thread(self._model, stored, Path(path) if path else None)

    @property
    def model_name(self) -> str:
        """The embedding model configured now."""
        return self.embed.model

    async def stored_model(self) -> str | None:
        """The model the stored vectors were made with (None while there are none: a model
        named before its first vector, whose download failed say, binds nothing)."""
        name = await self.store.meta.get("embed_model")
        if name is None or (await self.store.vectors.state()).newest == 0:
            return None
        return name

    async def switching(self) -> bool:
        """Whether the stored vectors are not (all) the configured model's yet."""
        stored = await self.stored_model()
        started = await self.store.meta.get(NEXT_KEYS[0])
        return started is not None or (stored is not None and stored != self.model_name)

    async def embed_pending(
        self, on_progress: EmbedProgress | None = None, *, retry: bool = False
    ) -> int:
        """Give every indexed chunk a vector of the serving model; how many were given one.
        Resumable: it starts wherever vectors stop. `retry`: try a download of the model
        that failed lately now, not after RETRY_DOWNLOAD_AFTER_S."""
        if retry:
            forget_download_failed(self.embed.model, self.models_dir)
            if stored := await self.stored_model():
                forget_download_failed(stored, self.models_dir)
        embedder = await self.serving()  # importing fastembed takes a while
        if await self.stored_model() is None:
            await self.store.meta.set(model_meta(embedder, self.embed.model_path))
        return await self._fill(self.store.vectors, embedder, on_progress)

    async def reindex(self, on_progress: EmbedProgress | None = None) -> int:
        """Embed the whole corpus again with the configured model, into `next_vectors`
        while search goes on with `vectors`, then swap them in one transaction; how many
        chunks were embedded. Resumable: a stopped run goes on where it stopped."""
        embedder = await asyncio.to_thread(self.embedder)
        path = self.embed.model_path
        async with self._switch:  # one switch at a time in this process …
            lock = ProcessLock(self.store.path.parent / "reindex.lock")
            lock.acquire()  # … and in any (Busy, with a clear message, if another runs one)
            try:
                if await self.store.meta.get(NEXT_KEYS[0]) != embedder.name:
                    await self.store.next_vectors.clear(model_meta(embedder, path, "next_"))
                done = 0
                while True:  # until every chunk, sources added meanwhile too, has one
                    made = await self._fill(self.store.next_vectors, embedder, on_progress)
                    done += made
                    if not await self.store.next_vectors.count_missing():
                        break
                    if made == 0:
                        return done  # the switch was taken over (another model): no swap
                await self.store.vectors.take_next(model_meta(embedder, path), NEXT_KEYS)
            finally:
                lock.release()
        return done + await self.embed_pending()  # chunks added since the last round

    async def _fill(
        self, table: Vectors, embedder: Embedder, on_progress: EmbedProgress | None
    ) -> int:
        """Give every indexed chunk missing from `table` a vector made by `embedder`."""
        total = await table.count_missing()
        if total == 0:
            return 0
        done = 0
        batch = self.embed.batch_size
        rounds = pending_rounds(table, batch * ROUND_BATCHES, self.first)
        rows = await anext(rounds, None)
        stop = threading.Event()  # set when this is cancelled: the thread stops between batches
        try:
            while rows:
                inputs = [self.input_of(text) for _, text in rows]
                keys = [input_key(t) for t in inputs]
                blobs = await table.by_input(list(set(keys)))
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
                pairs = [(cid, blobs[k]) for (cid, _), k in zip(rows, keys, strict=True)]
                if not await table.add(pairs, keys, embedder.name):
                    break  # a switch of model ended, or began anew, meanwhile: stop here
                done += len(rows)
                if on_progress:
                    on_progress(done, max(total, done))
                rows = next_rows
        finally:
            await rounds.aclose()
        return done
