"""Fault injection: kill -9 biomd at random points and check that nothing is lost.

    .venv/bin/python -m bench.faults              # 24 ingest kills, 24 search kills, 25 edit kills
    .venv/bin/python -m bench.faults --single-line-mb 200

Ingest: a baseline of small sources is indexed and embedded first and fingerprinted. Each
round then runs `biomd ingest` (with embedding) on a fresh large chat file and kills it
with SIGKILL at a random moment, then checks the store: `PRAGMA integrity_check`, the FTS
index against its content table, every document complete (chunks tile its text, FTS rows,
vectors belong to its chunks and match a fresh embedding of their text) or still pending,
every raw file present with its hash, no stray raw files, and the baseline untouched. The
same command is run again without a kill and must finish the file, whose stitched text must
equal the file's; then the file is forgotten so the store stays small.

Search: `biomd search` is killed while it loads or writes the vector cache; the cache is
then loaded as the bot would load it and must agree with a cache-less index built from the
store (same rows, same top-10 for sample queries).

bio.md: a worker applies edits in a loop and is killed at random. bio.md must equal the
newest or the one-before-newest revision in the log, and after `Profile.load` the newest,
with no revision added for a "hand edit".
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import os
import random
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
import zlib
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from bench.synth import chat_text, vocabulary
from biomd.app.engine import embed_input
from biomd.biographer.profile import Profile
from biomd.retrieval.embedding import FastEmbedder, from_blobs
from biomd.retrieval.vector_index import VectorIndex
from biomd.storage.store import Store
from tests.support.db import one, rows

MODEL = "sentence-transformers/all-MiniLM-L6-v2"
BIOMD = Path(sys.executable).with_name("biomd")


@dataclass
class Tally:
    """Cases tried and survived per kind, with what went wrong."""

    tried: Counter[str] = field(default_factory=Counter)
    survived: Counter[str] = field(default_factory=Counter)
    lost: Counter[str] = field(default_factory=Counter)
    where: Counter[str] = field(default_factory=Counter)
    problems: list[str] = field(default_factory=list)

    def record(self, kind: str, problems: list[str], lost: int = 0) -> None:
        self.tried[kind] += 1
        self.lost[kind] += lost
        if problems:
            self.problems += [f"{kind} #{self.tried[kind]}: {p}" for p in problems]
        else:
            self.survived[kind] += 1


# -- running biomd ---------------------------------------------------------------------------


def biomd_env(data: Path, model_path: Path) -> dict[str, str]:
    return {
        **os.environ,
        "BIOMD_DATA_DIR": str(data),
        "BIOMD_EMBED_MODEL": MODEL,
        "BIOMD_EMBED_MODEL_PATH": str(model_path),
        "BIOMD_LLM_API_KEY": "",
    }


def run(env: dict[str, str], *args: str) -> str:
    done = subprocess.run(
        [str(BIOMD), *args], env=env, capture_output=True, text=True, stdin=subprocess.DEVNULL
    )
    if done.returncode != 0:
        raise SystemExit(f"biomd {' '.join(args)} failed:\n{done.stdout}\n{done.stderr}")
    return done.stdout


def peak_rss_mb(env: dict[str, str], *args: str) -> float:
    """Run biomd under a watcher process of its own, so its peak RSS is its alone."""
    watcher = (
        "import resource, subprocess, sys;"
        "rc = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL).returncode;"
        "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss);"
        "sys.exit(rc)"
    )
    kb = subprocess.run(
        [sys.executable, "-c", watcher, str(BIOMD), *args],
        env=env,
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return int(kb) / 1024


def run_and_kill(cmd: list[str], env: dict[str, str], after: float) -> bool:
    """Start cmd, SIGKILL it after `after` seconds; False if it finished first."""
    proc = subprocess.Popen(
        cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL
    )
    try:
        proc.wait(timeout=after)
        return False
    except subprocess.TimeoutExpired:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        return True


# -- checking the store ----------------------------------------------------------------------


def connect(data: Path) -> sqlite3.Connection:
    return sqlite3.connect(data / "biomd.sqlite3", timeout=30)


def check_store(db: sqlite3.Connection, data: Path) -> list[str]:
    """Everything that must hold after any crash."""
    problems: list[str] = []
    ok = db.execute("PRAGMA integrity_check").fetchone()[0]
    if ok != "ok":
        problems.append(f"integrity_check: {ok}")
    try:
        db.execute("INSERT INTO chunks_fts(chunks_fts, rank) VALUES ('integrity-check', 1)")
    except sqlite3.DatabaseError as exc:
        problems.append(f"FTS index disagrees with chunks: {exc}")
    docs = db.execute(
        "SELECT id, name, status, n_chunks, text_length, raw_path, sha256 FROM documents"
    ).fetchall()
    kept: set[str] = set()
    for doc_id, name, status, n_chunks, length, raw_path, sha in docs:
        if status == "failed":
            problems.append(f"#{doc_id} {name} failed")
            continue
        kept.add(raw_path)
        raw = data / raw_path
        if not raw.is_file():
            problems.append(f"#{doc_id} raw file missing")
        elif status == "ready" and file_sha(raw) != sha:
            problems.append(f"#{doc_id} raw file does not match its hash")
        if status == "ready":
            problems += check_complete(db, doc_id, n_chunks, length)
    stray = [p for p in (data / "raw").rglob("*") if p.is_file()]
    stray = [p for p in stray if str(p.relative_to(data)) not in kept]
    if stray:
        problems.append(f"{len(stray)} raw files belong to no document")
    orphans = db.execute(
        "SELECT COUNT(*) FROM vectors WHERE chunk_id NOT IN (SELECT id FROM chunks)"
    ).fetchone()[0]
    if orphans:
        problems.append(f"{orphans} vectors without a chunk")
    return problems


def check_complete(db: sqlite3.Connection, doc_id: int, n_chunks: int, length: int) -> list[str]:
    """A ready document's chunks tile its text in order, each indexed by FTS."""
    rows = db.execute(
        "SELECT seq, start_char, end_char, length(text) FROM chunks WHERE document_id = ?"
        " ORDER BY seq",
        (doc_id,),
    ).fetchall()
    problems = []
    if len(rows) != n_chunks:
        problems.append(f"#{doc_id} ready with {len(rows)} of {n_chunks} chunks")
    if rows and (rows[0][1] != 0 or rows[-1][2] != length):
        problems.append(f"#{doc_id} chunks do not span its text")
    for i, (seq, start, end, size) in enumerate(rows):
        if seq != i or end - start != size or (i and start > rows[i - 1][2]):
            problems.append(f"#{doc_id} chunk {seq} out of place")
            break
    fts = db.execute(
        "SELECT COUNT(*) FROM chunks_fts WHERE rowid IN"
        " (SELECT id FROM chunks WHERE document_id = ?)",
        (doc_id,),
    ).fetchone()[0]
    if fts != len(rows):
        problems.append(f"#{doc_id} {fts} FTS rows for {len(rows)} chunks")
    return problems


