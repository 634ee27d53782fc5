"""Scale: ingest throughput, search latency, recall, memory and start-up at 10k, 100k and 1M
chunks, with vector search compared side by side against exact numpy float32 brute force
and sqlite-vec.

Each phase runs in a fresh process so that its peak RSS is its own:
- build: synthetic chat transcripts through the real ingest pipeline (no embedding), then
  structured random vectors in place of model output (bench/synth.py);
- exact: all float32 vectors in RAM, brute-force top 10 for every query (the reference);
- search: cold start (open the store, load and verify the vector cache) and latencies of
  keyword, vector and hybrid search, excluding query embedding; recall@10 of vector search
  against the exact reference;
- sqlitevec: the same vectors in a sqlite-vec vec0 table, KNN latency.

The hard sets (bench/hard.py, `--sets hard`) are what real use looks like: a 60,000-word
vocabulary with near-duplicate lines, vectors mixed from real MiniLM embeddings, short
queries full of common words, each timed end to end through `biomd search -` with the
query embedded by the model (timed apart), and "ready" as the time to the first answer.
The first sets (`--sets old`) stay, so that the history stays comparable.

    .venv/bin/python -m bench.scale                          # both sets: 10k, 100k and 1M
    .venv/bin/python -m bench.scale --sizes 10000 --work /tmp/s   # one size, kept for reuse
    .venv/bin/python -m bench.scale --sets hard --sizes 1000000
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

from bench import hard as hardset
from bench.synth import COMMON, chat_text, paraphrases, structured_vectors, vocabulary
from biomd.app.engine import Engine
from biomd.retrieval.embedding import to_blob
from biomd.settings import Settings
from tests.support.db import rows as db_rows

DIM = 384
CHARS_PER_CHUNK = 680
BENCH_MODEL = "bench/structured-vectors"
QUERIES = 60


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def settings_for(data_dir: Path, model: str = BENCH_MODEL) -> Settings:
    return Settings(_env_file=None, data_dir=data_dir, embed_model=model)  # type: ignore[call-arg]


def vectors_for(n: int) -> np.ndarray:
    return structured_vectors(np.random.default_rng(7), n)


def query_vectors(vectors: np.ndarray) -> np.ndarray:
    return paraphrases(np.random.default_rng(8), vectors, QUERIES)


def write_corpus(folder: Path, chunks: int, files: int = 8) -> int:
    folder.mkdir(parents=True, exist_ok=True)
    vocab = vocabulary(30_000)
    per_file = chunks * CHARS_PER_CHUNK // files
    total = 0
    for i in range(files):
        with (folder / f"chat-{i:02d}.txt").open("w", encoding="utf-8") as f:
            for piece in chat_text(per_file, vocab, seed=i):
                total += f.write(piece)
    return total


# -- phases ---------------------------------------------------------------------------------


async def build(folder: Path, hard: bool = False) -> dict[str, Any]:
    sources, data = folder / "sources", folder / "data"
    size = sum(p.stat().st_size for p in sources.iterdir())
    async with await Engine.open(settings_for(data)) as engine:
        started = time.perf_counter()
        results = [r async for r in engine.sources.ingest([sources])]
        seconds = time.perf_counter() - started
        assert all(r.status == "added" for r in results), results
        chunks = (await engine.sources.stats()).chunks
        ingest_rss = peak_rss_mb()
        if hard:
            await engine.store.meta.set({"embed_model": hardset.MINILM_NAME, "embed_dim": str(DIM)})
            base = hardset.turn_embeddings(folder.parent / "locomo-turns.npy")
            vectors = hardset.mixtures(np.random.default_rng(9), base, chunks)
        else:
            await engine.store.meta.set({"embed_model": BENCH_MODEL, "embed_dim": str(DIM)})
            vectors = vectors_for(chunks)
            np.save(folder / "queries.npy", query_vectors(vectors))
        after, i = 0, 0
        while rows := await engine.store.vectors.missing_after(after, 20_000):
            block = vectors[i : i + len(rows)]
            await engine.store.vectors.add(
                [(r.chunk_id, to_blob(v)) for r, v in zip(rows, block, strict=True)]
            )
            after, i = rows[-1].chunk_id, i + len(rows)
    return {
        "chunks": chunks,
        "mb": size / 1e6,
        "ingest_mb_s": size / 1e6 / seconds,
        "ingest_rss_mb": ingest_rss,
    }


async def all_vectors(folder: Path, model: str = BENCH_MODEL) -> tuple[np.ndarray, np.ndarray]:
    """(chunk ids, float32 matrix) of every stored vector."""
    settings = settings_for(folder / "data", model)
    async with await Engine.open(settings):  # migrated and settled first
        pass
    rows = db_rows(settings.db_path, "SELECT chunk_id, vector FROM vectors ORDER BY chunk_id")
    ids = np.array([r[0] for r in rows], dtype=np.int64)
    matrix = np.frombuffer(b"".join(bytes(r[1]) for r in rows), dtype="<f4").reshape(-1, DIM)
    return ids, matrix


async def exact_hard(folder: Path) -> dict[str, Any]:
    """The hard reference: every query of every set embedded by the model, exact top 10."""
    ids, matrix = await all_vectors(folder, hardset.MINILM_NAME)
    sets = json.loads((folder / "hard-queries.json").read_text())
    questions = [q for qs in sets.values() for q in qs]
    out = hardset.exact(matrix, ids, questions)
    times = []
    for q in matrix[:20]:  # brute force costs the same whatever the query
        t = time.perf_counter()
        np.argpartition(-(matrix @ q), 9)[:10]
        times.append(time.perf_counter() - t)
    (folder / "hard-exact.json").write_text(json.dumps(out["refs"]))
    return {
        "embed_ms": _pct(out["embed_ms"]),
        "bruteforce_ms": _pct(times),
        "bruteforce_rss_mb": peak_rss_mb(),
    }


async def exact(folder: Path) -> dict[str, Any]:
    """The reference: every float32 vector in RAM and a brute-force scan per query."""
    ids, matrix = await all_vectors(folder)
    queries = np.load(folder / "queries.npy")
    top, times = [], []
    for q in queries:
        t = time.perf_counter()
        scores = matrix @ q
        best = np.argpartition(-scores, 9)[:10]
        times.append(time.perf_counter() - t)
        top.append([int(ids[i]) for i in best[np.argsort(-scores[best])]])
    (folder / "exact.json").write_text(json.dumps(top))
    return {"bruteforce_ms": _pct(times), "bruteforce_rss_mb": peak_rss_mb()}


async def search(folder: Path) -> dict[str, Any]:
    started = time.perf_counter()
    engine = await Engine.open(settings_for(folder / "data"))
    await engine.searcher.index.refresh(engine.store)
    ready = time.perf_counter() - started
    print("ready", flush=True)
    out: dict[str, Any] = {
        "open_and_load_s": ready,
        "cache_reused": engine.searcher.index._cache_ok,
    }
    rng = np.random.default_rng(1)
    vectors = np.load(folder / "queries.npy")
    texts = _keyword_queries(rng)
    try:
        reference = json.loads((folder / "exact.json").read_text())
        recalls, vtimes = [], []
        for q, ref in zip(vectors, reference, strict=True):
            t = time.perf_counter()
            hits = await engine.searcher.vector_ids("", 10, q)
            vtimes.append(time.perf_counter() - t)
            recalls.append(len({h for h, _ in hits} & set(ref)) / 10)
        out["recall_at_10"] = float(np.mean(recalls))
        out["vector_ms"] = _pct(vtimes)
        for mode in ("keyword", "hybrid"):
            by_kind: dict[str, Any] = {}
            everything: list[float] = []
            for kind, qs in texts.items():
                times = []
                for i, text in enumerate(qs):
                    t = time.perf_counter()
                    await engine.searcher.ranked_ids(text, 10, mode, vectors[i % len(vectors)])  # type: ignore[arg-type]
                    times.append(time.perf_counter() - t)
                by_kind[kind] = _pct(times)
                everything += times
            out[mode] = {"all": _pct(everything), "by_kind": by_kind}
    finally:
        await engine.close()
    out["search_rss_mb"] = peak_rss_mb()
    return out


def sqlitevec(folder: Path, n: int) -> dict[str, Any]:
    """sqlite-vec's vec0 (brute-force KNN in C) on the same vectors."""
    import apsw
    import sqlite_vec

    db = apsw.Connection(str(folder / "vec.sqlite3"))
    db.enable_load_extension(True)
    db.load_extension(sqlite_vec.loadable_path())
    vectors = vectors_for(n)
    fresh = not list(db.execute("SELECT name FROM sqlite_master WHERE name = 'v'"))
    if fresh:
        db.execute(f"CREATE VIRTUAL TABLE v USING vec0(embedding float[{DIM}])")
        with db:
            db.executemany(
                "INSERT INTO v(rowid, embedding) VALUES (?, ?)",
                ((i + 1, vectors[i].tobytes()) for i in range(n)),
            )
    times = []
    for q in np.load(folder / "queries.npy"):
        t = time.perf_counter()
        list(
            db.execute(
                "SELECT rowid, distance FROM v WHERE embedding MATCH ? ORDER BY distance LIMIT 10",
                (q.tobytes(),),
            )
        )
        times.append(time.perf_counter() - t)
    return {"sqlitevec_ms": _pct(times), "sqlitevec_rss_mb": peak_rss_mb()}


