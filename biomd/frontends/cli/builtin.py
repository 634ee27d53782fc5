"""biomd's own commands, under their headings in `biomd --help`: the CLI's routing table,
registered as a default plugin through the same hook as a plugin's commands."""

from __future__ import annotations

from collections.abc import Callable

import typer

from biomd.frontends.cli import (
    bio,
    configuration,
    mirror,
    reading,
    search,
    serve,
    share,
    sources,
    upkeep,
)
from biomd.plugins import hookimpl

COMMANDS: dict[str, list[Callable[..., None] | tuple[str, Callable[..., None] | typer.Typer]]] = {
    "Sources": [
        sources.ingest, sources.sources, search.search, search.grep, search.read,
        sources.forget, sources.stats, sources.embed, sources.reindex,
    ],
    "The biographer and bio.md": [
        bio.ask, reading.analyse, bio.bio, bio.timeline, bio.questions, bio.answer,
        bio.consolidate, bio.history, bio.undo, bio.cost,
    ],
    "Sharing and the mirror": [("share", share.app), ("mirror", mirror.app)],
    "Running": [("run", serve.run_bot), serve.chat, serve.web, serve.mcp],
    "Setup and backups": [
        upkeep.setup, ("config", configuration.app), upkeep.doctor, configuration.plugins,
        ("export", upkeep.export_backup), ("import", upkeep.import_backup),
    ],
}  # fmt: skip
"""Every command under its heading in `biomd --help`: a function (named as the command) or
a name with a function or a group of subcommands."""


@hookimpl(tryfirst=True)
def register_commands(app: typer.Typer) -> None:
    for panel, routes in COMMANDS.items():
        for route in routes:
            name, target = route if isinstance(route, tuple) else (route.__name__, route)
            if isinstance(target, typer.Typer):
                app.add_typer(target, name=name, rich_help_panel=panel)
            else:
                app.command(name, rich_help_panel=panel)(target)
