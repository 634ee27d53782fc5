"""The owner's sources: `biomd ingest`, `sources`, `forget` and `stats`, and their vectors
(`embed`, `reindex`)."""

from __future__ import annotations

import json
import sys
from dataclasses import asdict
from pathlib import Path
from typing import Annotated

import typer

from biomd.app.engine import Engine
from biomd.app.replies import counted, covers
from biomd.app.sources import NO_READER, IngestResult, SourceRow
from biomd.errors import EmbeddingError, EmbeddingWaits
from biomd.frontends.cli.common import err, mb, out, print_table, progress, run, settings_of
from biomd.frontends.cli.groups import Group
from biomd.frontends.cli.reading import Mine, Since, Yes, read_new_sources, scope_of


def ingest(
    ctx: typer.Context,
    paths: Annotated[list[Path], typer.Argument(help="Files and folders (recursive).")],
    embed: Annotated[
        bool, typer.Option("--embed/--no-embed", help="Compute vectors after indexing.")
    ] = True,
    read: Annotated[
        bool,
        typer.Option("--read/--no-read", help="Let the biographer read the new sources."),
    ] = True,
    yes: Yes = False,
    mine: Mine = False,
    since: Since = None,
) -> None:
    """Add sources. One line per file, then a summary; exit status 1 if any file failed."""
    scope = scope_of(yes, mine, since)

    async def work(engine: Engine) -> dict[str, int]:
        counts = {"added": 0, "duplicate": 0, "failed": 0}
        with progress() as bar:
            task = bar.add_task("indexing", total=None)

            def tick(name: str, chars: int) -> None:
                bar.update(task, description=f"indexing {name}: {chars / 1e6:,.1f}M chars")

            async for result in engine.sources.ingest(paths, on_progress=tick):
                counts[result.status] += 1
                bar.console.print(_result_line(result), markup=False)
        summary = ", ".join(f"{n} {k}" for k, n in counts.items() if n) or "Nothing to add"
        searchable = " Everything added is keyword-searchable now." if counts["added"] else ""
        out.print(f"{summary}.{searchable}")
        if embed:
            try:
                done = await _embed_with_progress(engine)
            except EmbeddingWaits:  # said in full when it failed; once is enough
                err.print("Vectors wait for the embedding model (`biomd doctor` says why).")
            except EmbeddingError as exc:
                err.print(f"[yellow]warning:[/yellow] {exc.user_message}")
            else:
                if done:
                    out.print(f"Embedded {counted(done, 'chunk')}.")
        if read:
            await read_new_sources(engine, scope)
        return counts

    counts = run(ctx, work)
    if counts["failed"]:
        raise typer.Exit(1)


def _result_line(r: IngestResult) -> str:
    ident = f"#{r.document_id}" if r.document_id is not None else "-"
    note = f"; {r.note}" if r.note else ""
    if r.status == "added":
        size = f"{counted(r.chars, 'char')}, {counted(r.chunks, 'chunk')}"
        return f"added      {ident:>6}  {r.name}  ({r.kind}, {size}{note})"
    if r.status == "duplicate":
        return f"duplicate  {ident:>6}  {r.name}  ({r.note or 'already stored'})"
    return f"failed     {ident:>6}  {r.error}"


async def _embed_with_progress(
    engine: Engine, *, reindex: bool = False, retry: bool = False
) -> int:
    with progress() as bar:
        task = bar.add_task("embedding", total=None)

        def tick(done: int, total: int) -> None:
            bar.update(task, completed=done, total=total)

        if reindex:
            return await engine.sources.reindex(tick)
        return await engine.sources.embed_pending(tick, retry=retry)


def embed(ctx: typer.Context) -> None:
    """Compute the vectors still missing (resumes an interrupted ingest or reindex)."""
    done = run(ctx, lambda e: _embed_with_progress(e, retry=True))
    out.print(f"Embedded {counted(done, 'chunk')}." if done else "Every chunk has its vector.")


def reindex(ctx: typer.Context) -> None:
    """Re-embed everything with the configured model (after changing BIOMD_EMBED_MODEL);
    search keeps the old vectors until the new ones are all made. Resumable."""
    done = run(ctx, lambda e: _embed_with_progress(e, reindex=True))
    model = settings_of(ctx).embed.model
    out.print(f"Re-embedded {counted(done, 'chunk')}; search now uses {model}.", markup=False)


