"""The `biomd` command, a thin layer over the app: the Typer app, its options and its one
error handler (`Commands.invoke`: errors become messages only here). The commands come through
the `register_commands` hook: biomd's own from frontends/commands.py (the routing table; each
subject's commands live in a module of their own here), then each plugin's."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer
from rich.markup import escape

from biomd import plugins, version
from biomd.app import config, data_folder
from biomd.errors import BiomdError, ConfigError
from biomd.frontends import logs
from biomd.frontends.cli.common import err, out
from biomd.frontends.cli.groups import Group
from biomd.settings import load


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


TOLERANT = {"config"}
"""Commands that run when the settings are not valid (to fix them)."""


def _version(show: bool) -> None:
    if show:
        out.print(f"biomd {version()}", markup=False)
        raise typer.Exit()


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
    show_version: Annotated[
        bool,
        typer.Option(
            "--version", callback=_version, is_eager=True, help="Show biomd's version and stop."
        ),
    ] = False,
) -> None:
    """The settings every command runs with (the config file and the environment), kept on
    the context; an old ./.env's settings moved into the config file, once; log lines to the
    data folder's logs/biomd.log."""
    if moved := config.adopt_dotenv(Path.cwd()):
        err.print(moved, markup=False)
    overrides: dict[str, Any] = {"data_dir": data_dir} if data_dir else {}
    try:
        ctx.obj = load(**overrides)
    except ConfigError:
        if ctx.invoked_subcommand not in TOLERANT:
            raise
        return
    if moved := data_folder.adopt_legacy(ctx.obj, Path.cwd()):
        err.print(moved, markup=False)
    logs.configure(ctx.obj.data_dir, verbose)


def _names(typer_app: typer.Typer) -> set[str]:
    """The commands and command groups on `typer_app`, by name."""
    commands = {
        c.name or (c.callback.__name__ if c.callback else "") for c in typer_app.registered_commands
    }
    return commands | {g.name or "" for g in typer_app.registered_groups}


def _add_commands(typer_app: typer.Typer) -> None:
    """biomd's commands, then each plugin's, through the `register_commands` hook; what each
    plugin added is kept for `biomd plugins`."""
    before: set[str] = set()

    def arguments(plugin: plugins.Plugin) -> dict[str, Any]:
        before.clear()
        before.update(_names(typer_app))
        return {"app": typer_app}

    def after(plugin: plugins.Plugin) -> None:
        for name in sorted(_names(typer_app) - before):
            plugin.record("commands", name)

    plugins.loaded().call("register_commands", arguments, after)


_add_commands(app)


def main() -> None:
    app(prog_name="biomd")  # so, too, when run as `python -m biomd`