def _keyword_queries(rng: np.random.Generator) -> dict[str, list[str]]:
    vocab = vocabulary(30_000)
    made = vocab[len(COMMON) + 30 :]
    return {
        "rare words": [" ".join(rng.choice(made[:5000], 2)) for _ in range(30)],
        "common words": [" ".join(rng.choice(COMMON[:20], 3)) for _ in range(30)],
        "question": [
            f"when did we talk about {rng.choice(made[:2000])} and {rng.choice(COMMON)}?"
            for _ in range(30)
        ],
        "long paragraph": [" ".join(rng.choice(vocab[:3000], 120)) for _ in range(15)],
    }


def _pct(samples: list[float]) -> list[float]:
    arr = np.array(samples) * 1000
    return [float(np.percentile(arr, 50)), float(np.percentile(arr, 95))]


# -- orchestration ----------------------------------------------------------------------------


def child(*args: str) -> tuple[dict[str, Any], float]:
    """Run a phase in a fresh process; (its JSON, seconds from launch until it said ready)."""
    started = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-m", "bench.scale", *args], stdout=subprocess.PIPE, text=True
    )
    assert proc.stdout is not None
    ready, payload = 0.0, {}
    for line in proc.stdout:
        if line.strip() == "ready":
            ready = time.perf_counter() - started
        elif line.startswith("{"):
            payload = json.loads(line)
    if proc.wait() != 0:
        raise SystemExit(f"phase {args} failed")
    return payload, ready


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--sizes", default="10000,100000,1000000")
    ap.add_argument("--work", type=Path, help="keep corpora here and reuse them")
    ap.add_argument("--no-sqlite-vec", action="store_true")
    ap.add_argument("--sets", default="old,hard", help="old (the first sets), hard, or both")
    ap.add_argument("--phase", help=argparse.SUPPRESS)
    ap.add_argument("--dir", type=Path, help=argparse.SUPPRESS)
    ap.add_argument("--n", type=int, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.phase:
        if args.phase == "sqlitevec":
            result = sqlitevec(args.dir, args.n)
        else:
            phases = {
                "build": build,
                "build-hard": lambda d: build(d, hard=True),
                "exact": exact,
                "exact-hard": exact_hard,
                "search": search,
            }
            result = asyncio.run(phases[args.phase](args.dir))
        print(json.dumps(result))
        return

    work = args.work or Path(tempfile.mkdtemp(prefix="biomd-scale-"))
    sizes = [int(s) for s in args.sizes.split(",")]
    sets = args.sets.split(",")
    if "hard" in sets:
        report_hard([run_hard(work / f"hard-{size}", size) for size in sizes])
    if "old" in sets:
        run_old(work, sizes, args.no_sqlite_vec)


def run_hard(folder: Path, size: int) -> dict[str, Any]:
    if not (folder / "built.json").exists():
        shutil.rmtree(folder, ignore_errors=True)
        hardset.write_corpus(folder / "sources", size, CHARS_PER_CHUNK)
        built, _ = child("--phase", "build-hard", "--dir", str(folder))
        (folder / "built.json").write_text(json.dumps(built))
        shutil.rmtree(folder / "sources", ignore_errors=True)
    built = json.loads((folder / "built.json").read_text())
    queries = hardset.query_sets(np.random.default_rng(11))  # the same each time
    (folder / "hard-queries.json").write_text(json.dumps(queries))
    reference, _ = child("--phase", "exact-hard", "--dir", str(folder))
    data = folder / "data"
    first = hardset.run_mode(data, "vector", {})  # builds the vector cache if it must
    modes = {
        "keyword": hardset.run_mode(data, "keyword", queries),
        "hybrid": hardset.run_mode(data, "hybrid", queries),
        "vector": hardset.run_mode(data, "vector", queries),
    }
    refs = json.loads((folder / "hard-exact.json").read_text())
    answers = [h for name in queries for h in modes["vector"]["sets"][name]["hits"]]
    recalls = np.array([hardset.recall(hits, ref) for hits, ref in zip(answers, refs, strict=True)])
    by_set, at = {}, 0
    for name, qs in queries.items():  # recall of each set too: short queries are the hard ones
        by_set[name] = float(recalls[at : at + len(qs), 0].mean())
        at += len(qs)
    print(f"done hard {size}", file=sys.stderr, flush=True)
    return {
        "built": built,
        "reference": reference,
        "first_ready_s": first["ready_s"],
        "modes": {
            m: {k: v for k, v in r.items() if k != "sets"}
            | {
                "sets": {n: _pct([t / 1000 for t in x["ms"]]) for n, x in r["sets"].items()},
                "all": _pct([t / 1000 for x in r["sets"].values() for t in x["ms"]]),
            }
            for m, r in modes.items()
        },
        "recall_strict": float(recalls[:, 0].mean()),
        "recall_ties": float(recalls[:, 1].mean()),
        "recall_by_set": by_set,
    }


def report_hard(rows: list[dict[str, Any]]) -> None:
    print("\nHard sets, each query timed end to end through `biomd search -`:")
    print(
        "\n| chunks | text MB | ingest MB/s | first start s (builds cache) | ready s, hybrid"
        " (model load included) | query embedding p50 / p95 ms | search peak RSS MB (hybrid) |"
    )
    print("|---:|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        b, h = r["built"], r["modes"]["hybrid"]
        emb = r["reference"]["embed_ms"]
        print(
            f"| {b['chunks']:,} | {b['mb']:.0f} | {b['ingest_mb_s']:.1f} | {r['first_ready_s']:.2f}"
            f" | {h['ready_s']:.2f} | {emb[0]:.1f} / {emb[1]:.1f} | {h['peak_rss_mb']:.0f} |"
        )
    names = list(rows[0]["modes"]["keyword"]["sets"])
    print(
        "\n| chunks | mode | all p50 / p95 ms | "
        + " | ".join(f"{n} p50 / p95" for n in names)
        + " |"
    )
    print("|---:|---|---:|" + "---:|" * len(names))
    for r in rows:
        for mode, m in r["modes"].items():
            cells = " | ".join(
                f"{m['sets'][n][0]:.1f} / {m['sets'][n][1]:.1f}" if n in m["sets"] else ""
                for n in names
            )
            every = f"{m['all'][0]:.1f} / {m['all'][1]:.1f}"
            print(f"| {r['built']['chunks']:,} | {mode} | {every} | {cells} |")
    print(
        "\n| chunks | recall@10 strict | recall@10 with ties (1e-4) | vector p50 / p95 ms"
        " (embedding included) | float32 brute force p50 ms (embedding excluded, RSS MB) |"
    )
    print("|---:|---:|---:|---:|---:|")
    for r in rows:
        v, ref = r["modes"]["vector"]["all"], r["reference"]
        print(
            f"| {r['built']['chunks']:,} | {r['recall_strict']:.3f} | {r['recall_ties']:.3f} |"
            f" {v[0]:.1f} / {v[1]:.1f} | {ref['bruteforce_ms'][0]:.1f}"
            f" ({ref['bruteforce_rss_mb']:.0f}) |"
        )
    print("\nrecall@10 (strict) of each query set:")
    for r in rows:
        sets = ", ".join(f"{n} {x:.3f}" for n, x in r.get("recall_by_set", {}).items())
        print(f"- {r['built']['chunks']:,} chunks: {sets}")


def run_old(work: Path, sizes: list[int], no_sqlite_vec: bool) -> None:
    rows = []
    for size in sizes:
        folder = work / str(size)
        if not (folder / "built.json").exists():
            shutil.rmtree(folder, ignore_errors=True)
            write_corpus(folder / "sources", size)
            built, _ = child("--phase", "build", "--dir", str(folder))
            (folder / "built.json").write_text(json.dumps(built))
            shutil.rmtree(folder / "sources", ignore_errors=True)
        built = json.loads((folder / "built.json").read_text())
        reference, _ = child("--phase", "exact", "--dir", str(folder))
        first, first_ready = child("--phase", "search", "--dir", str(folder))  # builds the cache
        warm, warm_ready = child("--phase", "search", "--dir", str(folder))  # reuses it
        vec = (
            {}
            if no_sqlite_vec
            else child("--phase", "sqlitevec", "--dir", str(folder), "--n", str(built["chunks"]))[0]
        )
        rows.append((built, reference, first, first_ready, warm, warm_ready, vec))
        print(f"done {size}", file=sys.stderr, flush=True)
    report(rows)


def report(rows: list[Any]) -> None:
    print(
        "\n| chunks | text MB | ingest MB/s | ingest peak RSS MB | first start s (builds cache)"
        " | start → ready s | search peak RSS MB |"
    )
    print("|---:|---:|---:|---:|---:|---:|---:|")
    for b, _, _first, first_ready, warm, warm_ready, _ in rows:
        print(
            f"| {b['chunks']:,} | {b['mb']:.0f} | {b['ingest_mb_s']:.1f} | {b['ingest_rss_mb']:.0f}"
            f" | {first_ready:.1f} | {warm_ready:.2f} (cache reused: {warm['cache_reused']})"
            f" | {warm['search_rss_mb']:.0f} |"
        )
    print(
        "\n| chunks | vector p50 / p95 ms | recall@10 | numpy float32 brute force p50 ms (RSS MB)"
        " | sqlite-vec p50 ms (RSS MB) | ours vs brute force | ours vs sqlite-vec |"
    )
    print("|---:|---:|---:|---:|---:|---:|---:|")
    for b, ref, _, _, warm, _, vec in rows:
        ours = warm["vector_ms"][0]
        bf = ref["bruteforce_ms"][0]
        sv = vec.get("sqlitevec_ms", [float("nan")])[0]
        print(
            f"| {b['chunks']:,} | {warm['vector_ms'][0]:.1f} / {warm['vector_ms'][1]:.1f} |"
            f" {warm['recall_at_10']:.3f} | {bf:.1f} ({ref['bruteforce_rss_mb']:.0f}) |"
            f" {sv:.1f} ({vec.get('sqlitevec_rss_mb', float('nan')):.0f}) |"
            f" {bf / ours:.1f}× faster | {sv / ours:.1f}× faster |"
        )
    print(
        "\n| chunks | mode | p50 ms | p95 ms | rare words p95 | common words p95 | question p95 |"
        " long paragraph p95 |"
    )
    print("|---:|---|---:|---:|---:|---:|---:|---:|")
    for b, _, _, _, warm, _, _ in rows:
        for mode in ("keyword", "hybrid"):
            p50, p95 = warm[mode]["all"]
            kinds = warm[mode]["by_kind"]
            cells = " | ".join(f"{kinds[k][1]:.1f}" for k in kinds)
            print(f"| {b['chunks']:,} | {mode} | {p50:.1f} | {p95:.1f} | {cells} |")


if __name__ == "__main__":
    main()
