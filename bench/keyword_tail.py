"""Where the slowest keyword queries spend their time: every query of a hard set's
hard-queries.json through the engine's keyword search, one process, in the bench's order,
with the time of each store call it makes (counting terms, matching, probing coverage).
Prints the slowest 5% with their calls, and the share of their time each kind of call took.

    .venv/bin/python -m bench.keyword_tail /work/bench-runs/scale37/hard-1270000
    .venv/bin/python -m bench.keyword_tail DIR --mode hybrid   # the keyword side of hybrid
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import json
import time
from collections import defaultdict
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import numpy as np

from biomd.app.engine import Engine
from biomd.settings import Settings

Calls = list[tuple[str, float, str]]


def timed(calls: Calls, name: str, fn: Callable[..., Awaitable[Any]]) -> Callable[..., Any]:
    """`fn`, noting (name, seconds, what it was asked and gave) of each call in `calls`."""

    @functools.wraps(fn)
    async def wrapper(*args: Any, **kwargs: Any) -> Any:
        t = time.perf_counter()
        result = await fn(*args, **kwargs)
        took = time.perf_counter() - t
        size = len(result) if isinstance(result, list | dict) else result
        calls.append((name, took, f"{str(args)[:90]} -> {size}"))
        return result

    return wrapper


async def profile(folder: Path, mode: str, sets: list[str]) -> None:
    queries = json.loads((folder / "hard-queries.json").read_text())
    sets = sets or list(queries)
    settings = Settings(_env_file=None, data_dir=folder / "data")  # type: ignore[call-arg]
    async with await Engine.open(settings) as engine:
        calls: Calls = []
        kw = engine.store.keywords
        for name in ("doc_freq", "match", "held", "words_from", "index_tokens"):
            setattr(kw, name, timed(calls, name, getattr(kw, name)))
        searcher = engine.searcher
        await searcher.keyword_ids("what did we talk about", 10)  # the bench's first query
        rows: list[tuple[float, str, Calls]] = []
        for set_name in sets:
            for q in queries[set_name]:
                calls.clear()
                t = time.perf_counter()
                if mode == "keyword":
                    await searcher.keyword_ids(q, 10)
                else:  # the keyword side of hybrid: its depth, then the coverage probe
                    found = await searcher.keyword_ids(q, max(searcher.fusion.keyword_depth, 10))
                    if found:
                        await searcher.coverage(q, found[0][0])
                rows.append((time.perf_counter() - t, q, list(calls)))
    ms = np.array([r[0] for r in rows]) * 1000
    print(
        f"{len(rows)} queries: p50 {np.percentile(ms, 50):.1f} ms, p95 "
        f"{np.percentile(ms, 95):.1f} ms, max {ms.max():.1f} ms"
    )
    slow = sorted(rows, key=lambda r: -r[0])[: max(1, len(rows) // 20)]
    share: dict[str, float] = defaultdict(float)
    for took, q, made in slow:
        print(f"\n{took * 1000:7.1f} ms  {q!r}")
        for name, s, what in made:
            share[name] += s
            print(f"    {s * 1000:7.1f} ms  {name} {what}")
    total = sum(r[0] for r in slow)
    print("\nthe slowest 5%'s time, by call:")
    for name, s in sorted(share.items(), key=lambda x: -x[1]):
        print(f"  {name:12} {100 * s / total:5.1f}%")
    print(f"  {'(other)':12} {100 * (total - sum(share.values())) / total:5.1f}%")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("folder", type=Path, help="a hard set's folder (bench.scale --work)")
    ap.add_argument("--mode", choices=("keyword", "hybrid"), default="keyword")
    ap.add_argument("--set", action="append", default=[], help="one set (default: all)")
    args = ap.parse_args()
    asyncio.run(profile(args.folder, args.mode, args.set))


if __name__ == "__main__":
    main()
