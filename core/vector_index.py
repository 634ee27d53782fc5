"""All chunk vectors as one float32 matrix in RAM, kept in step with the store."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from core.embedding import Matrix, from_blobs
from core.store import Store

_LOAD_BATCH = 20_000


class VectorIndex:
    """Exact cosine search over every stored vector (they are unit length, so a dot product)."""

    def __init__(self) -> None:
        self.dim = 0  # known once the first vector arrives
        self._reset()

    def _reset(self) -> None:
        self._matrix: Matrix = np.zeros((0, self.dim), dtype=np.float32)
        self._ids: npt.NDArray[np.int64] = np.zeros(0, dtype=np.int64)
        self._size = 0
        self._epoch: str | None = None
        self._last_row = 0

    def __len__(self) -> int:
        return self._size

    def add(self, chunk_ids: npt.ArrayLike, vectors: Matrix, expect: int = 0) -> None:
        """Append vectors; `expect` is how many rows to make room for if it must grow."""
        ids = np.asarray(chunk_ids, dtype=np.int64)
        if self._size == 0 and vectors.shape[1] != self.dim:
            self.dim = int(vectors.shape[1])
            self._matrix = np.zeros((0, self.dim), dtype=np.float32)
        need = self._size + len(ids)
        if need > len(self._ids):
            self._grow(max(need, expect, 2 * len(self._ids), 1024))
        self._matrix[self._size : need] = vectors
        self._ids[self._size : need] = ids
        self._size = need

    def _grow(self, capacity: int) -> None:
        matrix = np.empty((capacity, self.dim), dtype=np.float32)
        matrix[: self._size] = self._matrix[: self._size]
        ids = np.zeros(capacity, dtype=np.int64)
        ids[: self._size] = self._ids[: self._size]
        self._matrix, self._ids = matrix, ids

    async def refresh(self, store: Store) -> None:
        """Load what the store has that this copy lacks; reload all if vectors were deleted."""
        epoch, newest = await store.vectors_state()
        if epoch != self._epoch:
            self._reset()
            self._epoch = epoch
        if self._last_row >= newest:
            return
        expect = self._size + await store.count_vectors_after(self._last_row)
        while self._last_row < newest:
            rows = await store.vectors_after(self._last_row, _LOAD_BATCH)
            if not rows:
                break
            dim = len(rows[0][2]) // 4
            self.add([r[1] for r in rows], from_blobs([r[2] for r in rows], dim), expect)
            self._last_row = rows[-1][0]

    def search(self, query: Matrix, limit: int) -> list[tuple[int, float]]:
        """(chunk id, cosine) of the `limit` nearest vectors, best first."""
        if self._size == 0 or limit <= 0:
            return []
        scores = self._matrix[: self._size] @ np.asarray(query, dtype=np.float32)
        k = min(limit, self._size)
        top = np.argpartition(-scores, k - 1)[:k]
        top = top[np.argsort(-scores[top], kind="stable")]
        return [(int(self._ids[i]), float(scores[i])) for i in top]
