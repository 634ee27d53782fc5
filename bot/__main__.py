"""The process entry point: the `biomd` command, with `biomd run` (the bots) added to the
core commands. Run as `biomd …` or `python -m bot …`."""

from __future__ import annotations

import typer

from core.cli import _state, app, err, out
from core.cli import main as core_main
from core.errors import BiomdError


@app.command(name="run")
def run_bot() -> None:
    """Start the Telegram and/or Discord bot, whichever is configured."""
    from bot.runner import NOTHING_CONFIGURED, configured_platforms, run

    settings = _state["settings"]
    try:
        if not configured_platforms(settings):
            out.print(NOTHING_CONFIGURED, markup=False)
            return
        run(settings)
    except BiomdError as exc:
        err.print(f"[red]error:[/red] {exc.user_message}")
        raise typer.Exit(1) from None


def main() -> None:
    core_main()


if __name__ == "__main__":
    main()
