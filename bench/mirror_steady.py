"""False patterns on lives with none planted: each LoCoMo dev conversation read as the life of
its `speaker_a` (one long chat with `speaker_b`), and the generated life of
bench/mirror_life.py (chats of everyday words, with dynamics but no found pattern). For each:
the shapes the rules find, what is shown as worth a look with no model, and, with a model,
the patterns its questions let through (every one of them is false here).

    .venv/bin/python -m bench.mirror_steady [--base-url URL --model M] [--lives N]"""

from __future__ import annotations

import argparse
import asyncio
import json
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

from bench.locomo import session_lines
from bench.mirror_life import write_life as write_generated_life
from bench.mirror_patterns import settings_for, tokens
from biomd.app.engine import Engine

EVAL = Path(__file__).resolve().parent.parent.parent / "shared" / "eval" / "locomo-dev.json"


def locomo_life(conv: dict[str, Any], folder: Path) -> tuple[str, list[Path]]:
    """One LoCoMo conversation as a WhatsApp-like transcript, its `speaker_a` the owner."""
    numbers = sorted(
        int(k.split("_")[1]) for k in conv if k.startswith("session_") and k[8:].isdigit()
    )
    lines = [line for n in numbers for _, line in session_lines(conv, n)]
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"WhatsApp Chat with {conv['speaker_b']}.txt"
    out = []
    for line in lines:  # "[YYYY-MM-DD HH:MM] Name: text" → the phone's own format
        stamp, rest = line[1:17], line[19:]
        y, m, d = stamp[:10].split("-")
        out.append(f"[{d}/{m}/{y[2:]}, {stamp[11:]}:00] {rest}\n")
    path.write_text("".join(out), encoding="utf-8")
    return str(conv["speaker_a"]), [path]


async def one(
    name: str, owner: str, files: list[Path], root: Path, args: argparse.Namespace
) -> dict[str, Any]:
    data = root / "data"
    url = args.base_url if args.model else None
    settings = settings_for(data, url, args.model or "x", None, owner).but(
        **{"daily_spend_limit_usd": None}
    )
    async with await Engine.open(settings) as engine:
        _ = [r async for r in engine.sources.ingest(files)]
        t = time.perf_counter()
        found, _ = await engine.mirror.shapes.shapes()
        rules_s = time.perf_counter() - t
        lines = len(await engine.mirror.shapes.lines())
        result: dict[str, Any] = {
            "life": name,
            "owner lines": lines,
            "shapes": len(found),
            "by kind": dict(Counter(s.kind for s in found)),
            "rules seconds": round(rules_s, 2),
        }
        if not args.model:
            looks = await engine.mirror.shapes.worth_a_look()
            result["worth a look"] = len(looks)
            result["looks"] = [p.statement[:240] for p in looks]
            return result
        before = tokens(settings.db_path, True)
        report = await engine.mirror.refresh()
        after = tokens(settings.db_path, True)
        view = (await engine.mirror.view()).as_json()
        patterns: list[dict[str, Any]] = view["patterns"]  # type: ignore[assignment]
        result.update(
            {
                "patterns shown (all false)": len(patterns),
                "statements": [f"{p['kind']}: {p['statement'][:240]}" for p in patterns],
                "calls": after[0] - before[0],
                "tokens": (after[1] - before[1]) + (after[2] - before[2]),
                "stopped": getattr(report, "stopped", ""),
            }
        )
        return result


async def run(args: argparse.Namespace) -> None:
    samples = json.loads(EVAL.read_text(encoding="utf-8"))[: args.lives]
    for i, sample in enumerate(samples):
        root = Path(tempfile.mkdtemp(prefix="bench-mirror-steady-"))
        owner, files = locomo_life(sample["conversation"], root / "life")
        name = f"LoCoMo {sample.get('sample_id', i)} ({owner})"
        print(json.dumps(await one(name, owner, files, root, args), ensure_ascii=False), flush=True)
    root = Path(tempfile.mkdtemp(prefix="bench-mirror-steady-"))
    paths = write_generated_life(root / "life", scale=args.scale)
    files = sorted({p for p in paths.values()})
    result = await one("generated (bench/mirror_life.py)", "Ana", files, root, args)
    print(json.dumps(result, ensure_ascii=False), flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--base-url", default="http://127.0.0.1:8080/v1")
    parser.add_argument("--model", default="", help="no model: the rules and worth a look only")
    parser.add_argument("--lives", type=int, default=5, help="LoCoMo conversations, at most 5")
    parser.add_argument("--scale", type=float, default=0.05, help="of the generated life")
    asyncio.run(run(parser.parse_args()))


if __name__ == "__main__":
    main()
