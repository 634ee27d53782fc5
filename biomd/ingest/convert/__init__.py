"""Conversion of sources to plain text: an ordered registry of converters, filled through the
`register_converters` hook (biomd's own in convert/builtin.py, then each plugin's).

Detection is by content first, with the file name only as a hint: the first converter that
accepts a source takes it, so specific formats (a WhatsApp export, a Telegram result.json)
come before the generic ones they would otherwise fall into (a zip, a JSON file, text).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass

from biomd import plugins
from biomd.errors import CorruptSource, UnsupportedFormat
from biomd.ingest.convert.base import ArchiveReader, Converter, Member, Probe
from biomd.ingest.convert.context import ArchiveBudget, ConvertContext
from biomd.ingest.convert.sniff import describe_binary
from biomd.ingest.convert.text import PLAIN


@dataclass(frozen=True)
class Registry:
    """Every converter, in the order they are tried, and the kinds that are chats."""

    converters: tuple[Converter | ArchiveReader, ...]
    chat_kinds: frozenset[str]


@functools.cache
def registry() -> Registry:
    """The converters of biomd and its plugins: each one's specific formats in the order they
    were registered (biomd's first), then the generic ones, plain text last of all."""
    formats: list[Converter | ArchiveReader] = []
    fallbacks: list[Converter | ArchiveReader] = []

    def register(plugin: plugins.Plugin) -> Callable[..., None]:
        def add(converter: Converter | ArchiveReader, *, generic: bool = False) -> None:
            (fallbacks if generic else formats).append(converter)
            plugin.record("converters", converter.kind)

        return add

    plugins.each("register_converters", register)
    ordered = (*formats, *(c for c in fallbacks if c is not PLAIN), PLAIN)
    chats = frozenset(c.kind for c in ordered if getattr(c, "chat", False))
    return Registry(ordered, chats)


def chat_kinds() -> frozenset[str]:
    """The kinds of source that are conversations between people, as their converters say (an
    email thread or an AI conversation is not)."""
    return registry().chat_kinds


def detect(probe: Probe) -> Converter | ArchiveReader:
    """The first converter that accepts the source, or a clear error saying why none does."""
    if not probe.head:
        raise CorruptSource(f"{probe.name}: the file is empty.")
    for converter in registry().converters:
        if converter is not PLAIN and converter.accepts(probe):
            return converter
    known = describe_binary(probe.head)
    if known:
        raise UnsupportedFormat(f"{probe.name}: this is {known}, which biomd cannot read.")
    if PLAIN.accepts(probe):
        return PLAIN
    raise UnsupportedFormat(f"{probe.name}: not a format biomd reads.")  # pragma: no cover


__all__ = [
    "ArchiveBudget",
    "ArchiveReader",
    "ConvertContext",
    "Converter",
    "Member",
    "Probe",
    "chat_kinds",
    "detect",
    "registry",
]
