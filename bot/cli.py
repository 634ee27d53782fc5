"""The `biomd` command, every subcommand of it: a thin layer over the engine's services.
Errors become messages only here, in one place (`Commands.invoke`)."""

from __future__ import annotations

import asyncio
import getpass
import json
import logging
import sys
from collections.abc import Awaitable, Callable
from dataclasses import asdict
from datetime import date
from pathlib import Path
from typing import Annotated, Any, TypeVar

import typer
from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    SpinnerColumn,
    TextColumn,
    TimeRemainingColumn,
)
from rich.table import Table
from typer.core import TyperGroup

from core.app.engine import Engine
from core.app.replies import cost_text, search_reply, turn_summary, turn_totals
from core.biographer.turn import TurnResult
from core.errors import BiomdError, EmbeddingError
from core.ingest.pipeline import IngestResult
from core.retrieval.search import MODES, Hit
from core.settings import Settings
from core.storage.reading import SetAside


class Commands(TyperGroup):
    """Every command, with one error handler: a biomd error is its message and exit status
    1; Ctrl-C says how to go on and exits 130."""

    def invoke(self, ctx: Any) -> Any:  # typer's own (vendored) click Context
        try:
            return super().invoke(ctx)
        except BiomdError as exc:
            err.print(f"[red]error:[/red] {exc.user_message}")
            raise typer.Exit(1) from None
        except KeyboardInterrupt:
            err.print("Stopped. Run the same command again to continue where it left off.")
            raise typer.Exit(130) from None


