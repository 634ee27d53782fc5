"""The process entry point: the `biomd` command, with `biomd run` (the bots) added to the
core commands. Run as `biomd …` or `python -m bot …`."""

from __future__ import annotations

import getpass
import sys
from pathlib import Path
from typing import Annotated

import typer

from bot.cli import _state, app, err, out
from bot.cli import main as core_main
from core.errors import BiomdError


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
    try:
        if not configured_platforms(settings):
            from bot.terminal import open_sample_session

            out.print(NO_BOT_YET, markup=False)
            open_sample_session(settings, open_browser=open_browser)
            return
        run(settings, open_browser=open_browser)
    except BiomdError as exc:
        err.print(f"[red]error:[/red] {exc.user_message}")
        raise typer.Exit(1) from None


@app.command()
def web(
    open_browser: Annotated[bool, typer.Option("--open", help="Open it in the browser.")] = False,
) -> None:
    """Serve the web view alone (with the job worker), over your own data."""
    from bot.runner import run

    try:
        run(_state["settings"], web_only=True, open_browser=open_browser)
    except BiomdError as exc:
        err.print(f"[red]error:[/red] {exc.user_message}")
        raise typer.Exit(1) from None


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

    try:
        run_stdio(_state["settings"], allow_notes)
    except BiomdError as exc:
        err.print(f"[red]error:[/red] {exc.user_message}")
        raise typer.Exit(1) from None


@app.command()
def chat(
    sample: Annotated[
        bool, typer.Option("--sample", help="Over the bundled sample life, not your data.")
    ] = False,
) -> None:
    """Talk to the biographer in the terminal, as you would to the bot."""
    from bot.terminal import open_sample_session, open_session

    try:
        (open_sample_session if sample else open_session)(_state["settings"])
    except BiomdError as exc:
        err.print(f"[red]error:[/red] {exc.user_message}")
        raise typer.Exit(1) from None


@app.command()
def setup(
    env_file: Annotated[Path, typer.Option("--env-file", help="The .env to write.")] = Path(".env"),
) -> None:
    """A friendly walk-through that writes .env: language model, Telegram, Discord, schedule."""
    import asyncio

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
    import asyncio

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
    core_main()


if __name__ == "__main__":
    main()
