"""biomd's own commands, under their headings in `biomd --help`: the CLI's routing table,
registered as a default plugin through the same hook as a plugin's commands. The subject
modules are imported when the commands are registered, not before: loading the plugins must
not import the CLI that asks for them."""

from __future__ import annotations

from collections.abc import Callable

import typer

from biomd.plugins import hookimpl

Route = Callable[..., None] | tuple[str, Callable[..., None] | typer.Typer]


def routes() -> dict[str, list[Route]]:
    """Every command under its heading in `biomd --help`: a function (named as the command) or
    a name with a function or a group of subcommands."""
    from biomd.frontends.cli import (
        assistants,
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

    return {
        "Sources": [
            sources.ingest, ("sources", sources.app), search.search, search.grep, search.read,
            sources.forget, sources.stats, sources.embed, sources.reindex,
        ],
        "The biographer and bio.md": [
            bio.ask, reading.analyse, bio.bio, bio.timeline, bio.questions, bio.answer,
            bio.consolidate, bio.history, bio.undo, bio.cost,
        ],
        "Sharing and the mirror": [("share", share.app), ("mirror", mirror.app)],
        "Running": [("run", serve.run_bot), serve.chat, serve.web, ("mcp", assistants.mcp_app)],
        "Your other assistants": [
            assistants.assistants, ("hermes", assistants.hermes_app),
            ("openclaw", assistants.openclaw_app),
        ],
        "Setup and backups": [
            upkeep.setup, ("config", configuration.app), upkeep.doctor, configuration.plugins,
            ("export", upkeep.export_backup), ("import", upkeep.import_backup),
        ],
    }  # fmt: skip


@hookimpl(tryfirst=True)
def register_commands(app: typer.Typer) -> None:
    for panel, table in routes().items():
        for route in table:
            name, target = route if isinstance(route, tuple) else (route.__name__, route)
            if isinstance(target, typer.Typer):
                app.add_typer(target, name=name, rich_help_panel=panel)
            else:
                app.command(name, rich_help_panel=panel)(target)
