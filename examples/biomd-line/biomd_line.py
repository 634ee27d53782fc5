"""A biomd plugin: LINE's chat exports ("Export chat history" in a chat's settings) become
sources, one message a line, the owner's marked, so the mirror reads them as it reads
WhatsApp's. It adds `biomd line-check FILE` and one setting, BIOMD_LINE_OWNER."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterator
from datetime import datetime
from pathlib import Path
from typing import Annotated

import typer
from pydantic import BaseModel, Field

import biomd
from biomd.ingest.convert.base import Probe
from biomd.ingest.convert.chat import Message, format_line, header
from biomd.ingest.convert.context import ConvertContext
from biomd.ingest.convert.text import iter_lines, stream_text
from biomd.plugins import settings_of

_TITLE = re.compile(r"^\ufeff?\[LINE\] (?:Chat history with |Chat history in )?(.+)$")
_DATES = (  # a day's heading, in the forms LINE writes it
    (re.compile(r"^(\d{4})[/.](\d{1,2})[/.](\d{1,2})(?:\s*\(\w+\)|\s+\w+)?$"), "ymd"),
    (re.compile(r"^\w{3}, (\d{1,2})/(\d{1,2})/(\d{4})$"), "mdy"),
)
_MESSAGE = re.compile(r"^(\d{1,2}):(\d{2})\t([^\t]*)\t(.*)$")


class LineSettings(BaseModel):
    """The plugin's settings: BIOMD_LINE_<FIELD> in biomd's config file."""

    owner: str = Field(
        default="", description="Your name as LINE shows it, if BIOMD_OWNER_NAMES lacks it."
    )


def day_of(line: str) -> datetime | None:
    """The day a heading line names, or None if it is not one."""
    for pattern, order in _DATES:
        if m := pattern.match(line.strip()):
            a, b, c = (int(x) for x in m.groups())
            year, month, day = (a, b, c) if order == "ymd" else (c, a, b)
            try:
                return datetime(year, month, day)
            except ValueError:
                return None
    return None


def messages(lines: Iterator[str]) -> Iterator[Message]:
    """The messages of an export, a message's further lines joined to it."""
    day: datetime | None = None
    pending: list[str] = []
    first: tuple[datetime | None, str] | None = None
    for raw in lines:
        line = raw.rstrip("\r\n")
        heading = day_of(line)
        found = _MESSAGE.match(line)
        if heading or found:
            if first is not None:
                yield Message(first[0], first[1], _unquoted("\n".join(pending)))
                first = None
            if heading:
                day = heading
                continue
        if found:
            hour, minute, speaker, text = found.groups()
            when = day.replace(hour=int(hour), minute=int(minute)) if day else None
            first, pending = (when, speaker), [text]
        elif first is not None:
            pending.append(line)  # a message over several lines
    if first is not None:
        yield Message(first[0], first[1], _unquoted("\n".join(pending)))


def _unquoted(text: str) -> str:
    """LINE puts a message of several lines in double quotes."""
    text = text.strip()
    if "\n" in text and text.startswith('"') and text.endswith('"'):
        return text[1:-1].replace('""', '"')
    return text


class LineExport:
    """A LINE chat export (.txt)."""

    kind = "line"
    chat = True  # a conversation between people: the mirror reads it
    mime = "text/plain"

    def accepts(self, probe: Probe) -> bool:
        head = probe.head.decode("utf-8", errors="ignore").splitlines()[:40]
        if any(_TITLE.match(line) for line in head[:2]):
            return True
        dated = any(day_of(line) for line in head)
        return dated and sum(bool(_MESSAGE.match(line)) for line in head) >= 2

    def convert(self, probe: Probe, ctx: ConvertContext) -> Iterator[str]:
        owner = settings_of("line", LineSettings).owner.strip().casefold()
        lines = iter_lines(stream_text(probe))
        title = ""
        for line in lines:  # the header, up to the first day
            if m := _TITLE.match(line.strip()):
                title = m.group(1)
            if day_of(line) is not None:
                lines = _again(line, lines)
                break
        yield header("LINE chat", title or Path(probe.name).stem)
        for msg in messages(lines):
            mine = True if owner and msg.speaker.strip().casefold() == owner else None
            yield format_line(Message(msg.when, msg.speaker, msg.text, mine), ctx)


def plural(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


def _again(first: str, rest: Iterator[str]) -> Iterator[str]:
    yield first
    yield from rest


@biomd.hookimpl
def register_converters(register: Callable[..., None]) -> None:
    register(LineExport())


@biomd.hookimpl
def register_settings(register: Callable[[type[BaseModel]], None]) -> None:
    register(LineSettings)


@biomd.hookimpl
def register_commands(app: typer.Typer) -> None:
    @app.command(name="line-check", rich_help_panel="Plugins")
    def line_check(
        export: Annotated[Path, typer.Argument(help="A LINE chat export (.txt).")],
    ) -> None:
        """What biomd will read in a LINE export: its messages, days and people."""
        probe = Probe.of(export)
        if not LineExport().accepts(probe):
            raise typer.BadParameter(f"{export} is not a LINE chat export.")
        found = list(messages(iter_lines(stream_text(probe))))
        days = sorted({m.when.date() for m in found if m.when})
        people = Counter(m.speaker for m in found)
        span = f"{days[0]} to {days[-1]}" if days else "no dates"
        typer.echo(f"{plural(len(found), 'message')} over {plural(len(days), 'day')} ({span})")
        for name, count in people.most_common():
            typer.echo(f"  {name}: {count}")
