"""README stays accurate: every command it shows exists with the options it uses, the
Quickstart is two commands, and every setting is documented in README and .env.example."""

from __future__ import annotations

import re
import shlex
from pathlib import Path
from typing import Any

import pytest
import typer
from typer.testing import CliRunner

from biomd.frontends.cli import app
from biomd.settings import Settings, names

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text()


def shown_commands() -> list[list[str]]:
    """`biomd …` lines in README's shell blocks, as argument lists (comments dropped)."""
    blocks = re.findall(r"```sh\n(.*?)```", README, re.S)
    out = []
    for line in "\n".join(blocks).splitlines():
        line = line.split("#", 1)[0].strip()
        if line.startswith((".venv/bin/biomd ", "biomd ")):
            out.append(shlex.split(line)[1:])
    return out


def command_path(args: list[str]) -> list[str]:
    """The command a README line runs: `share save therapist` is share's save, and a group
    with a default subcommand runs it when the line names none (`mirror --person Maya`)."""
    command: Any = typer.main.get_command(app)
    path: list[str] = []
    for arg in args:
        subcommands = getattr(command, "commands", {})
        if arg not in subcommands:
            break
        path.append(arg)
        command = subcommands[arg]
    default = getattr(command, "default", None)
    return [*path, default] if default else path


@pytest.mark.slow
def test_every_command_in_the_readme_exists_with_the_options_it_uses() -> None:
    commands = shown_commands()
    assert len(commands) >= 25
    runner = CliRunner()
    for args in commands:
        path = command_path(args)
        assert path, f"biomd {args[0]} is not a command"
        result = runner.invoke(app, [*path, "--help"])
        assert result.exit_code == 0, f"biomd {' '.join(path)}: {result.output}"
        for option in (a.split("=")[0] for a in args[1:] if a.startswith("--")):
            assert option in result.output, f"biomd {' '.join(path)} has no {option}"


def test_quickstart_is_exactly_make_run_and_make_test() -> None:
    quick = README.split("## Quickstart", 1)[1].split("##", 1)[0]
    block = re.search(r"```sh\n(.*?)```", quick, re.S)
    assert block is not None
    commands = [line.split("#")[0].strip() for line in block.group(1).split("\n")[:-1]]
    assert commands == ["make run", "make test"]


def test_every_setting_is_documented_in_readme_and_env_example() -> None:
    example = (ROOT / ".env.example").read_text()
    for key in (names.name_of(path) for path, _ in names.paths(Settings)):
        assert f"`{key}`" in README, f"{key} missing from README's Configuration"
        assert key in example, f"{key} missing from .env.example"
