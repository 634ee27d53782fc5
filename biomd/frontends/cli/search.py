"""Finding things in the sources: `biomd search` (hybrid), `grep` (every mention) and `read`
(an exact slice of a source)."""

from __future__ import annotations

import json
import sys
from dataclasses import asdict
from typing import Annotated, Any

import typer

from biomd.app.engine import Engine
from biomd.app.replies import counted
from biomd.app.sources import MODES, Hit
from biomd.frontends.cli.common import err, out, run, search_ready


def search(
    ctx: typer.Context,
    query: Annotated[str, typer.Argument(help="What to look for; `-` reads one query per line.")],
    limit: Annotated[int, typer.Option("--limit", "-n", min=1, max=1000)] = 10,
    mode: Annotated[str, typer.Option(help="hybrid, keyword or vector.")] = "hybrid",
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Hybrid search (vectors + keywords, fused)."""
    if mode not in MODES:
        raise typer.BadParameter(f"mode must be one of {', '.join(MODES)}", param_hint="--mode")

    async def work(engine: Engine) -> None:
        if mode != "keyword":
            await search_ready(engine)
        if query == "-":
            for line in sys.stdin:
                q = line.rstrip("\n")
                hits = await engine.sources.search(q, limit, mode)
                print(json.dumps(_hits_json(q, hits), ensure_ascii=False), flush=True)
            return
        hits = await engine.sources.search(query, limit, mode)
        if as_json:
            print(json.dumps(_hits_json(query, hits), ensure_ascii=False, indent=2))
            return
        if not hits:
            why = await engine.sources.without_vectors() if mode != "keyword" else None
            if why and mode == "vector":
                out.print(f"Vector search has nothing to search: {why}", markup=False)
                out.print("Keyword search works now: --mode keyword.", markup=False)
            else:
                out.print("No matches.")
        elif mode == "hybrid" and (why := await engine.sources.without_vectors()):
            err.print(f"Keywords only: {why}", markup=False, style="dim")
        for i, h in enumerate(hits, 1):
            out.print(f"[bold]{i}. #{h.document_id} {h.document}[/bold] [{h.start}:{h.end}]")
            if h.before.strip():
                out.print(
                    "   " + h.before.strip().replace("\n", "\n   "), style="dim", markup=False
                )
            out.print("   " + h.text.strip().replace("\n", "\n   "), markup=False)
            if h.after.strip():
                out.print("   " + h.after.strip().replace("\n", "\n   "), style="dim", markup=False)

    run(ctx, work)


def _hits_json(query: str, hits: list[Hit]) -> dict[str, Any]:
    return {"query": query, "hits": [asdict(h) for h in hits]}


def grep(
    ctx: typer.Context,
    pattern: Annotated[
        str, typer.Argument(help="A word or phrase, matched ignoring case and accents.")
    ],
    offset: Annotated[int, typer.Option(min=0)] = 0,
    limit: Annotated[int, typer.Option("--limit", "-n", min=1)] = 50,
    exact: Annotated[bool, typer.Option("--exact", help="Match case and accents.")] = False,
    as_json: Annotated[bool, typer.Option("--json")] = False,
) -> None:
    """Every mention of a word or phrase, with source and position."""
    page = run(ctx, lambda e: e.sources.grep(pattern, offset, limit, exact))
    if as_json:
        print(json.dumps(asdict(page), ensure_ascii=False, indent=2))
        return
    for m in page.mentions:
        out.print(f"#{m.document_id} {m.document} @{m.position}: {m.line}", markup=False)
    shown = len(page.mentions)
    out.print(
        counted(page.total, "mention")
        + (f", showing {offset + 1}–{offset + shown}" if shown else "")
    )


def read(
    ctx: typer.Context,
    doc_id: Annotated[int, typer.Argument(help="Source id, as in `biomd sources`.")],
    offset: Annotated[int, typer.Option(min=0)] = 0,
    length: Annotated[int | None, typer.Option(min=1)] = None,
) -> None:
    """Print an exact slice of a source's text."""
    part = run(ctx, lambda e: e.sources.read(doc_id, offset, length))
    sys.stdout.write(part.text)
    if not part.text.endswith("\n"):
        sys.stdout.write("\n")
    sys.stdout.flush()
    more = f"; continue with --offset {part.next_offset}" if part.next_offset is not None else ""
    err.print(
        f"#{part.document_id} {part.document}: [{part.offset}:{part.end}] of {part.total}{more}"
    )
