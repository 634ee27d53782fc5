"""Reading what is new, from the terminal: `biomd analyse`, and the end of `biomd ingest`.
The owner's choice for a costly source comes from the options, else from a question at the
terminal, else it waits (biomd/app/reading.py does the rest)."""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from biomd.app import reading
from biomd.app.asking import TurnResult
from biomd.app.engine import Engine
from biomd.app.reading import Decide, ReadingChoice, SetAside
from biomd.app.replies import counted
from biomd.errors import BiomdError, LLMNotConfigured
from biomd.frontends.cli.common import out, run, show_step, summary

YES_HELP = "Read every source whole, whatever the estimate (no question asked)."
MINE_HELP = "Read only your own messages, with a few lines around each."
SINCE_HELP = "Read only what was written since this date (YYYY-MM-DD)."
Yes = Annotated[bool, typer.Option("--yes", "-y", help=YES_HELP)]
Mine = Annotated[bool, typer.Option("--mine", help=MINE_HELP)]
Since = Annotated[str | None, typer.Option("--since", help=SINCE_HELP)]


def scope_of(yes: bool, mine: bool, since: str | None) -> str | None:
    """The reading the options ask for: all, mine, since:DATE; None to ask."""
    if sum((yes, mine, since is not None)) > 1:
        raise typer.BadParameter("Choose one of --yes, --mine and --since.")
    if since is not None:
        try:
            return reading.scope("since", since)
        except BiomdError:
            raise typer.BadParameter(f"--since {since!r} is not a date (YYYY-MM-DD).") from None
    return "mine" if mine else "all" if yes else None


def decider(scope: str | None, ask_held: bool = True) -> Decide:
    """For each source whose reading waits for the owner (its estimate passes the
    threshold, or they said not now): the options' choice, else a question at the
    terminal, else how to choose."""

    async def decide(c: ReadingChoice) -> str | None:
        r = c.reading
        if scope is not None:
            return scope
        if r.held and not ask_held:
            return None
        out.print(
            f"Reading #{r.document_id} {r.name} costs {c.all.describe()}; only your messages, "
            f"{c.mine.describe()}.",
            markup=False,
        )
        if not sys.stdin.isatty():
            out.print(
                "  Not read yet: run `biomd analyse --pending` with --yes (all of it), --mine, "
                "or --since YYYY-MM-DD.",
                markup=False,
            )
            return None
        answer = typer.prompt("  Read [a]ll, only [m]ine, [s]ince a date, or [n]ot now?", "n")
        pick = answer.strip().lower()[:1]
        if pick == "s":
            return reading.scope("since", typer.prompt("  Since (YYYY-MM-DD)"))
        if pick in ("a", "m"):
            return "all" if pick == "a" else "mine"
        out.print("  It waits; `biomd analyse --pending` asks again.", markup=False)
        return reading.LATER

    return decide


async def say_reading(count: int) -> None:
    if count:
        out.print(f"The biographer is reading {counted(count, 'new source')}…")


async def read_new_sources(engine: Engine, scope: str | None = None) -> None:
    """Reading turns for what has not been read, or say how to run them later."""
    done = await reading.read_new(
        engine.biographer,
        decide_each=decider(scope, ask_held=False),
        on_start=say_reading,
        on_step=show_step,
    )
    if not done.pending:
        return
    if done.missing:
        out.print(
            f"Not read by the biographer yet: {counted(done.pending, 'source')}. Configure an LLM "
            "(BIOMD_LLM_API_KEY, or a local BIOMD_LLM_BASE_URL), then run "
            "`biomd analyse --pending`."
        )
        return
    summary(done.results)
    not_read(done.set_aside)


def not_read(aside: list[SetAside]) -> None:
    """Say which sources the biographer gave up on, and why."""
    for a in aside:
        out.print(f"Not read: #{a.document_id} {a.name}: {a.why}.", markup=False, style="yellow")
    if aside:
        out.print("`biomd analyse --pending --retry` tries them again.", markup=False)


def analyse(
    ctx: typer.Context,
    doc_id: Annotated[int | None, typer.Argument(help="Focus on one source.")] = None,
    pending: Annotated[
        bool, typer.Option("--pending", help="Read every source not read yet instead.")
    ] = False,
    retry: Annotated[
        bool,
        typer.Option("--retry", help="With --pending: try again the sources set aside as unread."),
    ] = False,
    yes: Yes = False,
    mine: Mine = False,
    since: Since = None,
) -> None:
    """Let the biographer look for patterns (or read what is pending)."""
    scope = scope_of(yes, mine, since)

    async def work(engine: Engine) -> list[TurnResult]:
        if not pending:
            return [await engine.biographer.analyse(doc_id, on_step=show_step)]
        aside = await engine.biographer.reading.set_aside()
        if not await engine.biographer.reading.pending() and not (retry and aside):
            out.print("Nothing is waiting to be read.")
            not_read(aside)
            return []
        done = await reading.read_new(
            engine.biographer, decide_each=decider(scope), retry=retry, on_step=show_step
        )
        if done.missing:
            raise LLMNotConfigured(done.missing)
        not_read(done.set_aside)
        return done.results

    summary(run(ctx, work))