def check_vectors(db: sqlite3.Connection, embedder: FastEmbedder, sample: int = 4) -> list[str]:
    """Vectors are whole, unit length, and a sample matches a fresh embedding of the chunk."""
    problems = []
    bad = db.execute(
        "SELECT COUNT(*) FROM vectors WHERE length(vector) != ?", (embedder.dim * 4,)
    ).fetchone()[0]
    if bad:
        problems.append(f"{bad} vectors of the wrong size")
    rows = db.execute(
        "SELECT c.text, v.vector FROM vectors v JOIN chunks c ON c.id = v.chunk_id"
        " ORDER BY random() LIMIT ?",
        (sample,),
    ).fetchall()
    if rows:
        stored = from_blobs([r[1] for r in rows], embedder.dim)
        fresh = embedder.embed_passages([embed_input(r[0]) for r in rows])
        if not np.allclose(np.linalg.norm(stored, axis=1), 1, atol=1e-3):
            problems.append("vectors that are not unit length")
        if float((stored * fresh).sum(axis=1).min()) < 0.999:
            problems.append("a vector does not match its chunk's text")
    return problems


def fingerprint(db: sqlite3.Connection, doc_ids: list[int]) -> str:
    h = hashlib.sha256()
    marks = ",".join("?" * len(doc_ids))
    for row in db.execute(
        f"SELECT c.id, c.text, v.vector FROM chunks c LEFT JOIN vectors v ON v.chunk_id = c.id"
        f" WHERE c.document_id IN ({marks}) ORDER BY c.id",
        doc_ids,
    ):
        h.update(repr(row).encode())
    return h.hexdigest()


