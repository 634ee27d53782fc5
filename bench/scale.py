"""Scale: ingest throughput, search latency, memory and start-up on synthetic corpora.

For each size, a child process ingests the corpus through the real pipeline (no
embedding) and adds random unit vectors in place of model output; a second child opens the
store cold, loads what search needs, then times keyword, vector and hybrid searches
(excluding query embedding, whose cost does not depend on corpus size).

    .venv/bin/python -m bench.scale                  # 10k and 100k chunks
    .venv/bin/python -m bench.scale --sizes 10000    # one size
"""

from __future__ import annotations

import argparse
import asyncio
import json
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

from bench.synth import COMMON, chat_text, vocabulary
from core.embedding import to_blob
from core.engine import Engine
from core.settings import Settings

DIM = 384
CHARS_PER_CHUNK = 680  # measured advance per chunk of chat text (900 minus overlap)
BENCH_MODEL = "bench/random-unit-vectors"


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def settings_for(data_dir: Path) -> Settings:
    return Settings(_env_file=None, data_dir=data_dir, embed_model=BENCH_MODEL)  # type: ignore[call-arg]


def write_corpus(folder: Path, chunks: int, files: int = 8) -> int:
    """Chat transcripts holding about `chunks` chunks; returns bytes written."""
    folder.mkdir(parents=True, exist_ok=True)
    vocab = vocabulary(30_000)
    per_file = chunks * CHARS_PER_CHUNK // files
    total = 0
    for i in range(files):
        with (folder / f"chat-{i:02d}.txt").open("w", encoding="utf-8") as f:
            for piece in chat_text(per_file, vocab, seed=i):
                total += f.write(piece)
    return total


def folder_bytes(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.iterdir())


async def ingest_phase(folder: Path, data_dir: Path) -> dict[str, Any]:
    size = await asyncio.to_thread(folder_bytes, folder)
    async with await Engine.open(settings_for(data_dir)) as engine:
        started = time.perf_counter()
        results = [r async for r in engine.ingest([folder])]
        seconds = time.perf_counter() - started
        assert all(r.status == "added" for r in results), results
        stats = await engine.stats()
        rng = np.random.default_rng(0)
        await engine.store.set_meta({"embed_model": BENCH_MODEL, "embed_dim": str(DIM)})
        after = 0
        while rows := await engine.store.chunks_needing_vectors(after, 5000):
            vectors = rng.standard_normal((len(rows), DIM)).astype(np.float32)
            vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
            await engine.store.add_vectors(
                [(cid, to_blob(v)) for (cid, _, _), v in zip(rows, vectors, strict=True)]
            )
            after = rows[-1][0]
    return {
        "chunks": stats.chunks,
        "mb": size / 1e6,
        "ingest_s": seconds,
        "ingest_mb_s": size / 1e6 / seconds,
        "ingest_peak_rss_mb": peak_rss_mb(),
    }


