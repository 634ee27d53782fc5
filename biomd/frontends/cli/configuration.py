"""How biomd is configured: `biomd config` (the settings every folder and process reads, in one
file that `path` names; a key is BIOMD_OWNER_NAMES or owner_names; the environment overrides
the file) and `biomd plugins` (what is installed, and what each adds)."""

from __future__ import annotations

import json
from typing import Annotated

import typer

from biomd.app import config, plugin_list
from biomd.frontends.cli.common import err, out, print_table
from biomd.frontends.cli.groups import Group
from biomd.frontends.platforms import frontends

app = typer.Typer(
    cls=Group,
    help="Your settings, in one file every folder and process reads (`biomd config path`).",
    no_args_is_help=True,
)

Key = Annotated[str, typer.Argument(help="BIOMD_OWNER_NAMES, or owner_names.")]
Reveal = Annotated[bool, typer.Option("--reveal", help="Show keys and tokens in full.")]


@app.command("set")
def set_value(key: Key, value: Annotated[str, typer.Argument(help="Its new value.")]) -> None:
    """Set a setting in the config file (checked first: a value biomd can't run with is
    refused)."""
    file = config.ConfigFile()
    name = file.set(key, value)
    now = config.value(name, file)
    out.print(
        f"{name}={now.shown() if now.origin == 'config file' else value} in {file.path}",
        markup=False,
    )
    if now.origin == "environment":
        err.print(
            f"{name} is also set in the environment ({now.shown()}), which wins over the file.",
            markup=False,
        )


@app.command("get")
def get_value(key: Key, reveal: Reveal = False) -> None:
    """A setting's value as biomd runs with it (where it comes from goes to stderr)."""
    found = config.value(key)
    out.print(found.shown(reveal), markup=False)
    err.print(f"{found.setting.name}: from the {found.origin}", markup=False, style="dim")


@app.command("unset")
def unset_value(key: Key) -> None:
    """Remove a setting from the config file; it goes back to its default."""
    file = config.ConfigFile()
    name, there = file.unset(key)
    said = f"Removed {name} from {file.path}." if there else f"{name} was not in {file.path}."
    out.print(said, markup=False)
    now = config.value(name, file)
    if now.origin == "environment":
        err.print(f"{name} is still set in the environment ({now.shown()}).", markup=False)


@app.command("list")
def list_values(
    everything: Annotated[
        bool, typer.Option("--all", help="Every setting, those at their default too.")
    ] = False,
    reveal: Reveal = False,
) -> None:
    """The settings that are set, from the config file or the environment (keys and tokens
    masked)."""
    rows = [
        [v.setting.name, v.shown(reveal), v.origin] for v in config.values(everything=everything)
    ]
    if not rows:
        err.print(
            f"Nothing is set: every setting is at its default. `biomd config set NAME VALUE` "
            f"writes {config.ConfigFile().path}; `--all` lists them all.",
            markup=False,
        )
        return
    print_table(["setting", "value", "from"], rows)


@app.command("path")
def path() -> None:
    """Where the config file is (BIOMD_CONFIG_DIR in the environment chooses another folder)."""
    out.print(str(config.ConfigFile().path), markup=False)


def plugins(
    everything: Annotated[
        bool, typer.Option("--all", help="biomd's own built-in plugins too.")
    ] = False,
    as_json: Annotated[bool, typer.Option("--json", help="As JSON, for a program.")] = False,
) -> None:
    """List installed plugins and what each registers (converters, backends, platforms,
    commands, settings)."""
    frontends()  # the registries the app layer can't fill itself (commands are, at start)
    found = [p for p in plugin_list.listed() if everything or not p.builtin]
    if as_json:
        print(json.dumps([p.as_json() for p in found], indent=2))
        return
    if not found:
        out.print(
            "No plugins are installed. A plugin is a Python package with a `biomd` entry point "
            "(docs/plugins.md); `--all` shows biomd's own.",
            markup=False,
        )
        return
    print_table(["plugin", "version", "registers"], [[p.name, p.version, p.summary] for p in found])
