"""Retrieval quality on LoCoMo: evidence recall of the top chunks (R@5c, R@10c, hit@5c).

Each conversation is ingested as its own corpus through the real pipeline (one chat
transcript per session), then every category 1-4 question is searched in hybrid, keyword
and vector mode. A pooled run puts all conversations in one corpus. The metric is defined
in ../shared/eval/README.md.

    .venv/bin/python -m bench.locomo --data ../shared/eval/locomo-dev.json
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import tempfile
import time
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from biomd.app.engine import Engine
from biomd.retrieval.search import MODES, Hit
from biomd.settings import Settings

CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}
MINILM = "sentence-transformers/all-MiniLM-L6-v2"
PASSAGES = "hybrid, passages"  # counted in what a hit shows: its chunk and its neighbours


@dataclass
class Turn:
    doc: str
    start: int
    end: int


@dataclass
class Corpus:
    files: dict[str, str] = field(default_factory=dict)  # file name -> text
    turns: dict[tuple[str, str], Turn] = field(default_factory=dict)  # (sample, dia_id) -> span


@dataclass
class Query:
    sample: str
    question: str
    category: int
    evidence: list[tuple[str, str]]


def session_lines(conv: dict[str, Any], number: int) -> list[tuple[str, str]]:
    """(dia_id, normalised line) for one session."""
    when = datetime.strptime(conv[f"session_{number}_date_time"], "%I:%M %p on %d %B, %Y")
    stamp = when.strftime("%Y-%m-%d %H:%M")
    out = []
    for turn in conv[f"session_{number}"]:
        line = f"[{stamp}] {turn['speaker']}: {turn['text']}"
        if turn.get("blip_caption"):
            line += f" [photo: {turn['blip_caption']}]"
        out.append((turn["dia_id"], line.replace("\n", " ")))
    return out


def build_corpus(samples: list[dict[str, Any]]) -> Corpus:
    corpus = Corpus()
    for sample in samples:
        conv, sid = sample["conversation"], sample["sample_id"]
        numbers = sorted(int(m.group(1)) for k in conv if (m := re.fullmatch(r"session_(\d+)", k)))
        for n in numbers:
            name = f"{sid} session {n:02d} ({conv['speaker_a']} and {conv['speaker_b']}).txt"
            text, pos = [], 0
            for dia_id, line in session_lines(conv, n):
                corpus.turns[(sid, dia_id)] = Turn(name, pos, pos + len(line))
                text.append(line)
                pos += len(line) + 1
            corpus.files[name] = "\n".join(text) + "\n"
    return corpus


def parse_evidence(raw: list[str]) -> list[str]:
    ids = []
    for item in raw:
        for part in re.split(r"[;,\s]+", item):
            m = re.fullmatch(r"D:?(\d+):0*(\d+)", part.strip())
            if m:
                ids.append(f"D{int(m.group(1))}:{int(m.group(2))}")
    return ids


def build_queries(samples: list[dict[str, Any]], corpus: Corpus) -> list[Query]:
    queries = []
    for sample in samples:
        sid = sample["sample_id"]
        for qa in sample["qa"]:
            if qa["category"] not in CATEGORIES:
                continue
            evidence = [(sid, e) for e in parse_evidence(qa.get("evidence", []))]
            evidence = [e for e in dict.fromkeys(evidence) if e in corpus.turns]
            if evidence:
                queries.append(Query(sid, qa["question"], qa["category"], evidence))
    return queries


def recall(query: Query, corpus: Corpus, hits: list[Hit], k: int, passages: bool = False) -> float:
    """Share of evidence turns with at least half their line inside a top-k chunk's span (the
    metric of ../shared/eval/README.md); with `passages`, inside the passage a hit is shown
    with (its chunk and, in a chat, the neighbouring messages: more text per hit)."""
    found = 0
    for key in query.evidence:
        turn = corpus.turns[key]
        need = (turn.end - turn.start) / 2
        for h in hits[:k]:
            start, end = h.span if passages else (h.start, h.end)
            if (
                h.document.rsplit("/", 1)[-1] == turn.doc
                and min(end, turn.end) - max(start, turn.start) >= need
            ):
                found += 1
                break
    return found / len(query.evidence)


def write_sources(corpus: Corpus, folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in corpus.files.items():
        (folder / name).write_text(text, encoding="utf-8")


async def ingest_corpus(engine: Engine, corpus: Corpus, folder: Path) -> None:
    await asyncio.to_thread(write_sources, corpus, folder)
    results = [r async for r in engine.sources.ingest([folder])]
    bad = [r for r in results if r.status != "added"]
    if bad:
        raise SystemExit(f"ingest failed: {bad[:3]}")
    await engine.sources.embed_pending()


@dataclass
class Scores:
    r5: list[float] = field(default_factory=list)
    r10: list[float] = field(default_factory=list)
    hit5: list[float] = field(default_factory=list)

    def add(self, r5: float, r10: float) -> None:
        self.r5.append(r5)
        self.r10.append(r10)
        self.hit5.append(1.0 if r5 > 0 else 0.0)

    def row(self) -> tuple[float, float, float, int]:
        n = len(self.r5) or 1
        return (sum(self.r5) / n, sum(self.r10) / n, sum(self.hit5) / n, len(self.r5))


async def evaluate(
    settings: Settings, corpus: Corpus, queries: list[Query], modes: list[str]
) -> dict[str, dict[str, Scores]]:
    """scores[mode][category name or 'overall']."""
    scores: dict[str, dict[str, Scores]] = {m: defaultdict(Scores) for m in modes}
    if "hybrid" in modes:
        scores[PASSAGES] = defaultdict(Scores)
    async with await Engine.open(settings) as engine:
        if not (await engine.sources.stats()).documents:
            await ingest_corpus(engine, corpus, settings.data_dir.parent / "sources")
        for q in queries:
            for mode in modes:
                hits = await engine.sources.search(q.question, 10, mode)  # type: ignore[arg-type]
                r5, r10 = recall(q, corpus, hits, 5), recall(q, corpus, hits, 10)
                scores[mode][CATEGORIES[q.category]].add(r5, r10)
                scores[mode]["overall"].add(r5, r10)
                if mode == "hybrid":  # what a reader is shown: chunks and their neighbours
                    r5, r10 = recall(q, corpus, hits, 5, True), recall(q, corpus, hits, 10, True)
                    scores[PASSAGES][CATEGORIES[q.category]].add(r5, r10)
                    scores[PASSAGES]["overall"].add(r5, r10)
    return scores


def print_table(title: str, scores: dict[str, dict[str, Scores]]) -> None:
    print(f"\n### {title}\n")
    print("| mode | category | R@5c | R@10c | hit@5c | queries |")
    print("|---|---|---:|---:|---:|---:|")
    for mode, by_cat in scores.items():
        for cat in [*CATEGORIES.values(), "overall"]:
            if cat in by_cat:
                r5, r10, h5, n = by_cat[cat].row()
                label = f"**{cat}**" if cat == "overall" else cat
                print(f"| {mode} | {label} | {r5:.3f} | {r10:.3f} | {h5:.3f} | {n} |")


def merge(into: dict[str, dict[str, Scores]], part: dict[str, dict[str, Scores]]) -> None:
    for mode, by_cat in part.items():
        for cat, s in by_cat.items():
            target = into.setdefault(mode, defaultdict(Scores))[cat]
            target.r5 += s.r5
            target.r10 += s.r10
            target.hit5 += s.hit5


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--data", type=Path, required=True, help="locomo JSON (a list of samples)")
    ap.add_argument("--model", default=MINILM, help="embedding model name")
    ap.add_argument("--model-path", type=Path, help="local model folder (default: test cache)")
    ap.add_argument("--work", type=Path, help="keep corpora here and reuse them between runs")
    ap.add_argument("--modes", default=",".join(MODES))
    ap.add_argument("--no-pooled", action="store_true", help="skip the all-in-one corpus")
    args = ap.parse_args()

    model_path = args.model_path
    if model_path is None and args.model == MINILM:
        from tests.support.model_files import minilm_dir

        model_path = minilm_dir()
    samples = json.loads(args.data.read_text())
    modes = args.modes.split(",")
    work = args.work or Path(tempfile.mkdtemp(prefix="biomd-locomo-"))

    def settings_for(name: str) -> Settings:
        return Settings(
            _env_file=None,  # type: ignore[call-arg]
            data_dir=work / name / "data",
            embed_model=args.model,
            embed_model_path=model_path,
        )

    started = time.perf_counter()
    per_conv: dict[str, dict[str, Scores]] = {}
    macro: dict[str, dict[str, Scores]] = {}
    for sample in samples:
        corpus = build_corpus([sample])
        queries = build_queries([sample], corpus)
        result = asyncio.run(evaluate(settings_for(sample["sample_id"]), corpus, queries, modes))
        per_conv[sample["sample_id"]] = result
        merge(macro, result)

    print(f"# LoCoMo retrieval, model {args.model}, {len(samples)} conversations")
    print("\n### per conversation (overall)\n")
    shown = [*modes, PASSAGES] if "hybrid" in modes else modes
    print("| conversation | " + " | ".join(f"{m} R@5c" for m in shown) + " |")
    print("|---|" + "---:|" * len(shown))
    for sid, result in per_conv.items():
        cells = " | ".join(f"{result[m]['overall'].row()[0]:.3f}" for m in shown)
        print(f"| {sid} | {cells} |")
    print_table("each conversation its own corpus (all queries together)", macro)
    if not args.no_pooled and len(samples) > 1:
        corpus = build_corpus(samples)
        queries = build_queries(samples, corpus)
        pooled = asyncio.run(evaluate(settings_for("pooled"), corpus, queries, modes))
        print_table("pooled: all conversations in one corpus", pooled)
    print(f"\n({time.perf_counter() - started:.0f} s)")


if __name__ == "__main__":
    main()