class SourcesGroup(Group):
    default = "list"  # `biomd sources` and `biomd sources --json` list them, as always


app = typer.Typer(
    cls=SourcesGroup,
    help="Your sources: list them (the default), or keep one from your other assistants.",
)


@app.command("list")
def sources(ctx: typer.Context, as_json: Annotated[bool, typer.Option("--json")] = False) -> None:
    """List every source."""
    rows = run(ctx, lambda e: e.sources.states())
    rows.sort(key=lambda r: r.source.id)
    if as_json:
        listed = [
            asdict(r.source) | {"reading": asdict(r.reading) if r.reading else None} for r in rows
        ]
        print(json.dumps(listed, ensure_ascii=False, indent=2))
        return
    headers = ("id", "name", "kind", "lang", "chunks", "covers", "added", "status", "reading")
    print_table(headers, [_source_row(r) for r in rows])
    if any(r.reading and r.reading.why == NO_READER for r in rows):
        err.print("No language model is set up to read them: `biomd setup` connects one.")


def _source_row(r: SourceRow) -> tuple[str, ...]:
    d = r.source
    status = d.status if d.status != "failed" else f"failed: {_reason(d.error, d.name)}"
    status += ", private" if d.private else ""
    status += f", continues #{r.continues}" if r.continues else ""
    reading = r.reading.describe() if r.reading else ""
    span = covers(d.content_start, d.content_end) or "-"
    return (
        f"#{d.id}", d.name, d.kind, d.languages, str(d.n_chunks), span, d.added_at[:10],
        status, reading,
    )  # fmt: skip


@app.command()
def private(
    ctx: typer.Context,
    doc_id: Annotated[int, typer.Argument(help="Source id, as in `biomd sources`.")],
    off: Annotated[bool, typer.Option("--off", help="Share it with them again.")] = False,
) -> None:
    """Keep a source from your other assistants (MCP, Hermes, OpenClaw): no tool, recall or
    portrait shows it, a note or a quote from it, or a bio.md line resting only on it. It
    stays yours to search and read."""
    doc = run(ctx, lambda e: e.sources.set_private(doc_id, not off))
    if doc.private:
        out.print(f"#{doc.id} {doc.name} is private: your assistants don't see it.", markup=False)
    else:
        out.print(f"#{doc.id} {doc.name} is shared with your assistants again.", markup=False)


def _reason(error: str | None, name: str) -> str:
    """Why a source failed, without its name, which the row already shows."""
    return (error or "").removeprefix(f"{name}: ") or "unknown"


def forget(
    ctx: typer.Context,
    doc_id: Annotated[int, typer.Argument(help="Source id, as in `biomd sources`.")],
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Do not ask.")] = False,
) -> None:
    """Delete a source everywhere: text, index, vectors and the kept raw file."""
    if not yes and sys.stdin.isatty():
        doc = run(ctx, lambda e: e.sources.get(doc_id))
        typer.confirm(f"Forget #{doc.id} {doc.name} for good?", abort=True)
    doc = run(ctx, lambda e: e.sources.forget(doc_id))
    out.print(f"Forgot #{doc.id} {doc.name}.", markup=False)


def stats(ctx: typer.Context) -> None:
    """Corpus size and the state of the index."""
    s = run(ctx, lambda e: e.sources.stats())
    out.print(f"data dir     {settings_of(ctx).data_dir.resolve()}", markup=False)
    out.print(f"sources      {s.documents:,} ready, {s.pending:,} pending, {s.failed:,} failed")
    out.print(f"text         {counted(s.text_chars, 'character')} in {counted(s.chunks, 'chunk')}")
    out.print(f"vectors      {s.vectors:,} ({s.vectors_missing:,} still to embed)")
    out.print(f"storage      database {mb(s.db_bytes)}, raw files {mb(s.raw_bytes)}")
    model = s.embed_model or "(none yet)"
    out.print(f"model        {model}", markup=False)
    if s.switching:
        out.print(
            f"[yellow]switching to {s.configured_model} (BIOMD_EMBED_MODEL): "
            f"{s.next_vectors:,} of {counted(s.chunks, 'chunk')} re-embedded. Search uses {model} "
            "until `biomd reindex` (or the running bot) finishes.[/yellow]"
        )
