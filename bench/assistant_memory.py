"""The memory of other assistants (issue 49): what Hermes Agent is shown before each reply.

Recall: on LoCoMo dev, each conversation its own corpus through the real pipeline (no model:
bio.md is empty, as with a corpus not yet read), the share of category 1-4 questions whose
recall block holds the gold answer, at 2,000, 4,000 and 8,000 characters, with hybrid R@5c
of the same questions beside it. "Holds": a date answer's day (month, year) is named in the
block; any other answer's content words all appear in it (their first five letters).

Latency: `recall` through a real `biomd mcp serve` child, spoken to by the Hermes provider's
own client (biomd/integrations/hermes), as Hermes calls it before each model call: the first
call (the child's start and the embedding model's load), then p50/p95 over the questions.

    .venv/bin/python -m bench.assistant_memory --data ../shared/eval/locomo-dev.json
    .venv/bin/python -m bench.assistant_memory --data ../shared/eval/locomo-dev.json \\
        --latency-dir /tmp/scale/hard-1000000/data       # a corpus bench.scale built
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

from bench.locomo import CATEGORIES, MINILM, build_corpus, build_queries, ingest_corpus, recall
from bench.locomo_answers import content, dates
from biomd.app.assistants.recall import recall as recall_block
from biomd.app.engine import Engine
from biomd.biographer import evidence_search
from biomd.biographer.profile_text import skeleton
from biomd.integrations.hermes import Child
from biomd.settings import Settings

BUDGETS = (2000, 4000, 8000)


def holds(block: str, gold: str) -> bool:
    """Whether a block holds the gold answer (see the module's docstring)."""
    wanted = dates(gold)
    if wanted and len(content(gold)) <= 6:
        best, found = wanted[0], dates(block)
        if best.day:
            return any((w.year, w.month, w.day) == (best.year, best.month, best.day) for w in found)
        if best.month:
            return any((w.year, w.month) == (best.year, best.month) for w in found)
        return any(w.year == best.year for w in found)
    need = {w[:5] for w in content(gold)}
    have = {w[:5] for w in content(block)}
    return bool(need) and need <= have


async def recall_run(sample: dict[str, Any], settings: Settings) -> dict[str, Any]:
    corpus = build_corpus([sample])
    queries = build_queries([sample], corpus)
    answers = {str(q["question"]): str(q.get("answer", "")) for q in sample["qa"]}
    rows: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    timings = []
    async with await Engine.open(settings) as engine:
        if not (await engine.sources.stats()).documents:
            await ingest_corpus(engine, corpus, settings.data_dir.parent / "sources")
        bio = skeleton()
        for q in queries:
            gold = answers.get(q.question, "")
            if not gold:
                continue
            started = time.perf_counter()
            passages, notes = await evidence_search.gather(engine.sources.searcher, q.question)
            blocks = {b: recall_block(bio, q.question, passages, notes, b) for b in BUDGETS}
            timings.append(time.perf_counter() - started)
            hits = await engine.sources.search(q.question, 10, "hybrid")
            for name in (CATEGORIES[q.category], "overall"):
                rows[name]["R@5c"].append(recall(q, corpus, hits, 5))
                for b, block in blocks.items():
                    rows[name][str(b)].append(float(holds(block, gold)))
    return {"rows": rows, "timings": timings}


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p * (len(ordered) - 1)))]


def latency(data_dir: Path, model_path: Path | None, questions: list[str]) -> dict[str, Any]:
    """recall through a real `biomd mcp serve`, as the Hermes provider calls it."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("BIOMD_")}
    env["BIOMD_DATA_DIR"] = str(data_dir)
    env["BIOMD_EMBED_MODEL"] = MINILM
    if model_path:
        env["BIOMD_EMBED_MODEL_PATH"] = str(model_path)
    biomd = str(Path(sys.executable).with_name("biomd"))
    child = Child([biomd, "mcp", "serve"], env)
    started = time.perf_counter()
    first = child.call("recall", {"message": "what did we talk about last weekend?"}, 600)
    first_s = time.perf_counter() - started
    times, sizes = [], []
    for q in questions:
        started = time.perf_counter()
        block = child.call("recall", {"message": q, "budget": 4000}, 60)
        times.append(time.perf_counter() - started)
        sizes.append(len(block))
    child.stop()
    return {
        "first_s": first_s,
        "first_chars": len(first),
        "p50_s": statistics.median(times),
        "p95_s": percentile(times, 0.95),
        "max_s": max(times),
        "n": len(times),
        "mean_chars": statistics.mean(sizes),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--data", type=Path, required=True, help="locomo JSON (a list of samples)")
    ap.add_argument("--work", type=Path, help="keep corpora here and reuse them between runs")
    ap.add_argument(
        "--latency-dir",
        type=Path,
        action="append",
        default=[],
        help="a data folder to time recall over (default: the first conversation's)",
    )
    ap.add_argument("--questions", type=int, default=60, help="questions timed per folder")
    args = ap.parse_args()  # fmt: skip

    from tests.support.model_files import minilm_dir

    model_path = minilm_dir()
    samples = json.loads(args.data.read_text())
    work = args.work or Path(tempfile.mkdtemp(prefix="biomd-assistant-"))

    def settings_for(name: str) -> Settings:
        return Settings(
            _env_file=None,  # type: ignore[call-arg]
            data_dir=work / name / "data",
            embed_model=MINILM,
            embed_model_path=model_path,
        )

    total: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    timings: list[float] = []
    for sample in samples:
        got = asyncio.run(recall_run(sample, settings_for(sample["sample_id"])))
        timings += got["timings"]
        for name, cols in got["rows"].items():
            for col, values in cols.items():
                total[name][col] += values
    print(f"# What an assistant is shown: LoCoMo dev, {len(samples)} conversations\n")
    print("| category | questions | R@5c | holds it, 2,000 | 4,000 | 8,000 |")
    print("|---|---:|---:|---:|---:|---:|")
    order = [*CATEGORIES.values(), "overall"]
    for name in order:
        cols = total[name]
        n = len(cols["R@5c"])
        shares = " | ".join(f"{statistics.mean(cols[str(b)]):.3f}" for b in BUDGETS)
        print(f"| {name} | {n} | {statistics.mean(cols['R@5c']):.3f} | {shares} |")
    print(
        f"\nIn process (search and block): p50 {statistics.median(timings) * 1000:.0f} ms, "
        f"p95 {percentile(timings, 0.95) * 1000:.0f} ms over {len(timings)} questions."
    )
    questions = [str(q["question"]) for s in samples for q in s["qa"]][: args.questions]
    folders = args.latency_dir or [work / samples[0]["sample_id"] / "data"]
    print("\n| corpus | first call s | p50 s | p95 s | max s | calls | mean chars |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for folder in folders:
        t = latency(folder, model_path, questions)
        print(
            f"| {folder} | {t['first_s']:.1f} | {t['p50_s']:.2f} | {t['p95_s']:.2f} | "
            f"{t['max_s']:.2f} | {t['n']} | {t['mean_chars']:.0f} |"
        )


if __name__ == "__main__":
    main()
