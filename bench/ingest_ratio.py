"""Ingest against a bare FTS5 insert, as issue 23 measures it: `biomd ingest --no-embed
--no-read` of a WhatsApp export (run as the owner would, process start included) against a
bare `porter unicode61` FTS5 insert of the same text's 900/150 windows, on the same machine.

    .venv/bin/python -m bench.ingest_ratio --mb 80 --runs 2
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.languages import bare_fts
from bench.loop_lag import whatsapp_export
from tests.support.model_files import MINILM_NAME, minilm_dir


def windows(text: str, size: int = 900, overlap: int = 150) -> list[str]:
    step = size - overlap
    return [text[i : i + size] for i in range(0, max(1, len(text) - overlap), step)]


def ingest(chat: Path, data: Path) -> float:
    """Seconds for `biomd ingest --no-embed --no-read`, from the shell."""
    env = os.environ | {
        "BIOMD_DATA_DIR": str(data),
        "BIOMD_EMBED_MODEL": MINILM_NAME,
        "BIOMD_EMBED_MODEL_PATH": str(minilm_dir()),
    }
    biomd = Path(sys.executable).with_name("biomd")
    start = time.perf_counter()
    subprocess.run(
        [str(biomd), "ingest", "--no-embed", "--no-read", str(chat)],
        env=env,
        check=True,
        capture_output=True,
    )
    return time.perf_counter() - start


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--mb", type=int, default=80, help="size of the export")
    ap.add_argument("--runs", type=int, default=2)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        chat = work / "WhatsApp Chat with Family.txt"
        whatsapp_export(chat, args.mb)
        text = chat.read_text(encoding="utf-8")
        size = len(text.encode()) / 1e6
        for run in range(args.runs):
            b, i = bare_fts(windows(text)), ingest(chat, work / f"data{run}")
            print(
                f"{size:.0f} MB chat: ingest {i:.1f} s ({size / i:.1f} MB/s), bare FTS5 insert "
                f"{b:.1f} s ({size / b:.1f} MB/s), ratio {b / i:.2f}x",
                flush=True,
            )


if __name__ == "__main__":
    main()
