"""The mirror's found half with a real model, on a planted life (`--life ana`: English, five
patterns, bench/mirror_notes_life.py; `--life lucia`: Spanish, six, bench/mirror_life_es.py;
`--life katrin`: German, five, bench/mirror_life_de.py, written as a held-out check;
each with an intention with nothing after it and a sign of crisis): how many planted
patterns the mirror's pass finds, how many it misfiles or invents, and what it costs
against the reading.

    .venv/bin/python -m bench.mirror_patterns --base-url http://127.0.0.1:8080/v1 \\
        --model qwen2.5-coder-1.5b-instruct-q4_k_m [--life ana|lucia] \\
        [--reader model|scripted|none] [--no-model]

--reader model: the real model reads the sources too (the whole pipeline, as a user gets
it). --reader scripted: the notes come from a diligent scripted reader (a note a line, as
a strong model would take), so the pass is measured apart from the reading. --reader
none: nothing is read (the pass reads the owner's own lines, and needs no notes).
--no-model: no model configured, so the strongest shapes are shown as worth a look."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import sqlite3
import tempfile
import time
from pathlib import Path
from typing import Any

from bench import mirror_life_de, mirror_life_es, mirror_notes_life
from bench.mirror_notes_life import Planted, found
from biomd.app.engine import Engine
from biomd.app.mirror.shape_pass import DESIGN
from biomd.settings import Settings

MODELS = Path(__file__).resolve().parent.parent.parent / "shared" / "models"


LIVES = {"ana": mirror_notes_life, "lucia": mirror_life_es, "katrin": mirror_life_de}


def life_files(life: str, folder: Path) -> list[Path]:
    if life == "ana":
        return mirror_notes_life.write_notes_life(folder)
    return LIVES[life].write_life(folder)  # type: ignore[no-any-return]


def settings_for(
    data: Path, base_url: str | None, model: str, reader_url: str | None, owner: str = "Ana"
) -> Settings:
    model_settings: dict[str, Any] = (
        {"llm_base_url": base_url, "llm_api_key": "local", "llm_model": model} if base_url else {}
    )  # no base URL: no model configured (the default endpoint, with no key)
    return Settings(
        _env_file=None,  # type: ignore[call-arg]
        data_dir=data,
        **model_settings,
        reader_base_url=reader_url,
        owner_names=owner,
        timezone="UTC",
        reading_placement="rules",
        embed_model="sentence-transformers/all-MiniLM-L6-v2",
        embed_model_path=MODELS / "all-MiniLM-L6-v2-int8",
        daily_spend_limit_usd=None,
    )


def tokens(db: Path, mirror: bool) -> tuple[int, int, int]:
    """(calls, prompt, completion) of the mirror's calls, or of every other call."""
    op = "=" if mirror else "!="
    with contextlib.closing(sqlite3.connect(db)) as conn:
        calls, prompt, completion = conn.execute(
            "SELECT COUNT(*), COALESCE(SUM(prompt_tokens), 0),"
            f" COALESCE(SUM(completion_tokens), 0) FROM llm_usage WHERE mode {op} 'mirror'"
        ).fetchone()
    return int(calls), int(prompt), int(completion)


async def read(root: Path, args: argparse.Namespace) -> Path:
    """The planted life ingested and read (by the model, or by the scripted reader)."""
    data = root / "data"
    files = life_files(args.life, root / "life")
    owner = LIVES[args.life].OWNER
    if args.reader == "none":
        settings = settings_for(data, args.base_url, args.model, None, owner)
        async with await Engine.open(settings) as engine:
            _ = [r async for r in engine.sources.ingest(files)]
            await engine.sources.embed_pending()
        return data
    if args.reader == "scripted":
        from tests.support.fake_llm import fake_llm
        from tests.support.mirror_fakes import diligent_notes

        with fake_llm() as fake:
            fake.notes_for = diligent_notes
            settings = settings_for(data, fake.base_url, "scripted", None, owner)
            async with await Engine.open(settings) as engine:
                _ = [r async for r in engine.sources.ingest(files)]
                await engine.sources.embed_pending()
                await engine.biographer.reading.read_pending()
        return data
    settings = settings_for(data, args.base_url, args.model, None, owner)
    async with await Engine.open(settings) as engine:
        _ = [r async for r in engine.sources.ingest(files)]
        await engine.sources.embed_pending()
        await engine.biographer.reading.read_pending()
    return data


