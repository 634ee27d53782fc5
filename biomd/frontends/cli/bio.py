"""The biographer and bio.md: `biomd ask`, `answer` and `consolidate`; `bio`, `timeline`,
`questions`, `history` and `undo`; and `cost`, what the models have cost."""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from biomd.app import asking
from biomd.app.asking import TurnResult
from biomd.app.engine import Engine
from biomd.app.replies import cost_text, source_hint_of
from biomd.frontends.cli.common import out, print_table, run, search_ready, show_step, summary


def ask(
    ctx: typer.Context,
    question: Annotated[str, typer.Argument(help="Anything about your life.")],
) -> None:
    """Ask the biographer (one chat turn), showing its steps and what it cost. With no
    language model configured, cited search results instead."""

    async def work(engine: Engine) -> TurnResult | str:
        await search_ready(engine)
        return await asking.ask(engine, question, on_step=show_step)

    result = run(ctx, work)
    if isinstance(result, str):
        text, cited = source_hint_of(result)  # the bots' /source N is `biomd read N` here
        out.print(text, markup=False, highlight=False)
        if cited:
            out.print("Sources: " + ", ".join(f"biomd read {i}" for i in cited), markup=False)
        return
    summary([result])


def answer(
    ctx: typer.Context,
    question_id: Annotated[str, typer.Argument(help="A question id such as Q3.")],
    text: Annotated[str, typer.Argument(help="Your answer.")],
) -> None:
    """Answer an open question: the answer is kept as a source and analysed."""
    answered = run(ctx, lambda e: e.answers.answer(question_id, text, on_step=show_step))
    out.print(f"Your answer is source #{answered.document_id}.")
    summary([answered.result])


def consolidate(ctx: typer.Context) -> None:
    """Rewrite bio.md as one coherent document, losing no citation or question."""
    changed = run(ctx, lambda e: e.biographer.budget.consolidate())
    out.print("bio.md consolidated" + (f": {', '.join(changed)} changed." if changed else "."))


def bio(ctx: typer.Context) -> None:
    """Print bio.md."""
    sys.stdout.write(run(ctx, lambda e: e.profile.load()))


def questions(ctx: typer.Context) -> None:
    """The open questions, with the ids `biomd answer` takes."""
    found = run(ctx, lambda e: e.questions.open())
    for q in found:
        out.print(f"{q.id}  {q.text}", markup=False)
    if not found:
        out.print("No open questions.")


def timeline(ctx: typer.Context) -> None:
    """The Timeline section of bio.md."""
    items = run(ctx, lambda e: e.profile.timeline())
    for item in items:
        out.print(f"- {item}", markup=False)
    if not items:
        out.print("The timeline is empty so far.")


def history(
    ctx: typer.Context, limit: Annotated[int, typer.Option("--limit", "-n", min=1)] = 20
) -> None:
    """The latest revisions of bio.md."""
    rows = [
        (str(r.id), r.at[:19].replace("T", " "), "-" if r.turn_id is None else str(r.turn_id),
         r.mode, r.reason)
        for r in run(ctx, lambda e: e.profile.history(limit))
    ]  # fmt: skip
    print_table(("rev", "when", "turn", "mode", "reason"), rows)


def undo(ctx: typer.Context) -> None:
    """Revert the edits of the biographer's last turn (they stay in the history)."""
    done = run(ctx, lambda e: e.profile.undo())
    out.print(f"Reverted the edits of turn {done.turn_id}." if done else "Nothing to undo.")


def cost(ctx: typer.Context) -> None:
    """LLM calls, tokens and spend: today, the last 30 days, all time."""
    out.print(cost_text(run(ctx, lambda e: e.usage.account())), markup=False)
