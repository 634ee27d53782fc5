"""`biomd mirror`: how you talk with each person over the years (measured from your
messages), the shifts that matter, and the patterns found across your notes, each with its
evidence; and your word on each (`confirm`, `dismiss`, `answer`, `ask`, `take-back`). A
mirror, not a therapist."""

from __future__ import annotations

import json
import sys
from collections.abc import Awaitable, Callable
from typing import Annotated

import typer

from biomd.app import reading
from biomd.app.engine import Engine
from biomd.app.mirror import text as mirror_text
from biomd.app.mirror.service import Mirror
from biomd.app.replies import counted
from biomd.errors import BiomdError
from biomd.frontends.cli.common import err, out, progress, run, show_step, summary
from biomd.frontends.cli.groups import Group, take

SAID = ("confirm", "dismiss", "take-back", "ask", "answer")


class MirrorGroup(Group):
    default = "show"

    def old(self, args: list[str]) -> list[str] | None:
        """`mirror --confirm ID`, `--dismiss ID`, `--take-back ID`, `--ask ID`, and
        `--answer ID --text WORDS`."""
        if args and not args[0].startswith("-"):
            return None
        for action in SAID:
            item = take(args, f"--{action}")
            if item is not None:
                text = take(args, "--text") if action == "answer" else None
                return [action, item, *([text] if text is not None else [])]
        return None


app = typer.Typer(
    cls=MirrorGroup,
    help="The mirror: how you talk with each person over the years, and the patterns in "
    "your own words, each with its evidence (show, the default); your word on each.",
)
Item = Annotated[str, typer.Argument(help="A finding's or pattern's id, as the mirror shows it.")]


@app.command()
def show(
    ctx: typer.Context,
    person: Annotated[str | None, typer.Option("--person", help="Only this person.")] = None,
    since: Annotated[str | None, typer.Option("--since", help="From this date on.")] = None,
    until: Annotated[str | None, typer.Option("--until", help="Up to this date.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
    refresh: Annotated[
        bool, typer.Option("--refresh", help="Look for new patterns first (with a model, if set).")
    ] = False,
    yes: Annotated[
        bool, typer.Option("--yes", "-y", help="Don't ask before a costly pass.")
    ] = False,
    dismissed: Annotated[
        bool, typer.Option("--dismissed", help="Show what you dismissed too.")
    ] = False,
) -> None:
    """Everything the mirror shows (the default: `biomd mirror --person Maya` is this)."""

    async def work(engine: Engine) -> None:
        if refresh:
            await _pass(engine, yes)
        view = await engine.mirror.view(person, since, until)
        if as_json:
            print(json.dumps(view.as_json(), ensure_ascii=False, indent=2))
            return
        out.print(mirror_text.render(view, dismissed), markup=False, highlight=False)

    run(ctx, work)


def _said(ctx: typer.Context, word: Callable[[Mirror], Awaitable[str]]) -> None:
    out.print(run(ctx, lambda e: word(e.mirror)), markup=False)


@app.command()
def confirm(ctx: typer.Context, item: Item) -> None:
    """That's me: the pattern goes into bio.md's Patterns."""
    _said(ctx, lambda m: m.confirm(item))


@app.command()
def dismiss(ctx: typer.Context, item: Item) -> None:
    """Not me: not shown again without new evidence."""
    _said(ctx, lambda m: m.dismiss(item))


@app.command("take-back")
def take_back(ctx: typer.Context, item: Item) -> None:
    """Forget what you said of it."""
    _said(ctx, lambda m: m.take_back(item))


@app.command()
def ask(ctx: typer.Context, item: Item) -> None:
    """Make an intention an open question: ask me later whether I did what I said."""
    _said(ctx, lambda m: m.ask_later(item))


@app.command()
def answer(
    ctx: typer.Context,
    item: Item,
    text: Annotated[str, typer.Argument(help="What there is to it, in your words.")],
) -> None:
    """There's more to it: your answer is kept as a source, and the biographer reads it."""

    async def work(engine: Engine) -> None:
        doc_id = await engine.mirror.answer(item, text)
        out.print(f"Your answer is source #{doc_id}; the biographer reads it next.")
        summary((await reading.read_new(engine.biographer, on_step=show_step)).results)

    run(ctx, work)


async def _pass(engine: Engine, yes: bool) -> None:
    """The mirror's pass, estimated first; asked about when it costs more than reading one
    source would before asking (BIOMD_READ_CONFIRM_USD)."""
    m = engine.mirror
    plan = await m.plan()
    if not plan.calls:
        err.print("The mirror's pass: nothing new to ask about.", markup=False)
        return
    err.print(
        f"The mirror's pass: {counted(plan.calls, 'call')} over "
        f"{plan.over}, {plan.estimate.describe()}.",
        markup=False,
    )
    costly = (plan.estimate.usd or 0) > engine.settings.reading.confirm_usd
    if costly and not yes:
        if not sys.stdin.isatty():
            raise BiomdError(
                "The pass costs more than BIOMD_READ_CONFIRM_USD: add --yes to run it."
            )
        typer.confirm("Run it?", abort=True)
    with progress() as bar:
        task = bar.add_task("asking", total=plan.calls)

        async def tick(done: int, total: int) -> None:
            bar.update(task, completed=done, total=total)

        report = await m.refresh(tick)
    line = (
        f"Asked about {counted(report.judged, 'shape')}: {counted(report.yes, 'pattern')} kept, "
        f"{report.failed} unreadable "
        f"repl{'y' if report.failed == 1 else 'ies'}; "
        f"{counted(report.prompt_tokens + report.completion_tokens, 'token')}."
    )
    err.print(line, markup=False)
    if report.stopped:
        err.print(f"Stopped early: {report.stopped}", markup=False, style="yellow")
