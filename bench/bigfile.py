"""One huge text file through `biomd ingest --no-embed`: throughput and peak memory.

.venv/bin/python -m bench.bigfile --mb 1024
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.synth import chat_text, vocabulary


def write_file(path: Path, mb: int) -> int:
    vocab = vocabulary(30_000)
    written = 0
    with path.open("w", encoding="utf-8") as f:
        for piece in chat_text(mb * 1_000_000, vocab, seed=3):
            written += f.write(piece)
    return written


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--mb", type=int, default=1024, help="size of the file in MB")
    ap.add_argument("--work", type=Path)
    args = ap.parse_args()
    work = args.work or Path(tempfile.mkdtemp(prefix="biomd-bigfile-"))
    work.mkdir(parents=True, exist_ok=True)
    source = work / "huge-chat.txt"
    if not source.exists() or source.stat().st_size < args.mb * 1_000_000:
        started = time.perf_counter()
        write_file(source, args.mb)
        print(
            f"wrote {source.stat().st_size / 1e6:,.0f} MB in {time.perf_counter() - started:.0f} s"
        )
    size = source.stat().st_size
    data = work / "data"
    biomd = Path(sys.executable).with_name("biomd")
    env = {**os.environ, "BIOMD_DATA_DIR": str(data)}
    started = time.perf_counter()
    subprocess.run([str(biomd), "ingest", "--no-embed", str(source)], env=env, check=True)
    seconds = time.perf_counter() - started
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    stats = subprocess.run(
        [str(biomd), "stats"], env=env, check=True, capture_output=True, text=True
    ).stdout
    print(stats)
    print("| file MB | seconds | MB/s | peak RSS MB |")
    print("|---:|---:|---:|---:|")
    print(f"| {size / 1e6:,.0f} | {seconds:.0f} | {size / 1e6 / seconds:.1f} | {peak:.0f} |")


if __name__ == "__main__":
    main()
