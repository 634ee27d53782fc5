"""Search over the reader's notes: keywords over their statements, people and
quotes, and meaning over their statements' vectors, fused like passage search. The vectors
are made after each round of reading; a note not embedded yet is still found by keyword."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

import numpy as np

from biomd.retrieval.embedding import Embedder, from_blobs, to_blob
from biomd.retrieval.fts_query import keyword_query
from biomd.retrieval.fusion import rrf
from biomd.storage.notes import Note
from biomd.storage.store import Store

BATCH = 256


class NoteSearch:
    def __init__(self, store: Store, embedder: Callable[[], Awaitable[Embedder]]) -> None:
        self.store = store
        self._embedder = embedder

    async def embed_new(self) -> int:
        """Give every note without a vector one; how many were made."""
        made = 0
        while batch := await self.store.notes.unembedded(BATCH):
            texts = [t for _, t in batch]
            embedder = await self._embedder()
            vectors = await asyncio.to_thread(embedder.embed_passages, texts)
            if not await self.store.notes.add_vectors(
                [(i, to_blob(v)) for (i, _), v in zip(batch, vectors, strict=True)],
                embedder.name,
            ):
                break  # the model was switched meanwhile: the next round uses the new one
            made += len(batch)
        return made

    async def search(
        self, query: str, limit: int = 10, hidden: frozenset[int] = frozenset()
    ) -> list[Note]:
        """The notes that best match `query`, best first; none from the sources in
        `hidden`."""
        expression = keyword_query(query)
        by_keyword = (
            [i for i, _ in await self.store.notes.match(expression, 50)] if (expression) else []
        )
        by_meaning = await self._nearest(query, 50)
        fused = [i for i, _ in rrf([by_keyword, by_meaning])]
        if not hidden:
            return await self.store.notes.get(fused[:limit])
        notes = await self.store.notes.get(fused)
        return [n for n in notes if n.document_id not in hidden][:limit]

    async def _nearest(self, query: str, k: int) -> list[int]:
        stored = await self.store.notes.vectors()
        if not stored:
            return []
        embedder = await self._embedder()
        q = await asyncio.to_thread(lambda: embedder.embed_query(query))
        matrix = from_blobs([b for _, b in stored], int(q.shape[-1]))
        scores = matrix @ q.reshape(-1)
        best = np.argsort(-scores)[:k]
        return [stored[int(j)][0] for j in best]
