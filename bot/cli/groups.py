"""Command groups in the manner of `llm keys list|get|set`, which also take the one-command
shape they replaced: an old command line is turned into the subcommand it now is, with a
note that names it, and a group may run a default subcommand when none is named."""

from __future__ import annotations

import shlex
from typing import Any

from typer.core import TyperGroup

from bot.cli.common import err


class Group(TyperGroup):
    """A group whose `old` says what an old-shaped command line is now (None: it is not
    one); with a `default`, a line that names no subcommand runs that one."""

    default: str | None = None

    def old(self, args: list[str]) -> list[str] | None:
        return None

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
