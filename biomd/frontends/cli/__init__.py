"""The `biomd` command, a thin layer over the app. This file is its routing table; each
subject's commands live in a module of their own: sources, search, reading, bio, share,
mirror, serve and upkeep. Errors become messages only here, in one place
(`Commands.invoke`)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.markup import escape

from biomd.app import data_folder
from biomd.errors import BiomdError
from biomd.frontends import logs
from biomd.frontends.cli import bio, mirror, reading, search, serve, share, sources, upkeep
from biomd.frontends.cli.common import err
from biomd.frontends.cli.groups import Group
from biomd.settings import Settings


class Commands(Group):
    """Every command, with one error handler: a biomd error is its message and exit status
    1; Ctrl-C says how to go on and exits 130."""

    def invoke(self, ctx: Any) -> Any:  # typer's own (vendored) click Context
        try:
            return super().invoke(ctx)
        except BiomdError as exc:
            err.print(f"[red]error:[/red] {escape(exc.user_message)}")
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


@app.callback()
def _main(
    ctx: typer.Context,
    data_dir: Annotated[
        Path | None, typer.Option("--data-dir", help="Data folder (default: BIOMD_DATA_DIR).")
    ] = None,
    verbose: Annotated[
        bool,
        typer.Option("--verbose", "-v", help="Show every log line here, not only in the log file."),
    ] = False,
) -> None:
    """The settings every command runs with, kept on the context; log lines to the data
    folder's logs/biomd.log."""
    overrides: dict[str, Any] = {"data_dir": data_dir} if data_dir else {}
    ctx.obj = Settings(**overrides)
    if moved := data_folder.adopt_legacy(ctx.obj, Path.cwd()):
        err.print(moved, markup=False)
    logs.configure(ctx.obj.data_dir, verbose)


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
        upkeep.setup, upkeep.doctor, ("export", upkeep.export_backup),
        ("import", upkeep.import_backup),
    ],
}  # fmt: skip
"""Every command under its heading in `biomd --help`: a function (named as the command) or
a name with a function or a group of subcommands."""

for panel, routes in COMMANDS.items():
    for route in routes:
        name, target = route if isinstance(route, tuple) else (route.__name__, route)
        if isinstance(target, typer.Typer):
            app.add_typer(target, name=name, rich_help_panel=panel)
        else:
            app.command(name, rich_help_panel=panel)(target)


def main() -> None:
    app(prog_name="biomd")  # so, too, when run as `python -m biomd.frontends`
