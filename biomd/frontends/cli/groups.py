"""Command groups in the manner of `llm keys list|get|set`, which also take the one-command
shape they replaced: an old command line is turned into the subcommand it now is, with a
note that names it, and a group may run a default subcommand when none is named. Every
command reached through a group shows plain help: a flag has no type beside it (not
`--help <bool>`), a value a word for what it is (`--since TEXT`, `--limit N`)."""

from __future__ import annotations

import inspect
import re
import shlex
from typing import Any

from typer.core import TyperArgument, TyperGroup, TyperOption

from biomd.frontends.cli.common import err


class Group(TyperGroup):
    """A group whose `old` says what an old-shaped command line is now (None: it is not
    one); with a `default`, a line that names no subcommand runs that one."""

    default: str | None = None

    def old(self, args: list[str]) -> list[str] | None:
        return None

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        command = super().get_command(ctx, cmd_name)
        if command is not None:
            plain_help(command, ctx)
        return command

    def format_help(self, ctx: Any, formatter: Any) -> None:
        plain_help(self, ctx)
        for command in self.commands.values():  # as listed here: a line each, unbroken
            command.help = unwrapped(command.help)
        super().format_help(ctx, formatter)

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        new = self.old(list(args))
        if new is not None:
            err.print(f"(This is now `biomd {ctx.info_name} {shlex.join(new)}`.)", markup=False)
            args = new
        elif self.default and (not args or (args[0].startswith("-") and args[0] != "--help")):
            args = [self.default, *args]
        return list(super().parse_args(ctx, args))


def take(args: list[str], name: str) -> str | None:
    """Take option `name` and its value (`--name V` or `--name=V`) out of `args`; its value,
    or None if it is not there."""
    for i, arg in enumerate(args):
        if arg == name and i + 1 < len(args):
            value = args[i + 1]
            del args[i : i + 2]
            return value
        if arg.startswith(name + "="):
            del args[i]
            return arg.partition("=")[2]
    return None


def flag(args: list[str], name: str) -> bool:
    """Take flag `name` out of `args`; whether it was there."""
    if name not in args:
        return False
    args.remove(name)
    return True


# What a value is, said as a word in help instead of a Python type.
_VALUES = {"str": "TEXT", "int": "N", "float": "NUMBER", "path": "PATH", "Path": "PATH"}


def plain_help(command: Any, ctx: Any) -> None:
    """Give `command`'s options and arguments plain metavars for its help (none for a flag,
    a word for a value, an argument by its name: `PATHS`, not `paths... <list[Path]>`), and
    its description unbroken."""
    for param in [*command.params, command.get_help_option(ctx)]:
        if isinstance(param, TyperOption) and param.metavar is None:
            if param.is_flag or param.count:
                param.metavar = ""
            else:
                kind = param.display_type(ctx).strip("<>").removeprefix("list[").rstrip("]")
                param.metavar = _VALUES.get(kind.split()[0], kind.upper())
        elif isinstance(param, TyperArgument):
            param.metavar = param.metavar or (param.name or "").upper()
            param.display_type_rich = _no_type  # type: ignore[method-assign]  # named so
    command.help = unwrapped(command.help)


def unwrapped(text: str | None) -> str | None:
    """A docstring's paragraphs, each one line: its own line breaks, made to fit the source
    file, would break the help's lines mid-sentence."""
    if not text:
        return text
    paragraphs = re.split(r"\n\s*\n", inspect.cleandoc(text))
    return "\n\n".join(" ".join(p.split()) for p in paragraphs)


def _no_type(ctx: Any) -> None:
    return None
