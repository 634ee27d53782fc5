"""Do the reader's notes help retrieval? LoCoMo conversations are noted by a real reader model
(the notes pass, as biomd runs it), then every question is searched three ways and scored by
evidence recall (R@5c, R@10c; see bench/locomo.py):

- passages: today's hybrid search over chunks;
- notes: the chunks that the best-matching notes' quotes sit in, in the notes' order;
- fused: both lists fused by RRF, the notes' list at each of `--weights`.

The notes are kept in `--work` so that scoring again needs no model.

    .venv/bin/python -m bench.locomo_notes --data ../shared/eval/locomo-dev.json \\
        --samples conv-30 --base-url http://127.0.0.1:8080/v1 --model qwen2.5-coder-1.5b
"""

from __future__ import annotations

import argparse
import asyncio
import json
import time
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.locomo import (
    CATEGORIES,
    MINILM,
    Corpus,
    Query,
    Scores,
    build_corpus,
    build_queries,
    ingest_corpus,
    recall,
)
from biomd.app.engine import Engine
from biomd.retrieval.fusion import rrf
from biomd.retrieval.search import Hit
from biomd.settings import Settings

BASE_WAYS = ("passages", "notes")


@dataclass
class Noted:
    """What the notes pass gave one conversation."""

    notes: int
    dropped: int
    calls: int
    seconds: float
    chars: int


async def note_corpus(engine: Engine, corpus: Corpus, folder: Path) -> Noted:
    """Ingest the conversation (once) and note every part not noted yet with the reader."""
    if not (await engine.sources.stats()).documents:
        await ingest_corpus(engine, corpus, folder)
    started = time.perf_counter()
    waiting = await engine.store.reading.pending()
    report = await engine.biographer.reading.notes_pass().run(waiting)
    await engine.searcher.notes.embed_new()
    tally = await engine.store.notes.tally()
    chars = sum(len(t) for t in corpus.files.values())
    return Noted(tally.kept, tally.dropped, report.calls, time.perf_counter() - started, chars)


async def note_hits(engine: Engine, question: str, names: dict[int, str], k: int) -> list[Hit]:
    """The chunks the best notes' quotes sit in, best note first, each chunk once."""
    hits: dict[int, Hit] = {}
    for x in await engine.sources.notes(question, k * 2):
        for c in await engine.store.chunks.overlapping(x.document_id, x.start, x.end):
            if c.id not in hits:
                name = names[c.document_id]
                hits[c.id] = Hit(c.id, c.document_id, name, c.start, c.end, c.text, 0.0)
            break
        if len(hits) >= k:
            break
    return list(hits.values())


def ways(weights: list[float]) -> list[str]:
    return [*BASE_WAYS, *(f"fused {w:g}" for w in weights)]


async def score(
    engine: Engine, corpus: Corpus, queries: list[Query], weights: list[float]
) -> dict[str, dict[str, Scores]]:
    names = {d.id: d.name for d in await engine.sources.all()}
    out: dict[str, dict[str, Scores]] = {w: defaultdict(Scores) for w in ways(weights)}
    for q in queries:
        passages = await engine.sources.search(q.question, 20)
        noted = await note_hits(engine, q.question, names, 20)
        by_id = {h.chunk_id: h for h in [*passages, *noted]}
        lists = [[h.chunk_id for h in passages], [h.chunk_id for h in noted]]
        fused = [[by_id[i] for i, _ in rrf(lists, [1, w])] for w in weights]
        for way, hits in zip(ways(weights), (passages, noted, *fused), strict=True):
            r5, r10 = recall(q, corpus, hits, 5), recall(q, corpus, hits, 10)
            out[way][CATEGORIES[q.category]].add(r5, r10)
            out[way]["overall"].add(r5, r10)
    return out


def settings_for(args: argparse.Namespace, work: Path, model_path: Path | None) -> Settings:
    return Settings(
        _env_file=None,  # type: ignore[call-arg]
        data_dir=work / "data",
        embed_model=args.embed_model,
        embed_model_path=model_path,
        llm_base_url=args.base_url,
        llm_model=args.model,
        llm_api_key="none",
        llm_context_tokens=args.context,
        reader_concurrency=1,
    )


async def run_sample(
    args: argparse.Namespace, sample: dict[str, Any], model_path: Path | None
) -> tuple[Noted, dict[str, dict[str, Scores]]]:
    corpus = build_corpus([sample])
    queries = build_queries([sample], corpus)
    work = args.work / sample["sample_id"]
    owner = sample["conversation"]["speaker_a"]  # the reader notes from someone's side
    settings = settings_for(args, work, model_path).but(**{"owner_names": owner})
    async with await Engine.open(settings) as engine:
        noted = await note_corpus(engine, corpus, work / "sources")
        return noted, await score(engine, corpus, queries, args.weights)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--data", type=Path, required=True)
    ap.add_argument("--samples", default="", help="comma-separated sample ids (default: all)")
    ap.add_argument("--base-url", required=True, help="the reader's OpenAI-compatible endpoint")
    ap.add_argument("--model", required=True)
    ap.add_argument("--context", type=int, default=16384, help="the reader's window, tokens")
    ap.add_argument("--embed-model", default=MINILM)
    ap.add_argument("--work", type=Path, default=Path("/tmp/biomd-locomo-notes"))
    ap.add_argument(
        "--weights",
        type=lambda v: [float(x) for x in v.split(",")],
        default=[0.1, 0.25, 0.5, 1.0],
        help="the notes list's RRF weights to try, comma-separated",
    )
    args = ap.parse_args()
    from tests.support.model_files import minilm_dir

    model_path = minilm_dir() if args.embed_model == MINILM else None
    wanted = {s for s in args.samples.split(",") if s}
    samples = [
        s for s in json.loads(args.data.read_text()) if not wanted or s["sample_id"] in wanted
    ]
    names = ways(args.weights)
    pooled: dict[str, dict[str, Scores]] = {w: defaultdict(Scores) for w in names}
    print(f"# Reader's notes as retrieval keys: reader {args.model}\n")
    print(
        "| conversation | chars | notes kept | dropped | calls | noting time | "
        + " | ".join(f"{w} R@5c" for w in names)
        + " |"
    )
    print("|---|---:|---:|---:|---:|---:|" + "---:|" * len(names))
    for sample in samples:
        noted, scores = asyncio.run(run_sample(args, sample, model_path))
        for way in names:
            for cat, s in scores[way].items():
                target = pooled[way][cat]
                target.r5 += s.r5
                target.r10 += s.r10
                target.hit5 += s.hit5
        cells = " | ".join(f"{scores[w]['overall'].row()[0]:.3f}" for w in names)
        print(
            f"| {sample['sample_id']} | {noted.chars:,} | {noted.notes} | {noted.dropped} | "
            f"{noted.calls} | {noted.seconds:.0f} s | {cells} |",
            flush=True,
        )
    print("\n| way | category | R@5c | R@10c | hit@5c | queries |")
    print("|---|---|---:|---:|---:|---:|")
    for way in names:
        for cat in [*CATEGORIES.values(), "overall"]:
            if cat in pooled[way]:
                r5, r10, h5, n = pooled[way][cat].row()
                print(f"| {way} | {cat} | {r5:.3f} | {r10:.3f} | {h5:.3f} | {n} |")


if __name__ == "__main__":
    main()
