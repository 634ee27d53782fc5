"""The mirror's measured side at scale: a 50 MB WhatsApp export (about 500,000 messages over
ten years with one person, a shift planted in it) ingested, then, each in a fresh process:

- cold: the first `biomd mirror` over it (the export parsed from the store, every figure
  and finding made, the quotes read), its time and the memory it adds;
- restart: the same after a restart (the parse kept per source);
- warm page: the web view's /mirror page, opened again and again, p50 and p95.

    .venv/bin/python -m bench.mirror --mb 50

- shapes: the found half's rules over the owner's lines (issue 52), after the parse.

Targets (issue 32): cold ≤ 10 s with ≤ 200 MB extra on 2 cores; the page ≤ 300 ms warm.
Issue 52: the shapes ≤ 10 s with ≤ 300 MB extra."""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import os
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timedelta
from pathlib import Path

import numpy as np

from bench.mirror_life import WORDS


def write_export(path: Path, mb: float, seed: int = 5) -> int:
    """A 1:1 WhatsApp (iOS) export of about `mb` megabytes: Ana and Maya, every day from
    2015-01 to 2024-12, in a few conversations a day; from 2020-03 Maya answers Ana about
    ten times more slowly. Messages of about 6-20 words (about 86 bytes a line with the
    time stamp and name), so 50 MB is about 500,000 messages, as a real export of that size
    holds. The number of messages written."""
    rng = np.random.default_rng(seed)
    words = WORDS["en"]
    target = int(mb * 1e6)
    first, days = datetime(2015, 1, 1), 3653
    shift = datetime(2020, 3, 1)
    per_day = max(2, round(target / 86 / days))  # a line is about 86 bytes
    written, count = 0, 0
    with path.open("w", encoding="utf-8") as out:
        for day in range(days):
            if written >= target:
                break
            block = []
            left = int(rng.poisson(per_day))
            sizes = []
            while left > 0:  # conversations of a few to a few dozen lines
                sizes.append(min(left, max(2, int(rng.lognormal(math.log(12), 0.6)))))
                left -= sizes[-1]
            starts = np.sort(rng.uniform(7 * 60, 23 * 60, len(sizes)))  # 07:00 to 23:00
            when = first + timedelta(days=day)
            for n, minute in zip(sizes, starts, strict=True):
                when = max(when, first + timedelta(days=day, minutes=float(minute)))
                owner = bool(rng.random() < 0.5)
                for _ in range(n):
                    size = max(1, int(rng.lognormal(math.log(11), 0.5)))
                    text = " ".join(words[int(i)] for i in rng.integers(0, len(words), size))
                    who = "Ana" if owner else "Maya"
                    block.append(f"[{when:%d/%m/%y, %H:%M:%S}] {who}: {text}\n")
                    slow = owner and when >= shift  # the next line is mostly Maya's answer
                    gap = rng.lognormal(math.log(600 if slow else 60), 0.7)
                    when += timedelta(seconds=float(gap))
                    owner = bool(rng.random() < 0.3) == owner  # mostly taking turns
            chunk = "".join(block)
            out.write(chunk)
            written += len(chunk.encode("utf-8"))
            count += len(block)
    return count


PRELUDE = r"""
import asyncio, json, os, statistics, sys, time
from collections import Counter
from pathlib import Path
from biomd.app.engine import Engine
from biomd.settings import Settings

def settings():
    return Settings(_env_file=None, data_dir=Path(sys.argv[1]), owner_names="Ana",
                    timezone="UTC")

def rss(field):
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field):
            return int(line.split()[1]) / 1024
    return 0.0
"""

CHILD = (
    PRELUDE
    + r"""

async def main():
    async with await Engine.open(settings()) as engine:
        before = rss("VmRSS:")
        t = time.perf_counter()
        view = await engine.mirror.view()
        took = time.perf_counter() - t
        peak = rss("VmHWM:")
        t = time.perf_counter()
        await engine.mirror.view()
        again = time.perf_counter() - t
    print(json.dumps({"seconds": took, "again": again, "rss_before_mb": before,
                      "peak_mb": peak, "findings": [f.statement for f in view.findings],
                      "messages": sum(m.messages_owner + m.messages_them
                                      for p in view.people for m in p.months)}))

asyncio.run(main())
"""
)

SHAPES = (
    PRELUDE
    + r"""

async def main():
    async with await Engine.open(settings()) as engine:
        await engine.mirror.measured.get()  # the measured side's parse, kept per source
        before = rss("VmRSS:")
        t = time.perf_counter()
        found, _ = await engine.mirror.shapes.shapes()
        took = time.perf_counter() - t
        peak = rss("VmHWM:")
        lines = len(await engine.mirror.shapes.lines())
    print(json.dumps({"seconds": took, "rss_before_mb": before, "peak_mb": peak,
                      "lines": lines, "shapes": dict(Counter(s.kind for s in found))}))

asyncio.run(main())
"""
)