def _holds_planted(pattern: dict[str, Any], planted: tuple[Planted, ...]) -> bool:
    """A pattern of another kind than the planted one whose quotes still hold two lines of
    a planted pattern: true of the life, filed under the wrong kind ("misfiled"); the rest
    match nothing planted ("invented")."""
    quotes = " ".join(str(e.get("quote", "")).lower() for e in pattern.get("evidence", []))
    return any(sum(line.lower() in quotes for line in p.lines) >= 2 for p in planted)


async def judge(data: Path, args: argparse.Namespace) -> dict[str, Any]:
    life = LIVES[args.life]
    planted: tuple[Planted, ...] = life.PLANTED
    url = None if args.no_model else args.base_url
    settings = settings_for(data, url, args.model, None, life.OWNER)
    async with await Engine.open(settings) as engine:
        await engine.store.mirror.forget_judged(DESIGN)  # every run asks the whole pass
        before = tokens(settings.db_path, True)
        plan = await engine.mirror.plan()
        t = time.perf_counter()
        report = None if args.no_model else await engine.mirror.refresh()
        seconds = time.perf_counter() - t
        view = (await engine.mirror.view()).as_json()
        after = tokens(settings.db_path, True)
        verdicts = [
            {"kind": j.kind, "verdict": j.verdict, "statement": j.statement[:300]}
            for j in await engine.store.mirror.judged(DESIGN)
        ]
        notes = await engine.store.notes.tally()
    patterns: list[dict[str, Any]] = view["patterns"]  # type: ignore[assignment]
    hits, invented = found(patterns, planted)
    misfiled = [p for p in invented if _holds_planted(p, planted)]
    invented = [p for p in invented if not _holds_planted(p, planted)]
    crisis = any(life.CRISIS in str(e.get("quote")) for p in patterns for e in p["evidence"])
    return {
        "notes": notes.kept,
        "calls_planned": plan.calls,
        "judged": report.judged if report else 0,
        "yes": report.yes if report else 0,
        "failed_replies": report.failed if report else 0,
        "dropped": int(view["dropped"]["patterns"]),  # type: ignore[index]
        "found": hits,
        "found_n": len(hits),
        "planted": len(planted),
        "statements": [f"{p['kind']}: {p['statement']}" for p in patterns],
        "misfiled": len(misfiled),
        "misfiled_statements": [f"{p['kind']}: {p['statement']}" for p in misfiled],
        "invented": len(invented),
        "invented_statements": [p["statement"] for p in invented],
        "crisis_in_a_pattern": crisis,
        "care_note_shown": view["care"] is not None,
        "intentions": [i["quote"] for i in view["intentions"]],  # type: ignore[attr-defined]
        "calls": after[0] - before[0],
        "prompt_tokens": after[1] - before[1],
        "completion_tokens": after[2] - before[2],
        "seconds": round(seconds, 1),
        "stopped": report.stopped if report else "",
        "verdicts": verdicts,
    }


async def run(args: argparse.Namespace) -> None:
    root = args.dir or Path(tempfile.mkdtemp(prefix="bench-mirror-patterns-"))
    t = time.perf_counter()
    kept = root / "data" / "biomd.sqlite3"
    data = kept.parent if args.reuse and kept.exists() else await read(root, args)
    reading = tokens(data / "biomd.sqlite3", False)
    print(
        f"reading ({args.reader}): {reading[0]} calls, {reading[1]:,} prompt + {reading[2]:,} "
        f"completion tokens, {time.perf_counter() - t:.0f} s",
        flush=True,
    )
    result = await judge(data, args)
    total = result["prompt_tokens"] + result["completion_tokens"]
    result["share_of_reading_tokens"] = round(total / max(1, reading[1] + reading[2]), 3)
    print(json.dumps(result, ensure_ascii=False, indent=2), flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--base-url", required=True)
    parser.add_argument("--model", required=True)
    parser.add_argument("--life", choices=tuple(LIVES), default="ana")
    parser.add_argument("--reader", choices=("model", "scripted", "none"), default="model")
    parser.add_argument("--no-model", action="store_true", help="no model: worth a look only")
    parser.add_argument("--dir", type=Path, default=None)
    parser.add_argument(
        "--reuse", action="store_true", help="judge again over --dir's data, already read"
    )
    # the owner's own settings file (biomd's config folder) must not give the bench a model
    os.environ["BIOMD_CONFIG_DIR"] = tempfile.mkdtemp(prefix="bench-mirror-config-")
    asyncio.run(run(parser.parse_args()))


if __name__ == "__main__":
    main()