def make_queries(rng: np.random.Generator, n: int) -> dict[str, list[str]]:
    vocab = vocabulary(30_000)
    made = vocab[len(COMMON) + 30 :]
    return {
        "rare words": [" ".join(rng.choice(made[:5000], 2)) for _ in range(n)],
        "common words": [" ".join(rng.choice(COMMON[:20], 3)) for _ in range(n)],
        "question": [
            f"when did we talk about {rng.choice(made[:2000])} and {rng.choice(COMMON)}?"
            for _ in range(n)
        ],
        "long paragraph": [" ".join(rng.choice(vocab[:3000], 120)) for _ in range(max(5, n // 4))],
    }


def percentiles(samples: list[float]) -> tuple[float, float]:
    arr = np.array(samples) * 1000
    return float(np.percentile(arr, 50)), float(np.percentile(arr, 95))


async def search_phase(data_dir: Path, queries_per_kind: int) -> dict[str, Any]:
    started = time.perf_counter()
    engine = await Engine.open(settings_for(data_dir))
    await engine.searcher.index.refresh(engine.store)
    ready_s = time.perf_counter() - started
    print("ready", flush=True)
    rng = np.random.default_rng(1)
    queries = make_queries(rng, queries_per_kind)
    out: dict[str, Any] = {"open_and_load_s": ready_s}
    try:
        for mode in ("keyword", "vector", "hybrid"):
            timings: list[float] = []
            by_kind: dict[str, tuple[float, float]] = {}
            for kind, qs in queries.items():
                kind_times = []
                for q in qs:
                    vec = rng.standard_normal(DIM).astype(np.float32)
                    vec /= np.linalg.norm(vec)
                    t = time.perf_counter()
                    await engine.searcher.search(q, 10, mode, vector=vec)  # type: ignore[arg-type]
                    kind_times.append(time.perf_counter() - t)
                timings += kind_times
                by_kind[kind] = percentiles(kind_times)
            out[mode] = {"all": percentiles(timings), "by_kind": by_kind}
    finally:
        await engine.close()
    out["search_peak_rss_mb"] = peak_rss_mb()
    return out


def run_child(*args: str) -> tuple[dict[str, Any], float]:
    """Run a phase in a fresh process; return its JSON and the seconds until it said ready."""
    started = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-m", "bench.scale", *args], stdout=subprocess.PIPE, text=True
    )
    assert proc.stdout is not None
    ready_at = 0.0
    payload: dict[str, Any] = {}
    for line in proc.stdout:
        if line.strip() == "ready":
            ready_at = time.perf_counter() - started
        elif line.startswith("{"):
            payload = json.loads(line)
    if proc.wait() != 0:
        raise SystemExit(f"child {args} failed")
    return payload, ready_at


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--sizes", default="10000,100000")
    ap.add_argument("--queries", type=int, default=40, help="queries per kind")
    ap.add_argument("--work", type=Path)
    ap.add_argument("--phase", choices=["ingest", "search"], help=argparse.SUPPRESS)
    ap.add_argument("--dir", type=Path, help=argparse.SUPPRESS)
    args = ap.parse_args()

    if args.phase == "ingest":
        print(json.dumps(asyncio.run(ingest_phase(args.dir / "sources", args.dir / "data"))))
        return
    if args.phase == "search":
        print(json.dumps(asyncio.run(search_phase(args.dir / "data", args.queries))))
        return

    work = args.work or Path(tempfile.mkdtemp(prefix="biomd-scale-"))
    rows = []
    for size in [int(s) for s in args.sizes.split(",")]:
        folder = work / str(size)
        shutil.rmtree(folder, ignore_errors=True)
        write_corpus(folder / "sources", size)
        ingest, _ = run_child("--phase", "ingest", "--dir", str(folder))
        search, ready = run_child(
            "--phase", "search", "--dir", str(folder), "--queries", str(args.queries)
        )
        rows.append((size, ingest, search, ready))
        shutil.rmtree(folder / "sources", ignore_errors=True)

    print(
        "\n| target chunks | chunks | text MB | ingest MB/s | ingest peak RSS MB |"
        " process start → ready s | open + load s | search peak RSS MB |"
    )
    print("|---:|---:|---:|---:|---:|---:|---:|---:|")
    for size, ing, se, ready in rows:
        print(
            f"| {size:,} | {ing['chunks']:,} | {ing['mb']:.1f} | {ing['ingest_mb_s']:.1f} |"
            f" {ing['ingest_peak_rss_mb']:.0f} | {ready:.2f} | {se['open_and_load_s']:.2f} |"
            f" {se['search_peak_rss_mb']:.0f} |"
        )
    print(
        "\n| chunks | mode | p50 ms | p95 ms | rare words p95 | common words p95 |"
        " question p95 | long paragraph p95 |"
    )
    print("|---:|---|---:|---:|---:|---:|---:|---:|")
    for _size, ing, se, _ in rows:
        for mode in ("keyword", "vector", "hybrid"):
            p50, p95 = se[mode]["all"]
            kinds = se[mode]["by_kind"]
            cells = " | ".join(f"{kinds[k][1]:.1f}" for k in kinds)
            print(f"| {ing['chunks']:,} | {mode} | {p50:.1f} | {p95:.1f} | {cells} |")


if __name__ == "__main__":
    main()