PAGE = r"""
import asyncio, json, statistics, sys, time
from pathlib import Path
import httpx
from biomd.frontends.web.server import WebView
from biomd.app.assistant import Assistant
from biomd.app.engine import Engine
from biomd.settings import Settings

async def main():
    settings = Settings(_env_file=None, data_dir=Path(sys.argv[1]), owner_names="Ana",
                        timezone="UTC", web_port=0)
    async with await Engine.open(settings) as engine:
        jobs = engine.job_queue({})
        view = WebView(settings, engine, Assistant(engine, jobs), jobs, announce=lambda _: None)
        await view.start()
        try:
            async with httpx.AsyncClient(timeout=120) as http:
                await http.get(view.link)
                base = view.link.split("?")[0]
                t = time.perf_counter()
                first = await http.get(base + "mirror")
                opened = time.perf_counter() - t
                times = []
                for _ in range(int(sys.argv[2])):
                    t = time.perf_counter()
                    r = await http.get(base + "mirror")
                    times.append(time.perf_counter() - t)
                    assert r.status_code == 200
        finally:
            await view.stop()
    times.sort()
    print(json.dumps({"first_s": opened, "status": first.status_code, "bytes": len(first.content),
                      "p50_ms": statistics.median(times) * 1000,
                      "p95_ms": times[int(len(times) * 0.95) - 1] * 1000}))

asyncio.run(main())
"""


def child(script: str, *args: str) -> dict[str, object]:
    env = os.environ | {"PYTHONPATH": str(Path(__file__).resolve().parent.parent)}
    done = subprocess.run(
        [sys.executable, "-c", script, *args], capture_output=True, text=True, env=env, check=True
    )
    result: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


async def ingest(data: Path, export: Path) -> float:
    from biomd.app.engine import Engine
    from biomd.settings import Settings

    settings = Settings(_env_file=None, data_dir=data, owner_names="Ana", timezone="UTC")
    t = time.perf_counter()
    async with await Engine.open(settings) as engine:
        async for r in engine.sources.ingest([export]):
            assert r.status == "added", r.error
    return time.perf_counter() - t


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--mb", type=float, default=50.0)
    parser.add_argument("--pages", type=int, default=30)
    parser.add_argument("--dir", type=Path, default=None)
    args = parser.parse_args()
    root = args.dir or Path(tempfile.mkdtemp(prefix="bench-mirror-"))
    root.mkdir(parents=True, exist_ok=True)
    export = root / "WhatsApp Chat with Maya.txt"
    t = time.perf_counter()
    messages = write_export(export, args.mb)
    print(f"export: {export.stat().st_size / 1e6:.1f} MB, {messages:,} messages "
          f"({time.perf_counter() - t:.1f} s to write)")  # fmt: skip
    data = root / "data"
    print(f"ingest: {asyncio.run(ingest(data, export)):.1f} s")
    cold = child(CHILD, str(data))
    print(
        f"cold: {cold['seconds']:.2f} s, peak RSS {cold['peak_mb']:.0f} MB "
        f"({float(cold['peak_mb']) - float(cold['rss_before_mb']):.0f} MB over the "
        f"{cold['rss_before_mb']:.0f} MB before), the same process again {cold['again']:.3f} s;"
        f" {cold['messages']:,} messages counted"
    )
    for f in cold["findings"]:  # type: ignore[attr-defined]
        print(f"  finding: {f}")
    again = child(CHILD, str(data))
    print(f"restart (parse kept): {again['seconds']:.2f} s, peak RSS {again['peak_mb']:.0f} MB")
    shapes = child(SHAPES, str(data))
    print(
        f"found half, shapes by rules: {shapes['seconds']:.2f} s over {shapes['lines']:,} lines "
        f"of the owner's, peak RSS {shapes['peak_mb']:.0f} MB "
        f"({float(shapes['peak_mb']) - float(shapes['rss_before_mb']):.0f} MB over the "
        f"{shapes['rss_before_mb']:.0f} MB before); shapes {shapes['shapes']}"
    )
    page = child(PAGE, str(data), str(args.pages))
    print(
        f"page /mirror: first {page['first_s']:.2f} s after a restart, then warm p50 "
        f"{page['p50_ms']:.0f} ms, p95 {page['p95_ms']:.0f} ms over {args.pages} loads "
        f"({page['bytes']:,} bytes)"
    )
    print(f"machine: {os.cpu_count()} cores; {datetime.now():%Y-%m-%d}")


if __name__ == "__main__":
    main()
