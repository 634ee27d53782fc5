"""biomd as a running thing: `biomd run` (the bots and the web view, or the sample session),
`web` alone, and `chat` in this terminal (`mcp`, for other assistants, is in assistants.py)."""

from __future__ import annotations

from typing import Annotated

import typer

from biomd.frontends import logs
from biomd.frontends.cli.common import out, settings_of

NO_BOT_YET = (
    "No Telegram or Discord bot is configured yet, so here is biomd in your terminal with a "
    "sample life. `biomd setup` sets up your own private bot."
)
YOURS_NO_BOT = (
    "No Telegram or Discord bot is configured yet, so here is biomd in your terminal, over "
    "your own sources (`biomd chat --sample` opens the sample life). `biomd setup` sets up "
    "your own private bot."
)


def run_bot(
    ctx: typer.Context,
    open_browser: Annotated[
        bool, typer.Option("--open", help="Open the web view in the browser.")
    ] = False,
) -> None:
    """Start the Telegram and/or Discord bot and the web view; with no bot configured, a
    terminal session (and the web view) over the owner's sources, or over a sample life
    while they have none."""
    from biomd.frontends.platforms import configured_chats
    from biomd.frontends.runner import run

    settings = settings_of(ctx)
    if not configured_chats(settings):
        import asyncio

        from biomd.app.sample_life import owner_has_sources
        from biomd.frontends.terminal import open_sample_session, open_session

        if asyncio.run(owner_has_sources(settings)):
            out.print(YOURS_NO_BOT, markup=False)
            open_session(settings, web=True, open_browser=open_browser)
            return
        out.print(NO_BOT_YET, markup=False)
        open_sample_session(settings, open_browser=open_browser)
        return
    logs.running()
    run(settings, open_browser=open_browser)


def web(
    ctx: typer.Context,
    open_browser: Annotated[bool, typer.Option("--open", help="Open it in the browser.")] = False,
    port: Annotated[
        int | None,
        typer.Option(
            "--port", min=0, max=65535, help="Serve on this port (default BIOMD_WEB_PORT; 0: any)."
        ),
    ] = None,
) -> None:
    """Serve the web view alone (with the job worker), over your own data."""
    from biomd.frontends.runner import run

    settings = settings_of(ctx)
    if port is not None:
        settings = settings.but(**{"web_port": port})
    logs.running()
    run(settings, web_only=True, open_browser=open_browser)


def chat(
    ctx: typer.Context,
    sample: Annotated[
        bool, typer.Option("--sample", help="Over the bundled sample life, not your data.")
    ] = False,
) -> None:
    """Talk to the biographer in the terminal, as you would to the bot."""
    from biomd.frontends.terminal import open_sample_session, open_session

    (open_sample_session if sample else open_session)(settings_of(ctx))