app = typer.Typer(
    cls=Commands,
    help="biomd: your life's sources in one SQLite file, searchable, and one cited bio.md.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
out = Console(highlight=False, soft_wrap=True)
err = Console(stderr=True, highlight=False)

T = TypeVar("T")
_state: dict[str, Settings] = {}


@app.callback()
def _main(
    data_dir: Annotated[
        Path | None, typer.Option("--data-dir", help="Data folder (default: BIOMD_DATA_DIR).")
    ] = None,
) -> None:
    overrides: dict[str, Any] = {"data_dir": data_dir} if data_dir else {}
    _state["settings"] = Settings(**overrides)


def _run(work: Callable[[Engine], Awaitable[T]]) -> T:
    """Open the engine, run `work`, close it."""

    async def go() -> T:
        async with await Engine.open(_state["settings"]) as engine:
            return await work(engine)

    return asyncio.run(go())


def _progress(transient: bool = True) -> Progress:
    return Progress(
        SpinnerColumn(),
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
        console=out,
        transient=transient,
    )


def _result_line(r: IngestResult) -> str:
    ident = f"#{r.document_id}" if r.document_id is not None else "-"
    if r.status == "added":
        return f"added      {ident:>6}  {r.name}  ({r.kind}, {r.chars:,} chars, {r.chunks} chunks)"
    if r.status == "duplicate":
        return f"duplicate  {ident:>6}  {r.name}  (already stored)"
    return f"failed     {ident:>6}  {r.error}"


async def _embed_with_progress(engine: Engine, *, reindex: bool = False) -> int:
    with _progress() as bar:
        task = bar.add_task("embedding", total=None)

        def tick(done: int, total: int) -> None:
            bar.update(task, completed=done, total=total)

        if reindex:
            return await engine.sources.reindex(tick)
        return await engine.sources.embed_pending(tick)


@app.command()
def ingest(
    paths: Annotated[list[Path], typer.Argument(help="Files and folders (recursive).")],
    embed: Annotated[
        bool, typer.Option("--embed/--no-embed", help="Compute vectors after indexing.")
    ] = True,
    read: Annotated[
        bool,
        typer.Option("--read/--no-read", help="Let the biographer read the new sources."),
    ] = True,
    yes: Annotated[bool, typer.Option("--yes", "-y", help=YES_HELP)] = False,
    mine: Annotated[bool, typer.Option("--mine", help=MINE_HELP)] = False,
    since: Annotated[str | None, typer.Option("--since", help=SINCE_HELP)] = None,
) -> None:
    """Add sources. One line per file, then a summary; exit status 1 if any file failed."""

    async def work(engine: Engine) -> dict[str, int]:
        counts = {"added": 0, "duplicate": 0, "failed": 0}
        with _progress() as bar:
            task = bar.add_task("indexing", total=None)

            def tick(name: str, chars: int) -> None:
                bar.update(task, description=f"indexing {name}: {chars / 1e6:,.1f}M chars")

            async for result in engine.sources.ingest(paths, on_progress=tick):
                counts[result.status] += 1
                bar.console.print(_result_line(result), markup=False)
        summary = ", ".join(f"{n} {k}" for k, n in counts.items())
        out.print(f"{summary}. Everything added is keyword-searchable now.")
        if embed:
            try:
                done = await _embed_with_progress(engine)
            except EmbeddingError as exc:
                err.print(f"[yellow]warning:[/yellow] {exc.user_message}")
                err.print("Vectors are still to do: run `biomd embed` once the model is available.")
            else:
                if done:
                    out.print(f"Embedded {done:,} chunks.")
        if read:
            await _read_new_sources(engine, _scope(yes, mine, since))
        return counts

    counts = _run(work)
    if counts["failed"]:
        raise typer.Exit(1)


YES_HELP = "Read every source whole, whatever the estimate (no question asked)."
MINE_HELP = "Read only your own messages, with a few lines around each."
SINCE_HELP = "Read only what was written since this date (YYYY-MM-DD)."


def _scope(yes: bool, mine: bool, since: str | None) -> str | None:
    """The reading the options ask for: all, mine, since:DATE; None to ask."""
    if sum((yes, mine, since is not None)) > 1:
        raise typer.BadParameter("Choose one of --yes, --mine and --since.")
    if since is not None:
        try:
            date.fromisoformat(since)
        except ValueError as exc:
            raise typer.BadParameter(f"--since {since!r} is not a date (YYYY-MM-DD).") from exc
        return f"since:{since}"
    return "mine" if mine else "all" if yes else None


async def _choose(engine: Engine, scope: str | None, ask_held: bool = True) -> None:
    """For each source whose reading waits for the owner (its estimate passes the
    threshold, or they said not now): the options' choice, else a question at the
    terminal, else how to choose."""
    for c in await engine.biography.cost.choices():
        r = c.reading
        name = f"#{r.document_id} {r.name}"
        if r.held and not ask_held and scope is None:
            continue
        if scope is not None:
            await engine.biography.cost.choose(r.document_id, scope)
            continue
        out.print(
            f"Reading {name} costs {c.all.describe()}; only your messages, {c.mine.describe()}.",
            markup=False,
        )
        if not sys.stdin.isatty():
            out.print(
                "  Not read yet: run `biomd analyse --pending` with --yes (all of it), --mine, "
                "or --since YYYY-MM-DD.",
                markup=False,
            )
            continue
        answer = typer.prompt("  Read [a]ll, only [m]ine, [s]ince a date, or [n]ot now?", "n")
        pick = answer.strip().lower()[:1]
        if pick == "a":
            await engine.biography.cost.choose(r.document_id, "all")
        elif pick == "m":
            await engine.biography.cost.choose(r.document_id, "mine")
        elif pick == "s":
            day = typer.prompt("  Since (YYYY-MM-DD)")
            await engine.biography.cost.choose(r.document_id, _scope(False, False, day) or "all")
        else:
            await engine.biography.cost.hold(r.document_id)
            out.print("  It waits; `biomd analyse --pending` asks again.", markup=False)


async def _read_new_sources(engine: Engine, scope: str | None = None) -> None:
    """Reading turns for what has not been read, or say how to run them later."""
    waiting = await engine.biography.reading.pending()
    if not waiting:
        return
    if not engine.biography.configured:
        out.print(
            f"{len(waiting)} source(s) wait for the biographer to read them. Configure an LLM "
            "(BIOMD_LLM_API_KEY, or a local BIOMD_LLM_BASE_URL), then run "
            "`biomd analyse --pending`."
        )
        return
    await _choose(engine, scope, ask_held=False)
    out.print(f"The biographer is reading {len(waiting)} new source(s)…")
    results = await engine.biography.reading.read_pending(on_step=_show_step)
    _summary(results)
    _not_read(await engine.biography.reading.set_aside())


async def _show_step(kind: str, detail: str) -> None:
    if kind == "tool":
        out.print(f"  → {detail}", markup=False, style="dim")


def _summary(results: list[TurnResult]) -> None:
    """Every turn's report with what it really did (as the bots say it), then the cost."""
    if results:
        out.print(turn_summary(results, hints=False), markup=False)
        out.print(turn_totals(results), markup=False, style="dim")


@app.command()
def ask(question: Annotated[str, typer.Argument(help="Anything about your life.")]) -> None:
    """Ask the biographer (one chat turn), showing its steps and what it cost. With no
    language model configured, cited search results instead."""

    async def work(engine: Engine) -> TurnResult | str:
        if not engine.biography.configured:
            hits = await engine.sources.search(question, limit=4)
            return search_reply(hits, question, engine.biography.missing)
        return await engine.biography.chat.ask(question, on_step=_show_step)

    result = _run(work)
    if isinstance(result, str):
        out.print(result, markup=False, highlight=False)
        return
    _summary([result])


@app.command()
def analyse(
    doc_id: Annotated[int | None, typer.Argument(help="Focus on one source.")] = None,
    pending: Annotated[
        bool, typer.Option("--pending", help="Read every source not read yet instead.")
    ] = False,
    retry: Annotated[
        bool,
        typer.Option("--retry", help="With --pending: try again the sources set aside as unread."),
    ] = False,
    yes: Annotated[bool, typer.Option("--yes", "-y", help=YES_HELP)] = False,
    mine: Annotated[bool, typer.Option("--mine", help=MINE_HELP)] = False,
    since: Annotated[str | None, typer.Option("--since", help=SINCE_HELP)] = None,
) -> None:
    """Let the biographer look for patterns (or read what is pending)."""
    scope = _scope(yes, mine, since)

    async def work(engine: Engine) -> list[TurnResult]:
        if pending:
            aside = await engine.biography.reading.set_aside()
            if not await engine.biography.reading.pending() and not (retry and aside):
                out.print("Nothing is waiting to be read.")
                _not_read(aside)
                return []
            await _choose(engine, scope)
            results = await engine.biography.reading.read_pending(on_step=_show_step, retry=retry)
            _not_read(await engine.biography.reading.set_aside())
            return results
        return [await engine.biography.analyse(doc_id, on_step=_show_step)]

    _summary(_run(work))


def _not_read(aside: list[SetAside]) -> None:
    """Say which sources the biographer gave up on, and why."""
    for a in aside:
        out.print(f"Not read: #{a.document_id} {a.name}: {a.why}.", markup=False, style="yellow")
    if aside:
        out.print("`biomd analyse --pending --retry` tries them again.", markup=False)


@app.command()
def bio() -> None:
    """Print bio.md."""
    sys.stdout.write(_run(lambda e: e.profile.load()))


@app.command()
def questions() -> None:
    """The open questions, with the ids `biomd answer` takes."""
    found = _run(lambda e: e.questions.open())
    for q in found:
        out.print(f"{q.id}  {q.text}", markup=False)
    if not found:
        out.print("No open questions.")


@app.command()
def timeline() -> None:
    """The Timeline section of bio.md."""
    items = _run(lambda e: e.profile.timeline())
    for item in items:
        out.print(f"- {item}", markup=False)
    if not items:
        out.print("The timeline is empty so far.")


@app.command()
def answer(
    question_id: Annotated[str, typer.Argument(help="A question id such as Q3.")],
    text: Annotated[str, typer.Argument(help="Your answer.")],
) -> None:
    """Answer an open question: the answer is kept as a source and analysed."""
    answered = _run(lambda e: e.answers.answer(question_id, text, on_step=_show_step))
    out.print(f"Your answer is source #{answered.document_id}.")
    _summary([answered.result])


@app.command()
def consolidate() -> None:
    """Rewrite bio.md as one coherent document, losing no citation or question."""
    changed = _run(lambda e: e.biography.budget.consolidate())
    out.print("bio.md consolidated" + (f": {', '.join(changed)} changed." if changed else "."))


@app.command()
def history(limit: Annotated[int, typer.Option("--limit", "-n", min=1)] = 20) -> None:
    """The latest revisions of bio.md."""
    table = Table("rev", "when", "turn", "mode", "reason")
    for r in _run(lambda e: e.profile.history(limit)):
        turn = str(r.turn_id) if r.turn_id is not None else "-"
        table.add_row(str(r.id), r.at[:19].replace("T", " "), turn, r.mode, r.reason)
    out.print(table)


@app.command()
def undo() -> None:
    """Revert the edits of the biographer's last turn (they stay in the history)."""
    done = _run(lambda e: e.profile.undo())
    out.print(f"Reverted the edits of turn {done.turn_id}." if done else "Nothing to undo.")


@app.command()
def cost() -> None:
    """LLM calls, tokens and spend: today, the last 30 days, all time."""

    out.print(cost_text(_run(lambda e: e.usage.account())), markup=False)


@app.command()
def embed() -> None:
    """Compute the vectors still missing (resumes an interrupted ingest or reindex)."""
    done = _run(_embed_with_progress)
    out.print(f"Embedded {done:,} chunks." if done else "Every chunk has its vector.")


@app.command()
def search(
    query: Annotated[str, typer.Argument(help="What to look for; `-` reads one query per line.")],
    limit: Annotated[int, typer.Option("--limit", "-n", min=1, max=1000)] = 10,
    mode: Annotated[str, typer.Option(help="hybrid, keyword or vector.")] = "hybrid",
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Hybrid search (vectors + keywords, fused)."""
    if mode not in MODES:
        raise typer.BadParameter(f"mode must be one of {', '.join(MODES)}", param_hint="--mode")

    async def work(engine: Engine) -> None:
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
            out.print("No matches.")
        for i, h in enumerate(hits, 1):
            out.print(f"[bold]{i}. #{h.document_id} {h.document}[/bold] [{h.start}:{h.end}]")
            if h.before.strip():
                out.print(
                    "   " + h.before.strip().replace("\n", "\n   "), style="dim", markup=False
                )
            out.print("   " + h.text.strip().replace("\n", "\n   "), markup=False)
            if h.after.strip():
                out.print("   " + h.after.strip().replace("\n", "\n   "), style="dim", markup=False)

    _run(work)


def _hits_json(query: str, hits: list[Hit]) -> dict[str, Any]:
    return {"query": query, "hits": [asdict(h) for h in hits]}


@app.command()
def grep(
    pattern: Annotated[
        str, typer.Argument(help="A word or phrase, matched ignoring case and accents.")
    ],
    offset: Annotated[int, typer.Option(min=0)] = 0,
    limit: Annotated[int, typer.Option("--limit", "-n", min=1)] = 50,
    exact: Annotated[bool, typer.Option("--exact", help="Match case and accents.")] = False,
    as_json: Annotated[bool, typer.Option("--json")] = False,
) -> None:
    """Every mention of a word or phrase, with source and position."""
    page = _run(lambda e: e.sources.grep(pattern, offset, limit, exact))
    if as_json:
        print(json.dumps(asdict(page), ensure_ascii=False, indent=2))
        return
    for m in page.mentions:
        out.print(f"#{m.document_id} {m.document} @{m.position}: {m.line}", markup=False)
    shown = len(page.mentions)
    out.print(
        f"{page.total} mentions" + (f", showing {offset + 1}–{offset + shown}" if shown else "")
    )


@app.command()
def read(
    doc_id: Annotated[int, typer.Argument(help="Source id, as in `biomd sources`.")],
    offset: Annotated[int, typer.Option(min=0)] = 0,
    length: Annotated[int | None, typer.Option(min=1)] = None,
) -> None:
    """Print an exact slice of a source's text."""
    part = _run(lambda e: e.sources.read(doc_id, offset, length))
    sys.stdout.write(part.text)
    if not part.text.endswith("\n"):
        sys.stdout.write("\n")
    sys.stdout.flush()
    more = f"; continue with --offset {part.next_offset}" if part.next_offset is not None else ""
    err.print(
        f"#{part.document_id} {part.document}: [{part.offset}:{part.end}] of {part.total}{more}"
    )


@app.command()
def sources(as_json: Annotated[bool, typer.Option("--json")] = False) -> None:
    """List every source."""
    rows = _run(lambda e: e.sources.states())
    rows.sort(key=lambda r: r.source.id)
    if as_json:
        listed = [
            asdict(r.source) | {"reading": asdict(r.reading) if r.reading else None} for r in rows
        ]
        print(json.dumps(listed, ensure_ascii=False, indent=2))
        return
    table = Table("id", "name", "kind", "lang", "chunks", "added", "status", "reading")
    for r in rows:
        d = r.source
        status = d.status if d.status != "failed" else f"failed: {d.error}"
        reading = r.reading.describe() if r.reading else ""
        table.add_row(
            f"#{d.id}", d.name, d.kind, d.languages, str(d.n_chunks), d.added_at[:10], status,
            reading,
        )  # fmt: skip
    out.print(table)


@app.command()
def share(
    audience: Annotated[
        str | None,
        typer.Option("--for", help="close, therapist, work, assistant, me, or one you saved."),
    ] = None,
    show: Annotated[list[str], typer.Option("--show", help="Show this person by name.")] = [],  # noqa: B006
    hide: Annotated[list[str], typer.Option("--hide", help="Hide this name too.")] = [],  # noqa: B006
    add: Annotated[
        list[str], typer.Option("--with", help="Put this section in (e.g. hypotheses).")
    ] = [],  # noqa: B006
    drop: Annotated[list[str], typer.Option("--without", help="Leave this section out.")] = [],  # noqa: B006
    quote: Annotated[list[str], typer.Option("--quote", help="Keep this quote from bio.md.")] = [],  # noqa: B006
    low: Annotated[
        bool, typer.Option("--low-confidence", help="Keep low-confidence inferences too.")
    ] = False,
    fmt: Annotated[str | None, typer.Option("--format", help="html, md or text.")] = None,
    limit: Annotated[int | None, typer.Option("--limit", help="Most characters.")] = None,
    target: Annotated[Path | None, typer.Option("--out", help="The file to write.")] = None,
    yes: Annotated[bool, typer.Option("--yes", help="Accept the scan's findings.")] = False,
    remove: Annotated[
        bool, typer.Option("--remove-findings", help="Replace what the scan found.")
    ] = False,
    preview: Annotated[bool, typer.Option("--preview", help="Print it; save nothing.")] = False,
    rules: Annotated[
        bool, typer.Option("--rules", help="Tidy bio.md by rules; no model writes it.")
    ] = False,
    card: Annotated[
        bool, typer.Option("--card", help="Also a one-page PNG card, beside the file.")
    ] = False,
    save_as: Annotated[
        str | None, typer.Option("--save-audience", help="Keep these choices under a name.")
    ] = None,
    listing: Annotated[bool, typer.Option("--list", help="List the saved shares.")] = False,
    reopen: Annotated[int | None, typer.Option("--open", help="Print a saved share.")] = None,
    delete: Annotated[int | None, typer.Option("--delete", help="Delete a saved share.")] = None,
) -> None:
    """Share a portrait of yourself, written from bio.md for someone: other people by role
    or initial, no source text, and a privacy scan before anything is saved."""
    from core.biographer.share.audiences import FORMATS, Choice

    if listing:
        return _list_shares()
    if reopen is not None:
        _, content = _run(lambda e: e.shares.content(reopen))
        sys.stdout.write(content.decode("utf-8"))
        return None
    if delete is not None:
        gone = _run(lambda e: e.shares.delete(delete))
        out.print(f"Deleted share #{gone.id} ({gone.audience}, {gone.path}).", markup=False)
        return None
    if audience is None:
        raise typer.BadParameter("say who it is for: --for close|therapist|work|assistant|me")
    if fmt is not None and fmt not in FORMATS:
        raise typer.BadParameter(f"--format is one of {', '.join(FORMATS)}")
    choice = Choice(
        add=tuple(add), drop=tuple(drop), show=tuple(show), hide=tuple(hide),
        quotes=tuple(quote), limit=limit, format=fmt, low_confidence=low or None,
    )  # fmt: skip

    async def go(engine: Engine) -> None:
        from core.app.shares.service import card_path, render

        model = not rules and engine.biography.configured
        draft = await engine.shares.draft(audience, choice, model=model)
        if save_as:
            await engine.shares.save_audience(save_as, draft.audience)
            err.print(f"Saved these choices as the audience '{save_as}'.", markup=False)
        _describe_draft(draft)
        if draft.portrait.refused:
            err.print(f"{len(draft.portrait.refused)} sentence(s) of the model's rested on "
                      "nothing in bio.md and were left out.", markup=False)  # fmt: skip
        if preview:
            sys.stdout.write(render(draft.portrait, "text", ""))
            return
        path = target or engine.shares.default_path(draft.audience)
        record = await engine.shares.save(draft, path, accept=yes, remove=remove, card=card)
        note = f", {record.size:,} characters" if record.format == "text" else ""
        out.print(f"Saved share #{record.id}: {record.path}{note}", markup=False)
        if card:
            out.print(f"The card: {card_path(Path(record.path))}", markup=False)

    _run(go)
    return None


def _describe_draft(draft: Any) -> None:
    """What a draft holds, on stderr: sections, and how each person appears."""
    sections = ", ".join(p.heading for p in draft.portrait.parts) or "(nothing yet)"
    err.print(f"For {draft.audience.title}: {sections}", markup=False)
    for p in draft.people:
        how = "by name" if p.shown == "name" else f"as '{p.label}'"
        err.print(f"  {p.name}: {how}", markup=False)
    if draft.findings:
        err.print(f"The privacy scan found {len(draft.to_resolve)} thing(s):", markup=False)
    for f in draft.to_resolve:
        err.print(f"  {f.kind:<12} {f.text}", markup=False)


def _list_shares() -> None:
    rows = _run(lambda e: e.shares.all())
    table = Table("id", "made", "for", "format", "sections", "named", "file")
    for r in rows:
        table.add_row(
            f"#{r.id}", r.created_at[:16].replace("T", " "), r.audience, r.format,
            ", ".join(r.sections), ", ".join(r.shown) or "-", r.path,
        )  # fmt: skip
    out.print(table)


@app.command()
def mirror(
    person: Annotated[str | None, typer.Option("--person", help="Only this person.")] = None,
    since: Annotated[str | None, typer.Option("--since", help="From this date on.")] = None,
    until: Annotated[str | None, typer.Option("--until", help="Up to this date.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
    refresh: Annotated[
        bool, typer.Option("--refresh", help="Look for new patterns in the notes first (a model).")
    ] = False,
    design: Annotated[
        str | None, typer.Option("--design", help="judge or whole (default BIOMD_MIRROR_DESIGN).")
    ] = None,
    yes: Annotated[
        bool, typer.Option("--yes", "-y", help="Don't ask before a costly pass.")
    ] = False,
    confirm: Annotated[str | None, typer.Option("--confirm", help="That's me: ID.")] = None,
    dismiss: Annotated[str | None, typer.Option("--dismiss", help="Not me: ID.")] = None,
    answer: Annotated[
        str | None, typer.Option("--answer", help="There's more to it: ID (with --text).")
    ] = None,
    text: Annotated[str | None, typer.Option("--text", help="Your answer.")] = None,
    ask: Annotated[
        str | None, typer.Option("--ask", help="Make an intention an open question: ID.")
    ] = None,
    take_back: Annotated[
        str | None, typer.Option("--take-back", help="Forget what you said of ID.")
    ] = None,
    dismissed: Annotated[
        bool, typer.Option("--dismissed", help="Show what you dismissed too.")
    ] = False,
) -> None:
    """The mirror: how you talk with each person over the years (measured from your
    messages), the shifts that matter, and the patterns found across your notes, each with
    its evidence. A mirror, not a therapist."""
    from core.app.mirror import text as mirror_text

    if design is not None and design not in ("judge", "whole"):
        raise typer.BadParameter("--design is judge or whole")

    async def work(engine: Engine) -> None:
        m = engine.mirror
        if confirm:
            out.print(await m.confirm(confirm), markup=False)
            return
        if dismiss:
            out.print(await m.dismiss(dismiss), markup=False)
            return
        if take_back:
            out.print(await m.take_back(take_back), markup=False)
            return
        if answer:
            if not text:
                raise typer.BadParameter("--answer ID needs --text 'what there is to it'")
            doc_id = await m.answer(answer, text)
            out.print(f"Your answer is source #{doc_id}; the biographer reads it next.")
            if engine.biography.configured:
                _summary(await engine.biography.reading.read_pending(on_step=_show_step))
            return
        if ask:
            out.print(await m.ask_later(ask), markup=False)
            return
        if refresh:
            await _mirror_pass(engine, design, yes)
        view = await m.view(person, since, until)
        if as_json:
            print(json.dumps(view.as_json(), ensure_ascii=False, indent=2))
            return
        out.print(mirror_text.render(view, dismissed), markup=False, highlight=False)

    _run(work)


async def _mirror_pass(engine: Engine, design: str | None, yes: bool) -> None:
    """The notes pass, estimated first; asked about when it costs more than reading one
    source would before asking (BIOMD_READ_CONFIRM_USD)."""
    m = engine.mirror
    plan = await m.plan(design)
    if not plan.calls:
        err.print("The mirror's notes pass: nothing new to judge.", markup=False)
        return
    err.print(
        f"The mirror's notes pass ({plan.design}): {plan.calls} call(s) over {plan.notes:,} "
        f"notes, {plan.estimate.describe()}.",
        markup=False,
    )
    costly = (plan.estimate.usd or 0) > engine.settings.read_confirm_usd
    if costly and not yes:
        if not sys.stdin.isatty():
            raise BiomdError(
                "The pass costs more than BIOMD_READ_CONFIRM_USD: add --yes to run it."
            )
        typer.confirm("Run it?", abort=True)
    with _progress() as bar:
        task = bar.add_task("judging", total=plan.calls)

        async def tick(done: int, total: int) -> None:
            bar.update(task, completed=done, total=total)

        report = await m.refresh(design, tick)
    line = (
        f"Judged {report.judged}: {report.yes} pattern(s), {report.failed} unreadable "
        f"repl{'y' if report.failed == 1 else 'ies'}; "
        f"{report.prompt_tokens + report.completion_tokens:,} tokens."
    )
    if report.dropped:
        line += f" {report.dropped} proposal(s) dropped: their evidence did not hold."
    err.print(line, markup=False)
    if report.stopped:
        err.print(f"Stopped early: {report.stopped}", markup=False, style="yellow")


@app.command()
def forget(
    doc_id: Annotated[int, typer.Argument(help="Source id, as in `biomd sources`.")],
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Do not ask.")] = False,
) -> None:
    """Delete a source everywhere: text, index, vectors and the kept raw file."""
    if not yes and sys.stdin.isatty():
        doc = _run(lambda e: e.sources.get(doc_id))
        typer.confirm(f"Forget #{doc.id} {doc.name} for good?", abort=True)
    doc = _run(lambda e: e.sources.forget(doc_id))
    out.print(f"Forgot #{doc.id} {doc.name}.", markup=False)


@app.command()
def stats() -> None:
    """Corpus size and the state of the index."""
    s = _run(lambda e: e.sources.stats())
    settings = _state["settings"]
    out.print(f"data dir     {settings.data_dir.resolve()}", markup=False)
    out.print(f"sources      {s.documents:,} ready, {s.pending:,} pending, {s.failed:,} failed")
    out.print(f"text         {s.text_chars:,} characters in {s.chunks:,} chunks")
    out.print(f"vectors      {s.vectors:,} ({s.vectors_missing:,} still to embed)")
    out.print(f"storage      database {_mb(s.db_bytes)}, raw files {_mb(s.raw_bytes)}")
    model = s.embed_model or "(none yet)"
    out.print(f"model        {model}", markup=False)
    if s.switching:
        out.print(
            f"[yellow]switching to {s.configured_model} (BIOMD_EMBED_MODEL): "
            f"{s.next_vectors:,} of {s.chunks:,} chunks re-embedded. Search uses {model} "
            "until `biomd reindex` (or the running bot) finishes.[/yellow]"
        )


def _mb(n: int) -> str:
    return f"{n / 1e6:,.1f} MB"


@app.command()
def reindex() -> None:
    """Re-embed everything with the configured model (after changing BIOMD_EMBED_MODEL);
    search keeps the old vectors until the new ones are all made. Resumable."""
    done = _run(lambda e: _embed_with_progress(e, reindex=True))
    model = _state["settings"].embed_model
    out.print(f"Re-embedded {done:,} chunks; search now uses {model}.", markup=False)


@app.command(name="export")
def export_backup(
    target: Annotated[Path, typer.Argument(help="Archive to write (.tar, or .tar.gz).")],
) -> None:
    """Back everything up into one file (safe while the bot runs)."""
    from core.storage.backup import export

    settings = _state["settings"]
    summary = export(settings.data_dir, target)
    out.print(
        f"Wrote {target}: {summary.documents:,} sources, {summary.raw_files:,} raw files, "
        f"{summary.revisions:,} revisions of bio.md, {_mb(summary.bytes)}.",
        markup=False,
    )


@app.command(name="import")
def import_backup(
    archive: Annotated[Path, typer.Argument(help="An archive made by `biomd export`.")],
) -> None:
    """Restore a backup into an empty data dir."""
    from core.storage.backup import restore

    settings = _state["settings"]
    summary = restore(archive, settings.data_dir)
    out.print(
        f"Restored {summary.documents:,} sources, {summary.raw_files:,} raw files and "
        f"{summary.revisions:,} revisions of bio.md into {settings.data_dir}.",
        markup=False,
    )


@app.command(name="run")
def run_bot(
    open_browser: Annotated[
        bool, typer.Option("--open", help="Open the web view in the browser.")
    ] = False,
) -> None:
    """Start the Telegram and/or Discord bot and the web view; with no bot configured, a
    terminal session (and the web view) over a sample life."""
    from bot.runner import configured_platforms, run

    settings = _state["settings"]
    if not configured_platforms(settings):
        from bot.terminal import open_sample_session

        out.print(NO_BOT_YET, markup=False)
        open_sample_session(settings, open_browser=open_browser)
        return
    run(settings, open_browser=open_browser)


@app.command()
def web(
    open_browser: Annotated[bool, typer.Option("--open", help="Open it in the browser.")] = False,
) -> None:
    """Serve the web view alone (with the job worker), over your own data."""
    from bot.runner import run

    run(_state["settings"], web_only=True, open_browser=open_browser)


@app.command()
def mcp(
    allow_notes: Annotated[
        bool,
        typer.Option(
            "--allow-notes", help="Add the remember(note) tool, which keeps a note as a source."
        ),
    ] = False,
) -> None:
    """Serve your memory to other assistants (Claude, Codex, Cursor…) over MCP on stdio.
    Read-only unless --allow-notes."""
    from bot.mcp_server import run_stdio

    run_stdio(_state["settings"], allow_notes)


@app.command()
def chat(
    sample: Annotated[
        bool, typer.Option("--sample", help="Over the bundled sample life, not your data.")
    ] = False,
) -> None:
    """Talk to the biographer in the terminal, as you would to the bot."""
    from bot.terminal import open_sample_session, open_session

    (open_sample_session if sample else open_session)(_state["settings"])


@app.command()
def setup(
    env_file: Annotated[Path, typer.Option("--env-file", help="The .env to write.")] = Path(".env"),
) -> None:
    """A friendly walk-through that writes .env: language model, Telegram, Discord, schedule."""
    from bot.setup import Wizard

    class Terminal:
        def ask(self, question: str, default: str = "", secret: bool = False) -> str:
            try:
                if secret and sys.stdin.isatty():  # typed keys are not shown on screen
                    return getpass.getpass(f"{question}: ").strip()
                answer = input(f"{question}{f' [{default}]' if default else ''}: ").strip()
            except EOFError:
                return default
            return answer or default

        def say(self, text: str) -> None:
            out.print(text, markup=False, highlight=False)

    wizard = Wizard(_state["settings"], Terminal())
    try:
        asyncio.run(wizard.run(env_file, template=Path(".env.example")))
    except KeyboardInterrupt:
        err.print("\nStopped; .env was not changed.")
        raise typer.Exit(130) from None


@app.command()
def doctor(
    offline: Annotated[
        bool, typer.Option("--offline", help="Skip the checks that need the network.")
    ] = False,
    env_file: Annotated[Path, typer.Option("--env-file")] = Path(".env"),
) -> None:
    """Check configuration, models, data dir, store, LLM, bot tokens and schedule."""
    from bot.doctor import FAIL, examine, render

    findings = asyncio.run(examine(_state["settings"], env_file, network=not offline))
    out.print(render(findings), markup=False, highlight=False)
    if any(f.status == FAIL for f in findings):
        raise typer.Exit(1)


NO_BOT_YET = (
    "No Telegram or Discord bot is configured yet, so here is biomd in your terminal with a "
    "sample life. `biomd setup` sets up your own private bot."
)


def main() -> None:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s %(message)s")
    for noisy in ("httpx", "httpcore", "apscheduler", "discord", "telegram", "mcp"):
        logging.getLogger(noisy).setLevel(logging.WARNING)
    logging.getLogger("pypdf").setLevel(logging.ERROR)  # broken PDFs get our own clear message
    app()
