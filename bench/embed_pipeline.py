"""How much the pipeline adds to the embedding model's own time: the same chunks embedded
by the model alone, and ingested + embedded through biomd (conversion, chunking, FTS,
storage, then vectors).

    .venv/bin/python -m bench.embed_pipeline --chunks 400
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import tempfile
import time
from pathlib import Path

from bench.synth import chat_text, vocabulary
from biomd.app.engine import Engine, embed_input
from biomd.ingest.chunking import chunk_text
from biomd.retrieval.embedding import FastEmbedder
from biomd.settings import Settings

MODEL = "sentence-transformers/all-MiniLM-L6-v2"


async def main(chunks: int, model_path: Path) -> None:
    work = Path(tempfile.mkdtemp(prefix="biomd-embed-"))
    text = "".join(chat_text(chunks * 680, vocabulary(30_000), seed=11))
    source = work / "chat.txt"
    source.write_text(text, encoding="utf-8")
    embedder = FastEmbedder(MODEL, model_path=model_path)
    pieces = [embed_input(c.text) for c in chunk_text(text)]
    embedder.embed_passages(pieces[:32])  # load and warm the model outside the timing

    started = time.perf_counter()
    for i in range(0, len(pieces), 256):
        embedder.embed_passages(pieces[i : i + 256])
    model_only = time.perf_counter() - started

    settings = Settings(
        _env_file=None,  # type: ignore[call-arg]
        data_dir=work / "data",
        embed_model=MODEL,
        embed_model_path=model_path,
    )
    async with await Engine.open(settings, embedder) as engine:
        started = time.perf_counter()
        _ = [r async for r in engine.sources.ingest([source])]
        indexed = time.perf_counter() - started
        await engine.sources.embed_pending()
        pipeline = time.perf_counter() - started
    shutil.rmtree(work, ignore_errors=True)
    print(f"\n{len(pieces)} chunks, {len(text) / 1e6:.2f} MB\n")
    print("| model alone s | biomd ingest + embed s | of which indexing s | overhead |")
    print("|---:|---:|---:|---:|")
    print(
        f"| {model_only:.1f} | {pipeline:.1f} | {indexed:.2f} |"
        f" {100 * (pipeline - model_only) / model_only:+.1f}% |"
    )


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--chunks", type=int, default=400)
    ap.add_argument("--model-path", type=Path)
    args = ap.parse_args()
    path = args.model_path
    if path is None:
        from tests.support.model_files import minilm_dir

        path = minilm_dir()
    asyncio.run(main(args.chunks, path))
