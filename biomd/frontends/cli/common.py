"""What every command shares: the consoles, the settings from the command line, the engine
opened for one command, the progress bar, and how a biomd turn is shown."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterable, Sequence
from typing import TypeVar

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
from rich.table import Column, Table

from biomd.app.asking import TurnResult
from biomd.app.engine import Engine
from biomd.app.replies import search_prepared, turn_summary, turn_totals
from biomd.app.sources import Loading
from biomd.settings import Settings

out = Console(highlight=False, soft_wrap=True)
err = Console(stderr=True, highlight=False, soft_wrap=True)  # the terminal wraps, not rich

T = TypeVar("T")


def settings_of(ctx: typer.Context) -> Settings:
    """The settings `biomd`'s own options made (kept on the context by the main callback)."""
    return ctx.ensure_object(Settings)


def run(ctx: typer.Context, work: Callable[[Engine], Awaitable[T]]) -> T:
    """Open the engine, run `work`, close it."""

    async def go() -> T:
        async with await Engine.open(settings_of(ctx)) as engine:
            return await work(engine)

    return asyncio.run(go())


NARROW = 110  # columns; a terminal narrower than this gets a table's rows as cards


def print_table(headers: Sequence[str], rows: Iterable[Sequence[str]]) -> None:
    """Rows under their headers: at a terminal a table whose cells wrap rather than lose
    their ends; piped, tab-separated lines, whole, for the next program."""
    if not out.is_terminal:
        clean = str.maketrans({"\t": " ", "\n": " ", "\r": " "})
        for row in (headers, *rows):
            print("\t".join(cell.translate(clean) for cell in row))
        return
    if out.width < NARROW and len(headers) > 4:  # a card a row: nothing wraps mid-word
        for row in rows:
            out.print(f"{row[0]}  {row[1]}", markup=False, style="bold")
            rest = [
                f"{h}: {v}" for h, v in zip(headers[2:], row[2:], strict=True) if v not in ("", "-")
            ]
            out.print("    " + " · ".join(rest), markup=False)
        return
    table = Table(*(Column(h, overflow="fold") for h in headers))
    for row in rows:
        table.add_row(*row)
    out.print(table)


def progress(transient: bool = True, console: Console = out) -> Progress:
    return Progress(
        SpinnerColumn(),
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
        console=console,
        transient=transient,
    )


async def search_ready(engine: Engine) -> None:
    """Get vector search ready before the first query, with a progress bar on stderr while it
    turns stored vectors into codes (once, after they are written; about 16 s a million)."""
    with progress(console=err) as bar:
        task = None

        async def tell(loading: Loading) -> None:
            nonlocal task
            if task is None:
                task = bar.add_task("Getting search ready (once)", total=loading.total)
            bar.update(task, completed=loading.done)

        await engine.sources.prepare_search(tell)
    if (last := engine.sources.last_search_load()) is not None:
        err.print(search_prepared(last), markup=False, style="dim")


async def show_step(kind: str, detail: str) -> None:
    """A research step of the biographer's, as it happens."""
    if kind == "tool":
        out.print(f"  → {detail}", markup=False, style="dim")


def summary(results: Sequence[TurnResult]) -> None:
    """Every turn's report with what it really did (as the bots say it), then the cost."""
    if results:
        out.print(turn_summary(results, hints=False), markup=False)
        out.print(turn_totals(results), markup=False, style="dim")


def mb(n: int) -> str:
    return f"{n / 1e6:,.1f} MB"
