"""What every converter shares: the probe it looks at and the protocols it implements."""

from __future__ import annotations

from collections.abc import Callable, Generator, Iterator
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import BinaryIO, Protocol, runtime_checkable

from biomd.ingest.convert.context import ArchiveBudget, ConvertContext

HEAD_BYTES = 64 * 1024


@dataclass(frozen=True, slots=True)
class Probe:
    """A source to convert: where its bytes are, its original name, and its first bytes."""

    path: Path
    name: str
    head: bytes

    @classmethod
    def of(cls, path: Path, name: str | None = None) -> Probe:
        with path.open("rb") as f:
            head = f.read(HEAD_BYTES)
        return cls(path, name or path.name, head)

    @property
    def suffix(self) -> str:
        return PurePosixPath(self.name).suffix.lower()


class Converter(Protocol):
    """Turns one source into plain text, streamed in pieces. `chat` says whether the text is a
    conversation between people, in the transcript form convert/chat.py writes (the mirror
    reads those); an email thread or an AI conversation is not."""

    @property
    def kind(self) -> str: ...

    @property
    def chat(self) -> bool: ...

    @property
    def mime(self) -> str: ...

    def accepts(self, probe: Probe) -> bool: ...

    def convert(self, probe: Probe, ctx: ConvertContext) -> Iterator[str]: ...


@dataclass(frozen=True, slots=True)
class Member:
    """One file inside an archive; `open` gives its bytes, with the archive's limits applied."""

    name: str
    open: Callable[[], BinaryIO]


@runtime_checkable
class ArchiveReader(Protocol):
    """A container whose members are sources of their own."""

    @property
    def kind(self) -> str: ...

    @property
    def mime(self) -> str: ...

    def accepts(self, probe: Probe) -> bool: ...

    def members(self, probe: Probe, budget: ArchiveBudget) -> Generator[Member, None, None]: ...
