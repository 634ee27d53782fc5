"""What a `biomd mcp` process costs in memory, idle and after its first search, over a large
corpus. Each assistant that uses biomd starts its own, so the vector index (about 550 MB at
a million chunks) is loaded only when a search first needs it.

The corpus is bench/scale.py's (synthetic chat, structured 384-dimension vectors). Its
vectors are labelled as the MiniLM model's, so the server embeds the query with the real
model and searches them: the ranking means nothing, the memory is what a user pays.

    .venv/bin/python -m bench.mcp_memory --chunks 100000
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

from mcp import Client, StdioServerParameters

from bench.scale import child, write_corpus
from tests.support.model_files import MINILM_NAME, minilm_dir


def rss_mb(pid: int) -> float:
    """Resident memory of a process, from /proc."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def server_pid(parent: int) -> int:
    """The `biomd mcp` process the client started (a child of this one)."""
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
                cmd = (entry / "cmdline").read_bytes()
            except OSError:
                continue
            if int(stat.split(") ", 1)[1].split()[1]) == parent and b"mcp" in cmd:
                return int(entry.name)
    raise SystemExit("biomd mcp was not found")


async def measure(data: Path) -> dict[str, float]:
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("BIOMD_")},
        "BIOMD_DATA_DIR": str(data),
        "BIOMD_EMBED_MODEL": MINILM_NAME,
        "BIOMD_EMBED_MODEL_PATH": str(minilm_dir()),
    }
    biomd = str(Path(sys.executable).with_name("biomd"))
    started = time.perf_counter()
    async with Client(StdioServerParameters(command=biomd, args=["mcp"], env=env)) as client:
        ready = time.perf_counter() - started
        await client.list_tools()
        pid = server_pid(os.getpid())
        await asyncio.sleep(1.0)
        idle = rss_mb(pid)
        t0 = time.perf_counter()
        first = await client.call_tool("search", {"query": "what did we do last summer"})
        first_s = time.perf_counter() - t0
        assert not first.is_error, first
        after = rss_mb(pid)
        t0 = time.perf_counter()
        await client.call_tool("search", {"query": "coffee tomorrow morning"})
        second_s = time.perf_counter() - t0
        profile = await client.call_tool("profile", {})
        assert not profile.is_error
    return {
        "ready_s": ready,
        "idle_mb": idle,
        "after_search_mb": after,
        "first_search_s": first_s,
        "second_search_s": second_s,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--chunks", type=int, default=100_000)
    ap.add_argument("--work", type=Path, help="keep the corpus here and reuse it")
    args = ap.parse_args()
    work = args.work or Path(tempfile.mkdtemp(prefix="biomd-mcp-"))
    folder = work / str(args.chunks)
    if not (folder / "built.json").exists():
        shutil.rmtree(folder, ignore_errors=True)
        write_corpus(folder / "sources", args.chunks)
        built, _ = child("--phase", "build", "--dir", str(folder))
        (folder / "built.json").write_text(json.dumps(built))
        shutil.rmtree(folder / "sources", ignore_errors=True)
    import sqlite3

    with sqlite3.connect(folder / "data" / "biomd.sqlite3") as db:  # label the vectors MiniLM's
        db.execute("UPDATE meta SET value = ? WHERE key = 'embed_model'", (MINILM_NAME,))
        chunks = db.execute("SELECT COUNT(*) FROM chunks").fetchone()[0]
    result = asyncio.run(measure(folder / "data"))
    print(f"\n`biomd mcp` over {chunks:,} chunks\n")
    print("| ready s | RSS idle MB | RSS after first search MB | first search s | next search s |")
    print("|---:|---:|---:|---:|---:|")
    print(
        f"| {result['ready_s']:.1f} | {result['idle_mb']:.0f} | {result['after_search_mb']:.0f} |"
        f" {result['first_search_s']:.1f} | {result['second_search_s']:.2f} |"
    )
    if not args.work:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
