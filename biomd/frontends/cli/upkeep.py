"""Setting biomd up and keeping it well: `biomd setup` (writes the config file), `doctor`
(checks everything), and one-file backups (`export`, `import`)."""

from __future__ import annotations

import asyncio
import getpass
import sys
from pathlib import Path
from typing import Annotated

import typer

from biomd.app import maintenance
from biomd.app.config import ConfigFile
from biomd.app.replies import counted
from biomd.errors import BiomdError
from biomd.frontends.cli.common import err, mb, out, settings_of
from biomd.settings import config_file as config_path

GONE = Annotated[Path | None, typer.Option("--env-file", hidden=True)]
"""The option `setup` and `doctor` had when settings were in ./.env: now a clear error."""


def _no_env_file(given: Path | None) -> None:
    if given is not None:
        raise BiomdError(
            f"--env-file is gone: biomd keeps its settings in one config file, {config_path()}, "
            "read from any folder (`biomd config path`; BIOMD_CONFIG_DIR in the environment "
            "chooses another folder). Run the command without it."
        )


def setup(ctx: typer.Context, env_file: GONE = None) -> None:
    """A friendly walk-through that writes the config file: language model, Telegram, Discord,
    about you, schedule."""
    from biomd.frontends.setup import Wizard

    _no_env_file(env_file)
    wizard = Wizard(settings_of(ctx), Terminal())
    try:
        asyncio.run(wizard.run(ConfigFile()))
    except KeyboardInterrupt:
        err.print("\nStopped; the config file was not changed.")
        raise typer.Exit(130) from None


class Terminal:
    """The wizard's questions at the terminal; a typed key is not shown on screen."""

    def ask(self, question: str, default: str = "", secret: bool = False) -> str:
        try:
            if secret and sys.stdin.isatty():
                return getpass.getpass(f"{question}: ").strip()
            answer = input(f"{question}{f' [{default}]' if default else ''}: ").strip()
        except EOFError:
            return default
        return answer or default

    def say(self, text: str) -> None:
        out.print(text, markup=False, highlight=False)


def doctor(
    ctx: typer.Context,
    offline: Annotated[
        bool, typer.Option("--offline", help="Skip the checks that need the network.")
    ] = False,
    env_file: GONE = None,
) -> None:
    """Check the config file, models, data dir, store, LLM, bot tokens and schedule."""
    from biomd.frontends.doctor import FAIL, examine, render

    _no_env_file(env_file)
    findings = asyncio.run(examine(settings_of(ctx), ConfigFile(), network=not offline))
    out.print(render(findings), markup=False, highlight=False)
    if any(f.status == FAIL for f in findings):
        raise typer.Exit(1)


def export_backup(
    ctx: typer.Context,
    target: Annotated[Path, typer.Argument(help="Archive to write (.tar, or .tar.gz).")],
    yes: Annotated[
        bool, typer.Option("--yes", "-y", help="Replace the file if it is there already.")
    ] = False,
) -> None:
    """Back everything up into one file (safe while the bot runs)."""
    if target.is_file() and not yes:
        if not sys.stdin.isatty():  # a script, or piped: nobody to ask
            raise BiomdError(f"{target} already exists: --yes replaces it, or name another file.")
        if not typer.confirm(f"{target} already exists. Replace it?", default=False):
            err.print(f"Nothing was written; {target} is unchanged.", markup=False)
            raise typer.Exit(1)
    summary = maintenance.export(settings_of(ctx), target, replace=True)
    out.print(
        f"Wrote {target}: {counted(summary.documents, 'source')}, "
        f"{counted(summary.raw_files, 'raw file')}, "
        f"{counted(summary.revisions, 'revision')} of bio.md, {mb(summary.bytes)}.",
        markup=False,
    )


def import_backup(
    ctx: typer.Context,
    archive: Annotated[Path, typer.Argument(help="An archive made by `biomd export`.")],
) -> None:
    """Restore a backup into an empty data dir."""
    settings = settings_of(ctx)
    summary = maintenance.restore(settings, archive)
    out.print(
        f"Restored {counted(summary.documents, 'source')}, "
        f"{counted(summary.raw_files, 'raw file')} and "
        f"{counted(summary.revisions, 'revision')} of bio.md into {settings.data_dir}.",
        markup=False,
    )
