"""The compact vector index: agreement with exact search, and its cache file, which is
reused only while it agrees with the store."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from bench.synth import paraphrases, structured_vectors
from biomd.retrieval.binary_codes import closest, hamming, pack
from biomd.retrieval.embedding import to_blob
from biomd.retrieval.vector_index import Loading, VectorIndex
from biomd.storage.chunks import ChunkRow
from biomd.storage.store import Store


def unit(rows: np.ndarray) -> np.ndarray:
    return (rows / np.linalg.norm(rows, axis=1, keepdims=True)).astype(np.float32)


async def store_with_vectors(path: Path, vectors: np.ndarray) -> Store:
    store = await Store.open(path / "db.sqlite3")
    doc = await store.documents.add(
        sha256="a" * 64, name="x", kind="text", mime=None, size=1, raw_path=""
    )
    await store.chunks.add(doc, [ChunkRow(i, i, i + 1, "x") for i in range(len(vectors))])
    await store.documents.finish(
        doc, text_length=len(vectors), n_chunks=len(vectors), content_start=None, content_end=None
    )
    await store.vectors.add([(i + 1, to_blob(v)) for i, v in enumerate(vectors)])
    return store


def test_hamming_counts_differing_sign_bits() -> None:
    a = np.array([[1, -1, 1, -1] * 96], dtype=np.float32)
    b = a.copy()
    b[0, :5] *= -1
    codes = pack(np.vstack([a, b]))
    columns = [np.ascontiguousarray(codes[:, w]) for w in range(codes.shape[1])]
    assert hamming(columns, pack(a)[0]).tolist() == [0, 5]
    assert closest(np.array([5, 1, 3, 1], dtype=np.uint16), 2).tolist() == [1, 3]


@pytest.mark.slow
async def test_the_shortlist_agrees_with_exact_search(tmp_path: Path) -> None:
    rng = np.random.default_rng(1)
    vectors = structured_vectors(rng, 6000)
    store = await store_with_vectors(tmp_path, vectors)
    index = VectorIndex(tmp_path / "cache", candidates=600)  # forces the Hamming pass
    await index.refresh(store)
    recalls = []
    for q in paraphrases(rng, vectors, 30):
        exact = set((np.argsort(-(vectors @ q))[:10] + 1).tolist())
        shortlist = index.shortlist(q, 60)
        found = sorted(shortlist, key=lambda cid: -float(vectors[cid - 1] @ q))[:10]
        recalls.append(len(exact & set(found)) / 10)
    assert np.mean(recalls) >= 0.99
    await store.close()


@pytest.mark.slow
async def test_the_cache_is_reused_when_it_agrees_and_rebuilt_when_it_does_not(
    tmp_path: Path,
) -> None:
    rng = np.random.default_rng(2)
    vectors = unit(rng.standard_normal((1500, 384)))
    store = await store_with_vectors(tmp_path, vectors)
    first = VectorIndex(tmp_path / "cache")
    await first.refresh(store)
    files = sorted(p.name for p in (tmp_path / "cache").iterdir())
    assert files == ["lock", "vectors.codes", "vectors.ids", "vectors.int8", "vectors.json"]

    second = VectorIndex(tmp_path / "cache")
    await second.refresh(store)
    assert second._cache_ok and len(second) == 1500
    q = vectors[7]
    assert second.shortlist(q, 5)[0] == first.shortlist(q, 5)[0] == 8

    # New vectors are appended to the cache; a later open still agrees.
    doc = await store.documents.add(
        sha256="b" * 64, name="y", kind="text", mime=None, size=1, raw_path=""
    )
    await store.chunks.add(doc, [ChunkRow(0, 0, 1, "y")])
    await store.vectors.add([(1501, to_blob(unit(rng.standard_normal((1, 384)))[0]))])
    await second.refresh(store)
    third = VectorIndex(tmp_path / "cache")
    await third.refresh(store)
    assert third._cache_ok and len(third) == 1501

    # A cache that no longer matches the store's vectors is not trusted.
    int8 = tmp_path / "cache" / "vectors.int8"
    int8.write_bytes(bytes(len(int8.read_bytes())))
    fourth = VectorIndex(tmp_path / "cache")
    await fourth.refresh(store)
    assert len(fourth) == 1501 and fourth.shortlist(vectors[7], 1) == [8]
    await store.close()


@pytest.mark.slow
async def test_a_long_build_of_codes_is_reported_as_it_goes_and_a_short_one_is_not(
    tmp_path: Path,
) -> None:
    rng = np.random.default_rng(3)
    store = await store_with_vectors(tmp_path, unit(rng.standard_normal((41_000, 384))))
    index = VectorIndex(tmp_path / "cache", shown_from=40_000)
    heard: list[Loading] = []
    watched: list[Loading | None] = []

    async def tell(loading: Loading) -> None:
        heard.append(loading)
        watched.append(index.loading)

    await index.refresh(store, tell)
    assert [(h.done, h.total) for h in heard] == [
        (0, 41_000),
        (20_000, 41_000),
        (40_000, 41_000),
        (41_000, 41_000),
        (41_000, 41_000),
    ]
    assert [h.ended is None for h in heard] == [True, True, True, True, False]
    assert watched[:-1] == heard[:-1], "others can watch it while it goes"
    assert index.loading is None and index.last_load == heard[-1]
    assert heard[-1].left_s == 0.0 and heard[1].left_s is not None and heard[0].left_s is None

    doc = await store.documents.add(
        sha256="b" * 64, name="y", kind="text", mime=None, size=1, raw_path=""
    )
    await store.chunks.add(doc, [ChunkRow(0, 0, 1, "y")])
    await store.vectors.add([(41_001, to_blob(unit(rng.standard_normal((1, 384)))[0]))])
    heard.clear()
    await index.refresh(store, tell)
    assert heard == [] and len(index) == 41_001, "a few new vectors are no news"
    await store.close()
