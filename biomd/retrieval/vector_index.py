"""Every chunk vector, searchable in milliseconds at a million, in well under 1 GB of RAM.

Three passes: Hamming distance over binary codes (96 bytes a vector) picks a few thousand
candidates; int8 dot products re-rank them; the best few are scored exactly in float32 from
the store, which stays the source of truth. The compact forms live in RAM and in a cache
file under the data dir, so start-up reads tens of megabytes instead of a million rows; the
cache is checked against the store each time it is opened and rebuilt when it disagrees."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import time
from collections.abc import Awaitable, Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from biomd.retrieval.binary_codes import (
    closest,
    code_bits,
    hamming,
    int8_scales,
    pack,
    rotation,
    to_int8,
    words_for,
)
from biomd.retrieval.embedding import from_blobs
from biomd.storage.database import ensure_private_dir
from biomd.storage.lock import ProcessLock
from biomd.storage.store import Store

_LOAD_BATCH = 20_000
_VERSION = 5  # 5: two code bits per dimension
_SPOT_CHECKS = 8
_SCALE_SAMPLE = 1000
CANDIDATES = 10_000  # Hamming candidates re-ranked with int8 (or 2% of the corpus, if more)
_POOL = ThreadPoolExecutor(max_workers=2, thread_name_prefix="biomd-vectors")
LOADING_SHOWN = 50_000  # vectors to turn into codes before a wait is worth showing


@dataclass(frozen=True)
class Loading:
    """How far the index has got through turning stored vectors into codes."""

    done: int
    total: int
    started: float  # time.monotonic()
    ended: float | None = None

    @property
    def seconds(self) -> float:
        return (self.ended if self.ended is not None else time.monotonic()) - self.started

    @property
    def left_s(self) -> float | None:
        """Seconds still to go at the pace so far; None before there is a pace."""
        if self.done <= 0 or self.total <= self.done:
            return None if self.done <= 0 else 0.0
        return self.seconds * (self.total - self.done) / self.done


LoadingFn = Callable[[Loading], Awaitable[None]]


class _Column:
    """A growable 1-D or 2-D array."""

    def __init__(self, dtype: Any, width: int | None = None) -> None:
        self.dtype = dtype
        self.width = width
        self.size = 0
        self.data: npt.NDArray[Any] = self._alloc(0)

    def _alloc(self, n: int) -> npt.NDArray[Any]:
        return np.zeros((n, self.width) if self.width else n, dtype=self.dtype)

    def extend(self, rows: npt.NDArray[Any]) -> None:
        need = self.size + len(rows)
        if need > len(self.data):
            grown = self._alloc(max(need, 2 * len(self.data), 1024))
            grown[: self.size] = self.data[: self.size]
            self.data = grown
        self.data[self.size : need] = rows
        self.size = need

    def reserve(self, n: int) -> None:
        """Make room for n rows in all, so that loading does not double the array."""
        if n > len(self.data):
            grown = self._alloc(n)
            grown[: self.size] = self.data[: self.size]
            self.data = grown

    def adopt(self, array: npt.NDArray[Any]) -> None:
        """Take an array as the contents, without copying it."""
        self.data = array
        self.size = len(array)

    def view(self) -> npt.NDArray[Any]:
        return self.data[: self.size]


class VectorIndex:
    def __init__(
        self,
        cache_dir: Path | None = None,
        candidates: int = CANDIDATES,
        shown_from: int = LOADING_SHOWN,
    ) -> None:
        self.cache_dir = cache_dir
        self.candidates = candidates
        self.shown_from = shown_from
        self.dim = 0
        self.loading: Loading | None = None  # a build of codes under way, worth showing
        self.last_load: Loading | None = None  # the last such build, ended
        self._clear()
        self._lock = asyncio.Lock()

    def _clear(self) -> None:
        self._ids = _Column(np.int64)
        self._columns: list[_Column] = []
        self._int8: _Column | None = None
        self._scales: npt.NDArray[np.float32] | None = None
        self._rotation: npt.NDArray[np.float32] | None = None
        self._epoch: str | None = None
        self._last_row = 0
        self._cache_ok = False

    def __len__(self) -> int:
        return self._ids.size

    # -- keeping in step with the store ---------------------------------------------------

    async def refresh(self, store: Store, on_loading: LoadingFn | None = None) -> None:
        """Catch up with the store: load or verify the cache, then add new vectors. A build of
        at least `shown_from` vectors is reported to `on_loading` as it goes, and can be
        watched in `loading` by anyone else."""
        async with self._lock:
            state = await store.vectors.state()
            epoch, newest = state.epoch, state.newest
            if self._epoch is None and self.cache_dir is not None:
                await self._load_cache(store, epoch)
            if epoch != self._epoch:
                self._clear()
                self._epoch = epoch
                await self._append_from(store, newest, True, on_loading)
            elif self._last_row < newest:
                await self._append_from(store, newest, False, on_loading)

    async def _append_from(
        self, store: Store, newest: int, rebuild: bool, on_loading: LoadingFn | None
    ) -> None:
        start = len(self)
        todo = await store.vectors.count_after(self._last_row)
        shown = todo >= self.shown_from
        progress = Loading(0, todo, time.monotonic())

        async def tell(done: int, end: bool = False) -> None:
            nonlocal progress
            if not shown:
                return
            progress = Loading(done, todo, progress.started, time.monotonic() if end else None)
            self.loading = None if end else progress
            if end:
                self.last_load = progress
            if on_loading is not None:
                with contextlib.suppress(Exception):  # a progress line never stops a search
                    await on_loading(progress)

        await tell(0)
        try:
            while self._last_row < newest:
                rows = await store.vectors.after(self._last_row, _LOAD_BATCH)
                if not rows:
                    break
                ids = np.array([r.chunk_id for r in rows], dtype=np.int64)
                dim = len(rows[0].blob) // 4
                vectors = from_blobs([r.blob for r in rows], dim)
                await _finished(asyncio.to_thread(self._add, ids, vectors, start + todo))
                self._last_row = rows[-1].id
                await tell(min(len(self) - start, todo))
        finally:
            self.loading = None
        if self.cache_dir is not None and len(self) > 0 and (rebuild or len(self) > start):
            await asyncio.to_thread(
                self._write_cache, store_id=await _store_id(store), start=0 if rebuild else start
            )
        await tell(len(self) - start, end=True)

    def _add(
        self, ids: npt.NDArray[np.int64], vectors: npt.NDArray[np.float32], expected: int = 0
    ) -> None:
        if self._scales is None:
            self.dim = vectors.shape[1]
            sample = vectors[:_SCALE_SAMPLE]
            full = len(sample) >= _SCALE_SAMPLE
            self._scales = int8_scales(sample) if full else np.full(self.dim, 127.0, np.float32)
            self._columns = [_Column(np.uint64) for _ in range(words_for(code_bits(self.dim)))]
            self._int8 = _Column(np.int8, self.dim)
            self._rotation = rotation(self.dim)
        assert self._int8 is not None and self._rotation is not None
        codes = pack(vectors @ self._rotation)
        for column in (self._ids, *self._columns, self._int8):
            column.reserve(expected)
        for w, column in enumerate(self._columns):
            column.extend(codes[:, w])
        self._int8.extend(to_int8(vectors, self._scales))
        self._ids.extend(ids)  # last: a reader's len() never runs ahead of the codes

    # -- search ---------------------------------------------------------------------------

    def shortlist(self, query: npt.NDArray[np.float32], count: int) -> list[int]:
        """Chunk ids of about the `count` best vectors by int8 score (best first), found
        among the Hamming-nearest candidates. Thread-safe against concurrent readers."""
        n = len(self)
        if n == 0 or count <= 0 or self._int8 is None or self._scales is None:
            return []
        assert self._rotation is not None
        q = np.asarray(query, dtype=np.float32)
        pool = max(self.candidates, n // 50)
        if n > pool:
            code = pack(q @ self._rotation)[0]
            columns = [c.view() for c in self._columns]
            half = n // 2
            parts = list(_POOL.map(lambda r: hamming(columns, code, *r), [(0, half), (half, n)]))
            positions = closest(np.concatenate(parts), pool)
        else:
            positions = np.arange(n)
        rows, scaled = self._int8.view(), q / self._scales
        scores = np.empty(len(positions), dtype=np.float32)
        for at in range(0, len(positions), 4096):  # in blocks: no 30 MB float copy at 1M
            block = positions[at : at + 4096]
            scores[at : at + len(block)] = rows[block].astype(np.float32) @ scaled
        keep = min(count, len(positions))
        best = np.argpartition(-scores, keep - 1)[:keep]
        best = best[np.argsort(-scores[best], kind="stable")]
        return [int(i) for i in self._ids.view()[positions[best]]]

    # -- the cache ------------------------------------------------------------------------

    def _files(self) -> dict[str, Path]:
        assert self.cache_dir is not None
        return {
            "manifest": self.cache_dir / "vectors.json",
            "ids": self.cache_dir / "vectors.ids",
            "codes": self.cache_dir / "vectors.codes",
            "int8": self.cache_dir / "vectors.int8",
        }

    async def _load_cache(self, store: Store, epoch: str) -> None:
        """Adopt the cache file if it agrees with the store; otherwise leave it to rebuild."""
        try:
            loaded = await asyncio.to_thread(self._read_cache)
        except (OSError, ValueError, KeyError):
            loaded = None
        if loaded is None:
            return
        manifest, ids, columns, int8 = loaded
        if manifest["epoch"] != epoch or manifest["store_id"] != await _store_id(store):
            return
        if await store.vectors.count_upto(manifest["last_row"]) != len(ids):
            return
        self.dim = int(manifest["dim"])
        scales = np.asarray(manifest["scales"], dtype=np.float32)
        turn = await asyncio.to_thread(rotation, self.dim)
        if not await _spot_check(store, ids, columns, int8, scales, turn):
            return
        self._clear()
        self._scales = scales
        self._rotation = turn
        self._ids.adopt(ids)
        self._columns = [_Column(np.uint64) for _ in columns]
        for column, words in zip(self._columns, columns, strict=True):
            column.adopt(words)
        self._int8 = _Column(np.int8, self.dim)
        self._int8.adopt(int8)
        self._epoch = epoch
        self._last_row = int(manifest["last_row"])
        self._cache_ok = True

    def _read_cache(self) -> tuple[dict[str, Any], Any, list[Any], Any] | None:
        files = self._files()
        if not files["manifest"].exists():
            return None
        manifest = json.loads(files["manifest"].read_text())
        if manifest.get("version") != _VERSION:
            return None
        n, dim = int(manifest["count"]), int(manifest["dim"])
        ids = np.fromfile(files["ids"], dtype="<i8", count=n)
        int8 = np.fromfile(files["int8"], dtype=np.int8, count=n * dim)
        if len(ids) != n or len(int8) != n * dim:
            return None
        columns = _read_columns(files["codes"], n, words_for(code_bits(dim)))
        return manifest, ids, columns, int8.reshape(n, dim)

    def _write_cache(self, store_id: str, start: int) -> None:
        """Append rows start.. to the cache files (or write them afresh when start is 0),
        then the manifest, atomically. Another process writing at the same time wins."""
        assert self.cache_dir is not None and self._int8 is not None
        assert self._scales is not None
        ensure_private_dir(self.cache_dir)
        files = self._files()
        lock = ProcessLock(self.cache_dir / "lock")
        if not lock.try_acquire():
            return
        try:
            if start and not self._cache_ok:
                start = 0
            mode = "ab" if start else "wb"
            with contextlib.suppress(FileNotFoundError):
                if not start:
                    files["manifest"].unlink()
            for key, row_bytes, blocks in (
                ("ids", 8, _blocks([self._ids.view()], start)),
                (
                    "codes",
                    8 * len(self._columns),
                    _blocks([c.view() for c in self._columns], start),
                ),
                ("int8", self.dim, _blocks([self._int8.view()], start)),
            ):
                with files[key].open(mode) as f:
                    if start:
                        f.truncate(start * row_bytes)
                        f.seek(0, os.SEEK_END)
                    for block in blocks:
                        block.tofile(f)
                    f.flush()
                    os.fsync(f.fileno())
            manifest = {
                "version": _VERSION,
                "epoch": self._epoch,
                "store_id": store_id,
                "last_row": self._last_row,
                "count": len(self),
                "dim": self.dim,
                "scales": [float(s) for s in self._scales],
            }
            tmp = files["manifest"].with_suffix(".tmp")
            tmp.write_text(json.dumps(manifest))
            tmp.replace(files["manifest"])
            self._cache_ok = True
        finally:
            lock.release()


_BLOCK_ROWS = 65_536  # rows of the cache files read or written at a time


def _blocks(columns: list[npt.NDArray[Any]], start: int) -> Iterator[npt.NDArray[Any]]:
    """Rows start.. of side-by-side columns, as little-endian row-major blocks: a file's
    bytes, a few megabytes at a time rather than a copy of the whole index."""
    end = len(columns[0])
    for a in range(start, end, _BLOCK_ROWS):
        b = min(end, a + _BLOCK_ROWS)
        parts = [c[a:b] for c in columns]
        block = np.stack(parts, axis=1) if len(parts) > 1 else parts[0]
        yield np.ascontiguousarray(block, dtype=block.dtype.newbyteorder("<"))


def _read_columns(path: Path, n: int, words: int) -> list[npt.NDArray[np.uint64]]:
    """The codes file (n rows of `words` little-endian uint64) as one array per word, read a
    block at a time so that loading never holds the codes twice."""
    columns = [np.empty(n, dtype=np.uint64) for _ in range(words)]
    with path.open("rb") as f:
        for a in range(0, n, _BLOCK_ROWS):
            b = min(n, a + _BLOCK_ROWS)
            block = np.fromfile(f, dtype="<u8", count=(b - a) * words)
            if len(block) != (b - a) * words:
                raise ValueError("the codes file is short")
            rows = block.reshape(b - a, words)
            for w, column in enumerate(columns):
                column[a:b] = rows[:, w]
    return columns


async def _finished(work: Awaitable[None]) -> None:
    """Await work that must not stop halfway (rows added, then counted): a cancellation
    waits for it to end before it is raised."""
    job = asyncio.ensure_future(work)
    try:
        await asyncio.shield(job)
    except asyncio.CancelledError:
        await job
        raise


async def _store_id(store: Store) -> str:
    return await store.meta.get("store_id") or ""


async def _spot_check(
    store: Store,
    ids: npt.NDArray[np.int64],
    columns: list[npt.NDArray[np.uint64]],
    int8: npt.NDArray[np.int8],
    scales: npt.NDArray[np.float32],
    turn: npt.NDArray[np.float32],
) -> bool:
    """A few rows of the cache, recomputed from the store's float32 vectors, must match."""
    if len(ids) == 0:
        return True
    rng = np.random.default_rng()
    picks = np.unique(rng.integers(0, len(ids), size=min(_SPOT_CHECKS, len(ids))))
    stored = await store.vectors.of([int(ids[i]) for i in picks])
    for i in picks:
        blob = stored.get(int(ids[i]))
        if blob is None:
            return False
        vector = from_blobs([blob], len(blob) // 4)
        if not np.array_equal(pack(vector @ turn)[0], [c[i] for c in columns]):
            return False
        if not np.array_equal(to_int8(vector, scales)[0], int8[i]):
            return False
    return True
