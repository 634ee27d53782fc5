"""What converters may need beyond the file itself: who the owner is, the time zone, and the
services that turn speech and pictures into text."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, tzinfo
from pathlib import Path
from typing import Protocol

from biomd.settings import ZipLimits


@dataclass
class ArchiveBudget:
    """What an archive (and the archives inside it) may still expand to."""

    bytes_left: int
    entries_left: int
    max_depth: int
    max_ratio: int

    @classmethod
    def of(cls, limits: ZipLimits) -> ArchiveBudget:
        """The whole of the limits, to spend on one upload."""
        return cls(limits.total_bytes, limits.entries, limits.depth, limits.ratio)


@dataclass(frozen=True, slots=True)
class Segment:
    """A stretch of transcribed speech; times are seconds from the start of the audio."""

    start: float
    end: float
    text: str


class Transcriber(Protocol):
    """Speech to text, streamed segment by segment."""

    def transcribe(self, path: Path, prompt: str = "", name: str = "") -> Iterator[Segment]: ...


class ImageDescriber(Protocol):
    """A picture to a description in words."""

    def describe(self, image: bytes, mime: str, facts: str) -> str: ...


def _no_hints() -> str:
    return ""


@dataclass(frozen=True)
class ConvertContext:
    """Shared by every conversion of one ingest run."""

    owner_names: tuple[str, ...] = ()
    timezone: tzinfo = UTC
    transcriber: Transcriber | None = None
    describer: ImageDescriber | None = None
    hints: Callable[[], str] = field(default=_no_hints)
    scratch_dir: Path | None = None  # where media inside archives are unpacked for a moment
    zip_limits: ZipLimits = field(default_factory=ZipLimits)
    date_order: str = "auto"  # BIOMD_CHAT_DATE_ORDER: a chat's dates that read either way
    notes: dict[str, list[str]] = field(default_factory=dict, compare=False)  # by source name
    _owner_keys: frozenset[str] = field(init=False, repr=False)
    _known: dict[str, bool] = field(init=False, repr=False, compare=False)  # name → owner?

    def __post_init__(self) -> None:
        keys = frozenset(_key(n) for n in self.owner_names if n.strip())
        object.__setattr__(self, "_owner_keys", keys)
        object.__setattr__(self, "_known", {})

    def is_owner(self, name: str) -> bool:
        """True when `name` is one of the names or handles the owner appears as."""
        known = self._known.get(name)
        if known is None:
            key = _key(name)
            known = bool(key) and (key in self._owner_keys or key.lstrip("@") in self._owner_keys)
            if len(self._known) < 10_000:  # a chat has a few speakers; a corpus, some thousands
                self._known[name] = known
        return known

    def note(self, name: str, text: str) -> None:
        """Something the owner should know about how source `name` was read (the ingest
        result says it)."""
        self.notes.setdefault(name, []).append(text)

    def notes_of(self, name: str) -> str:
        """What was noted about source `name` (and forget it)."""
        return "; ".join(self.notes.pop(name, []))

    def budget(self) -> ArchiveBudget:
        """The archive limits afresh, to spend on one archive."""
        return ArchiveBudget.of(self.zip_limits)

    @property
    def owner_label(self) -> str:
        """What to call the owner when an export only says "me"."""
        return self.owner_names[0].strip() if self.owner_names else "Me"


def _key(name: str) -> str:
    return " ".join(name.casefold().split()).lstrip("@")
