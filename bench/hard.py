"""The hard sets of bench/scale.py: inputs as hard as real use, timed as a user gets them.

- Text: chat lines over a 60,000-word Zipf vocabulary, a quarter of them near-duplicates
  of stock lines ("ok see you tomorrow love"), as real chats are.
- Vectors: each a normalised mix of two real MiniLM embeddings of LoCoMo conversation
  turns plus noise, so every vector has many close neighbours. With less noise (0.02 a
  dimension) the old index found 0.995 of the true top 10, kinder than the 0.961 measured
  on another such set; with 0.05 it found 0.980, so 0.05 it is.
- Queries: short ones dominated by common words, 1-5 words mixing common and rare ones,
  LoCoMo's own natural-language questions, and (issue 37) 1-5 of the corpus's most common
  content words alone: each in 9-37% of the chunks, so that a pair or three of them match
  few chunks together, and every one of a hundred words is met for the first time.
- Timing: one `biomd search - --json` process per mode, fed one query at a time and timed
  from outside it; query embedding is timed apart, with the same model. "Ready" is the time
  from launching the process to its first answer, model load included.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from bench.synth import COMMON, GLUE, chat_text, vocabulary
from biomd.retrieval.embedding import FastEmbedder
from tests.support.model_files import MINILM_NAME, minilm_dir

VOCAB = 60_000
REPEATS = 0.25
LOCOMO = Path(__file__).resolve().parent.parent.parent / "shared" / "eval" / "locomo-dev.json"
QUERIES = 60
COMMON_QUERIES = 120  # short common-word queries weigh twice: the independent run's kind
TOP_WORDS = 100  # the most common content words, in 115k-470k of 1.27M chunks
TOP_QUERIES = 40  # of each length: one word, two, three to five
TIE = 1e-4
NOISE = float(os.environ.get("BIOMD_BENCH_NOISE", "0.05"))  # per dimension: 0.02 left
# sign-bit candidates kinder than a measured 0.961


def write_corpus(folder: Path, chunks: int, chars_per_chunk: int, files: int = 8) -> int:
    folder.mkdir(parents=True, exist_ok=True)
    vocab = vocabulary(VOCAB)
    per_file = chunks * chars_per_chunk // files
    total = 0
    for i in range(files):
        with (folder / f"chat-{i:02d}.txt").open("w", encoding="utf-8") as f:
            for piece in chat_text(per_file, vocab, seed=100 + i, repeats=REPEATS):
                total += f.write(piece)
    return total


def locomo(path: Path = LOCOMO) -> tuple[list[str], list[str]]:
    """(every conversation turn's text, every question) of the LoCoMo dev split."""
    samples = json.loads(path.read_text())
    turns, questions = [], []
    for sample in samples:
        for key, value in sample["conversation"].items():
            if key.startswith("session_") and isinstance(value, list):
                turns += [t["text"] for t in value if t.get("text")]
        questions += [qa["question"] for qa in sample["qa"]]
    return turns, list(dict.fromkeys(questions))


def embedder() -> FastEmbedder:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    return FastEmbedder(MINILM_NAME, model_path=minilm_dir())


def turn_embeddings(cache: Path) -> np.ndarray:
    """MiniLM embeddings of every LoCoMo turn, computed once and kept in `cache`."""
    if cache.is_file():
        return np.load(cache)
    turns, _ = locomo()
    vectors = embedder().embed_passages(turns)
    np.save(cache, vectors)
    return vectors


def mixtures(rng: np.random.Generator, base: np.ndarray, n: int) -> np.ndarray:
    """`n` unit vectors, each a mix of two real embeddings plus a little noise."""
    out = np.empty((n, base.shape[1]), dtype=np.float32)
    for start in range(0, n, 100_000):
        k = min(100_000, n - start)
        a = rng.uniform(0.3, 0.7, (k, 1)).astype(np.float32)
        mixed = (
            a * base[rng.integers(0, len(base), k)] + (1 - a) * base[rng.integers(0, len(base), k)]
        )
        mixed += rng.normal(0, NOISE, mixed.shape).astype(np.float32)
        out[start : start + k] = mixed / np.linalg.norm(mixed, axis=1, keepdims=True)
    return out


def query_sets(rng: np.random.Generator) -> dict[str, list[str]]:
    """The hard query sets: text, as a person or the biographer would type it."""
    vocab = vocabulary(VOCAB)
    content = vocab[len(GLUE) :]
    common, rare = content[:300], content[300:20_000]
    top = COMMON[:30]

    def mixed() -> str:
        n = int(rng.integers(1, 6))
        return " ".join(
            str(rng.choice(common)) if rng.random() < 0.6 else str(rng.choice(rare))
            for _ in range(n)
        )

    templates = [
        "what did I do last {}",
        "when did we {} {}",
        "{} {}",
        "how was the {} with {}",
        "what happened at {} {}",
        "{} and {} {}",
    ]

    def common_question() -> str:
        t = templates[int(rng.integers(0, len(templates)))]
        return t.format(*(str(rng.choice(top)) for _ in range(t.count("{}"))))

    _, questions = locomo()
    picked = rng.choice(len(questions), QUERIES, replace=False)
    sets = {
        "common-word questions": [common_question() for _ in range(COMMON_QUERIES)],
        "1-5 words, common and rare": [mixed() for _ in range(QUERIES)],
        "natural questions": [questions[int(i)] for i in picked],
    }
    return sets | {"top words": top_words(rng, content[:TOP_WORDS])}


def top_words(rng: np.random.Generator, top: list[str]) -> list[str]:
    """The independent run's queries (issue 37): 1-5 of the commonest content words and
    nothing else, in a random order, so that no two queries share their first word's
    counting. One word, pairs, and three to five, TOP_QUERIES of each."""
    lengths = [1] * TOP_QUERIES + [2] * TOP_QUERIES + list(rng.integers(3, 6, TOP_QUERIES))
    queries = [" ".join(rng.choice(top, int(n), replace=False)) for n in lengths]
    return [queries[int(i)] for i in rng.permutation(len(queries))]


def exact(matrix: np.ndarray, ids: np.ndarray, questions: list[str]) -> dict[str, Any]:
    """Exact float32 top 10 of every question (embedded as biomd embeds a query), and how
    long embedding a query takes."""
    model = embedder()
    model.embed_query("warm up")
    refs, times = [], []
    for text in questions:
        t = time.perf_counter()
        q = model.embed_query(text)
        times.append(time.perf_counter() - t)
        scores = matrix @ q
        best = np.argpartition(-scores, 9)[:10]
        best = best[np.argsort(-scores[best])]
        refs.append({"ids": [int(ids[i]) for i in best], "tenth": float(scores[best[-1]])})
    return {"refs": refs, "embed_ms": times}


def recall(hits: list[dict[str, Any]], ref: dict[str, Any]) -> tuple[float, float]:
    """(strict, tie-aware) recall@10: the tie-aware one also counts a hit whose exact score
    is within 1e-4 of the 10th best, so a near-tie swapped in is not a miss."""
    got = hits[:10]
    strict = len({h["chunk_id"] for h in got} & set(ref["ids"])) / 10
    tied = sum(1 for h in got if h["chunk_id"] in ref["ids"] or h["score"] >= ref["tenth"] - TIE)
    return strict, min(tied, 10) / 10


class SearchProcess:
    """One `biomd search - --json` process over a data dir, fed a query at a time."""

    def __init__(self, data: Path, mode: str) -> None:
        env = {k: v for k, v in os.environ.items() if not k.startswith("BIOMD_")}
        env |= {
            "BIOMD_DATA_DIR": str(data),
            "BIOMD_EMBED_MODEL": MINILM_NAME,
            "BIOMD_EMBED_MODEL_PATH": str(minilm_dir()),
            "HF_HUB_OFFLINE": "1",
        }
        biomd = str(Path(sys.executable).with_name("biomd"))
        self.launched = time.perf_counter()
        self.proc = subprocess.Popen(
            [biomd, "search", "-", "--json", "--mode", mode, "--limit", "10"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env=env,
        )

    def ask(self, query: str) -> tuple[dict[str, Any], float]:
        """The answer to one query, and the seconds it took, timed from outside."""
        assert self.proc.stdin is not None and self.proc.stdout is not None
        t = time.perf_counter()
        self.proc.stdin.write(" ".join(query.split()) + "\n")
        self.proc.stdin.flush()
        while line := self.proc.stdout.readline():
            if line.startswith("{"):
                return json.loads(line), time.perf_counter() - t
        raise SystemExit(f"biomd search exited with {self.proc.wait()}")

    def peak_rss_mb(self) -> float:
        for line in Path(f"/proc/{self.proc.pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
        return 0.0

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        self.proc.wait()


def run_mode(data: Path, mode: str, sets: dict[str, list[str]]) -> dict[str, Any]:
    """Latencies of every set through one process; the first query (not in any set) gives
    the time to ready."""
    proc = SearchProcess(data, mode)
    _, first = proc.ask("what did we talk about")
    out: dict[str, Any] = {"ready_s": time.perf_counter() - proc.launched, "first_s": first}
    out["sets"] = {}
    for name, queries in sets.items():
        answers = [proc.ask(q) for q in queries]
        out["sets"][name] = {
            "ms": [t * 1000 for _, t in answers],
            "hits": [
                [{"chunk_id": h["chunk_id"], "score": h["score"]} for h in a["hits"]]
                for a, _ in answers
            ],
        }
    out["peak_rss_mb"] = proc.peak_rss_mb()
    proc.close()
    return out