def stitched(db: sqlite3.Connection, doc_id: int) -> str:
    parts, end = [], 0
    for start, stop, text in db.execute(
        "SELECT start_char, end_char, text FROM chunks WHERE document_id = ? ORDER BY seq",
        (doc_id,),
    ):
        parts.append(text[end - start :] if start < end else text)
        end = stop
    return "".join(parts)


def file_sha(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        while block := f.read(1 << 20):
            h.update(block)
    return h.hexdigest()


async def check_cache(data: Path, rng: random.Random) -> list[str]:
    """Load the vector cache as the bot does; it must agree with an index built from SQLite."""
    store = await Store.open(data / "biomd.sqlite3")
    try:
        cached, plain = VectorIndex(data / "cache"), VectorIndex(None)
        await cached.refresh(store)
        await plain.refresh(store)
        if len(cached) != len(plain):
            return [f"vector cache has {len(cached)} rows, the store {len(plain)}"]
        if not len(plain):
            return []
        picked = rows(store.path, "SELECT vector FROM vectors ORDER BY random() LIMIT 3")
        for (blob,) in picked:
            query = from_blobs([bytes(blob)], len(blob) // 4)[0]
            if cached.shortlist(query, 10) != plain.shortlist(query, 10):
                return ["the vector cache ranks differently from the store"]
        return []
    finally:
        await store.close()


# -- the rounds ------------------------------------------------------------------------------


def write_big(path: Path, base: Path, round_no: int) -> None:
    with path.open("wb") as out, base.open("rb") as src:
        out.write(f"[2026-01-01 00:00] Round: this is copy {round_no} of the big chat.\n".encode())
        while block := src.read(1 << 22):
            out.write(block)


def baseline(work: Path, env: dict[str, str]) -> list[Path]:
    vocab = vocabulary(5_000)
    files = []
    for i in range(3):
        path = work / f"baseline-{i}.txt"
        path.write_text("".join(chat_text(60_000, vocab, seed=100 + i)), encoding="utf-8")
        files.append(path)
    run(env, "ingest", "--no-read", *map(str, files))
    return files


def ingest_rounds(
    work: Path, env: dict[str, str], rounds: int, mb: int, embedder: FastEmbedder, tally: Tally
) -> None:
    data = Path(env["BIOMD_DATA_DIR"])
    rng = random.Random(11)
    baseline(work, env)
    db = connect(data)
    base_ids = [r[0] for r in db.execute("SELECT id FROM documents")]
    base_print = fingerprint(db, base_ids)
    db.close()

    base = work / "big-base.txt"
    base.write_text("".join(chat_text(mb * 1_000_000, vocabulary(30_000), seed=5)), "utf-8")
    calibrate = work / "calibrate.txt"
    write_big(calibrate, base, -1)
    started = time.perf_counter()
    run(env, "ingest", "--no-embed", "--no-read", str(calibrate))
    ingest_s = time.perf_counter() - started
    doc = connect(data).execute("SELECT id FROM documents WHERE name = 'calibrate.txt'")
    run(env, "forget", "--yes", str(doc.fetchone()[0]))
    print(f"calibration: `biomd ingest` of {mb} MB takes {ingest_s:.1f} s without embedding")

    for i in range(rounds):
        began = time.perf_counter()
        big = work / f"big-{i}.txt"
        write_big(big, base, i)
        # every other kill while indexing, the rest while the vectors are computed
        delay = rng.uniform(0.3, ingest_s) if i % 2 else rng.uniform(ingest_s, ingest_s + 25)
        killed = run_and_kill([str(BIOMD), "ingest", "--no-read", str(big)], env, delay)
        db = connect(data)
        row = db.execute(
            "SELECT id, status, (SELECT COUNT(*) FROM vectors v JOIN chunks c ON c.id ="
            " v.chunk_id WHERE c.document_id = d.id) FROM documents d WHERE name = ?",
            (big.name,),
        ).fetchone()
        stage = "before the document row" if row is None else row[1]
        if row is not None and row[1] == "ready":
            stage = "while embedding" if row[2] else "ready, before embedding"
        tally.where[stage if killed else "finished before the kill"] += 1
        problems = check_store(db, data) + check_vectors(db, embedder)
        if fingerprint(db, base_ids) != base_print:
            problems.append("the baseline sources changed")
        db.close()

        run(env, "ingest", "--no-embed", "--no-read", str(big))
        db = connect(data)
        doc_id, status = db.execute(
            "SELECT id, status FROM documents WHERE name = ?", (big.name,)
        ).fetchone()
        lost = 0
        if status != "ready":
            problems.append(f"still {status} after the restart")
            lost = 1
        elif stitched(db, doc_id) != big.read_text("utf-8"):
            problems.append("text after the restart differs from the file")
            lost = 1
        problems += check_store(db, data)
        db.close()
        run(env, "forget", "--yes", str(doc_id))
        big.unlink()
        tally.record("ingest", problems, lost)
        took = time.perf_counter() - began
        print(
            f"ingest kill {i + 1}/{rounds} at {delay:.1f} s ({stage}, round {took:.0f} s): ", end=""
        )
        print(problems or "ok")


def embed_rounds(
    work: Path, env: dict[str, str], rounds: int, embedder: FastEmbedder, tally: Tally
) -> None:
    """`biomd embed` killed while it writes vectors; each kill keeps what was written."""
    data = Path(env["BIOMD_DATA_DIR"])
    source = work / "to-embed.txt"
    source.write_text("".join(chat_text(3_500_000, vocabulary(20_000), seed=21)), "utf-8")
    run(env, "ingest", "--no-embed", "--no-read", str(source))
    rng = random.Random(19)
    db = connect(data)
    before = db.execute("SELECT COUNT(*) FROM vectors").fetchone()[0]
    db.close()
    for i in range(rounds):
        delay = rng.uniform(8.0, 40.0)
        killed = run_and_kill([str(BIOMD), "embed"], env, delay)
        db = connect(data)
        problems = check_store(db, data) + check_vectors(db, embedder, sample=8)
        now = db.execute("SELECT COUNT(*) FROM vectors").fetchone()[0]
        db.close()
        if now < before:
            problems.append(f"vectors went from {before} to {now}")
        tally.where["embed: " + ("killed" if killed else "finished before the kill")] += 1
        problems += asyncio.run(check_cache(data, rng))
        tally.record("embed", problems)
        print(f"embed kill {i + 1}/{rounds} at {delay:.1f} s ({now - before:+,} vectors): ", end="")
        print(problems or "ok")
        before = now
    run(env, "embed")
    db = connect(data)
    left = db.execute(
        "SELECT COUNT(*) FROM chunks WHERE id NOT IN (SELECT chunk_id FROM vectors)"
    ).fetchone()[0]
    db.close()
    if left:
        tally.problems.append(f"embed: {left} chunks without vectors after the final run")


def search_rounds(work: Path, env: dict[str, str], rounds: int, tally: Tally) -> None:
    data = Path(env["BIOMD_DATA_DIR"])
    run(env, "embed")
    rng = random.Random(13)
    started = time.perf_counter()
    run(env, "search", "garden allotment")
    search_s = time.perf_counter() - started
    for i in range(rounds):
        if i % 2 == 0:  # a new vector row makes the next search append to the cache
            extra = work / f"extra-{i}.txt"
            extra.write_text(f"Round {i}: a note about the garden and the allotment.\n" * 3)
            run(env, "ingest", "--no-read", str(extra))
        if i % 6 == 3:  # and forgetting one makes it rebuild the cache from the store
            doc = connect(data).execute("SELECT MAX(id) FROM documents").fetchone()[0]
            run(env, "forget", "--yes", str(doc))
        delay = rng.uniform(0.2, search_s)
        killed = run_and_kill([str(BIOMD), "search", "garden allotment"], env, delay)
        tally.where["search: " + ("killed" if killed else "finished before the kill")] += 1
        db = connect(data)
        problems = check_store(db, data)
        db.close()
        problems += asyncio.run(check_cache(data, rng))
        tally.record("search", problems)
        print(f"search kill {i + 1}/{rounds} at {delay:.1f} s: {problems or 'ok'}")


EDIT_WORKER = """
import asyncio, sys
from pathlib import Path
from biomd.biographer.profile import Profile
from biomd.storage.store import Store

async def main(data):
    store = await Store.open(data / "biomd.sqlite3")
    profile = Profile(store, data / "bio.md")
    text = await profile.load()
    while True:
        line = next((l for l in text.splitlines() if l.startswith("Edit counter:")), None)
        if line is None:
            old, new = "## Identity", "## Identity\\nEdit counter: 0."
        else:
            n = int(line.split(":")[1].split(".")[0]) + 1
            old, new = line, f"Edit counter: {n}." + " padding" * (n % 400)
        text = await profile.edit(old, new, turn_id=None, mode="chat", reason="fault test")

asyncio.run(main(Path(sys.argv[1])))
"""


def revisions(db: sqlite3.Connection) -> list[str]:
    rows = db.execute("SELECT content FROM profile_revisions ORDER BY id DESC LIMIT 2")
    return [zlib.decompress(r[0]).decode() for r in rows]


def edit_rounds(work: Path, rounds: int, tally: Tally) -> None:
    data = work / "edits"
    data.mkdir(mode=0o700)
    rng = random.Random(17)
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parent.parent)}
    for i in range(rounds):
        delay = rng.uniform(1.0, 3.0)
        killed = run_and_kill([sys.executable, "-c", EDIT_WORKER, str(data)], env, delay)
        problems = [] if killed else ["the edit worker stopped by itself"]
        db = connect(data)
        count = db.execute("SELECT COUNT(*) FROM profile_revisions").fetchone()[0]
        newest = revisions(db)
        db.close()
        on_disk = (data / "bio.md").read_text("utf-8")
        where = "newest" if on_disk == newest[0] else "one behind"
        if on_disk not in newest:
            problems.append("bio.md is neither the newest nor the previous revision")
            where = "neither"
        tally.where[f"bio.md: {where} revision"] += 1
        leftovers = list(data.glob(".bio-*.tmp"))
        for tmp in leftovers:  # as if the restart came a minute or more later
            os.utime(tmp, (time.time() - 120, time.time() - 120))
        tally.where["bio.md: temp file left by the kill"] += len(leftovers)
        problems += asyncio.run(reload_profile(data, newest[0], count))
        if list(data.glob(".bio-*.tmp")):
            problems.append(f"{len(leftovers)} temporary files left after load")
        lost = int(where == "neither" or any("settle" in p for p in problems))
        tally.record("bio.md edit", problems, lost)
        print(f"edit kill {i + 1}/{rounds} at {delay:.1f} s (bio.md {where}): {problems or 'ok'}")


async def reload_profile(data: Path, newest: str, count: int) -> list[str]:
    store = await Store.open(data / "biomd.sqlite3")
    try:
        text = await Profile(store, data / "bio.md").load()
        after = one(store.path, "SELECT COUNT(*) FROM profile_revisions")[0]
    finally:
        await store.close()
    problems = []
    if text != newest or (data / "bio.md").read_text("utf-8") != newest:
        problems.append("load did not settle on the newest revision")
    if after != count:
        problems.append(f"load added {after - count} revisions")
    return problems


def single_line(work: Path, model_path: Path, mb: int, tally: Tally) -> str:
    """One line of `mb` MB without a newline, through `biomd ingest --no-embed`."""
    data = work / "single"
    env = biomd_env(data, model_path)
    path = work / "one-line.txt"
    vocab = vocabulary(30_000)
    with path.open("w", encoding="utf-8") as f:
        for piece in chat_text(mb * 1_000_000, vocab, seed=9):
            f.write(piece.replace("\n", " "))
    started = time.perf_counter()
    peak = peak_rss_mb(env, "ingest", "--no-embed", "--no-read", str(path))
    seconds = time.perf_counter() - started
    db = connect(data)
    problems = check_store(db, data)
    doc_id, status, n = db.execute("SELECT id, status, n_chunks FROM documents").fetchone()
    if status != "ready":
        problems.append(f"the one-line file is {status}")
    elif stitched(db, doc_id) != path.read_text("utf-8"):
        problems.append("stitched text differs from the file")
    db.close()
    tally.record("200 MB single line", problems, lost=int(bool(problems)))
    size = path.stat().st_size / 1e6
    return f"{size:,.0f} MB on one line: {n:,} chunks in {seconds:.0f} s, peak RSS {peak:.0f} MB"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--rounds", type=int, default=24, help="ingest kills")
    ap.add_argument("--mb", type=int, default=20, help="size of the big file")
    ap.add_argument("--embed-rounds", type=int, default=12, help="kills during `biomd embed`")
    ap.add_argument("--search-rounds", type=int, default=24)
    ap.add_argument("--edit-rounds", type=int, default=25)
    ap.add_argument("--single-line-mb", type=int, default=200)
    ap.add_argument("--model-path", type=Path)
    ap.add_argument("--work", type=Path)
    args = ap.parse_args()
    model_path = args.model_path
    if model_path is None:
        from tests.support.model_files import minilm_dir

        model_path = minilm_dir()
    work = args.work or Path(tempfile.mkdtemp(prefix="biomd-faults-"))
    work.mkdir(parents=True, exist_ok=True)
    env = biomd_env(work / "data", model_path)
    embedder = FastEmbedder(MODEL, model_path=model_path)
    tally = Tally()
    started = time.perf_counter()
    if args.rounds:
        ingest_rounds(work, env, args.rounds, args.mb, embedder, tally)
    if args.embed_rounds:
        embed_rounds(work, env, args.embed_rounds, embedder, tally)
    if args.search_rounds:
        search_rounds(work, env, args.search_rounds, tally)
    if args.edit_rounds:
        edit_rounds(work, args.edit_rounds, tally)
    line = single_line(work, model_path, args.single_line_mb, tally) if args.single_line_mb else ""
    print(f"\n{time.perf_counter() - started:.0f} s in all. Where the kills landed:")
    for where, n in sorted(tally.where.items()):
        print(f"  {n:3d}  {where}")
    if line:
        print(line)
    print("\n| fault | cases tried | survived | data lost |")
    print("|---|---:|---:|---:|")
    for kind, n in tally.tried.items():
        print(f"| {kind} | {n} | {tally.survived[kind]} | {tally.lost[kind]} |")
    for p in tally.problems:
        print("PROBLEM:", p)
    sys.exit(1 if tally.problems else 0)


if __name__ == "__main__":
    main()
