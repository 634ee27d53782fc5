"""ZIP archives, member by member, within limits on size, entry count, ratio and depth.

Members are never extracted by their own names: their bytes are streamed into the raw
store, so a `../` or absolute path inside an archive cannot write anywhere.
"""

from __future__ import annotations

import zipfile
from collections.abc import Callable, Generator
from pathlib import PurePosixPath
from typing import IO, BinaryIO

from biomd.errors import ArchiveLimit, CorruptSource
from biomd.ingest.convert.base import Member, Probe
from biomd.ingest.convert.context import ArchiveBudget

_JUNK_NAMES = {".DS_Store", "Thumbs.db", "desktop.ini"}
_RATIO_FLOOR = 1 << 20  # ratios only matter once a member expands past 1 MiB


def safe_member_name(name: str) -> str:
    """A display name with no absolute root, drive letter or `..` left in it."""
    parts = [p for p in name.replace("\\", "/").split("/") if p not in ("", ".", "..")]
    if parts and parts[0].endswith(":"):
        parts = parts[1:]
    return "/".join(parts) or "unnamed"


def is_junk(name: str) -> bool:
    """Files archivers add that hold nothing of the owner's (macOS forks, thumbnails)."""
    path = PurePosixPath(name.replace("\\", "/"))
    return path.name in _JUNK_NAMES or "__MACOSX" in path.parts or path.name.startswith("._")


class _LimitedReader:
    """A member's byte stream that stops the moment the archive budget is spent."""

    def __init__(self, inner: IO[bytes], budget: ArchiveBudget, label: str) -> None:
        self._inner = inner
        self._budget = budget
        self._label = label

    def read(self, size: int = -1) -> bytes:
        block = self._inner.read(size)
        self._budget.bytes_left -= len(block)
        if self._budget.bytes_left < 0:
            raise ArchiveLimit(
                f"{self._label}: the archive expands past the size limit "
                "(BIOMD_ZIP_MAX_TOTAL_BYTES); it looks like a zip bomb."
            )
        return block

    def close(self) -> None:
        self._inner.close()

    def __enter__(self) -> _LimitedReader:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def zip_holds(probe: Probe, test: Callable[[zipfile.ZipFile], bool]) -> bool:
    """True if the source is a readable zip for which `test` holds."""
    if not probe.head.startswith(b"PK\x03\x04"):
        return False
    try:
        with zipfile.ZipFile(probe.path) as archive:
            return test(archive)
    except (zipfile.BadZipFile, OSError, RuntimeError, NotImplementedError, ValueError):
        return False


class ZipReader:
    """Any zip: every member (but archivers' junk) is a source of its own."""

    kind = "zip"
    mime = "application/zip"

    def accepts(self, probe: Probe) -> bool:
        return probe.head.startswith((b"PK\x03\x04", b"PK\x05\x06"))

    def wanted(self, name: str) -> bool:
        """Whether a member is read; subclasses read only part of an archive."""
        return not is_junk(name)

    def members(self, probe: Probe, budget: ArchiveBudget) -> Generator[Member, None, None]:
        try:
            archive = zipfile.ZipFile(probe.path)
        except (zipfile.BadZipFile, OSError, ValueError) as exc:
            raise CorruptSource(f"{probe.name}: this ZIP archive is damaged ({exc}).") from exc
        with archive:
            infos = [i for i in archive.infolist() if not i.is_dir() and self.wanted(i.filename)]
            check_limits(probe.name, infos, budget)
            for info in infos:
                budget.entries_left -= 1
                label = f"{probe.name}/{safe_member_name(info.filename)}"
                yield Member(label, member_opener(archive, info, budget, label))


def check_limits(name: str, infos: list[zipfile.ZipInfo], budget: ArchiveBudget) -> None:
    if len(infos) > budget.entries_left:
        raise ArchiveLimit(
            f"{name}: the archive holds {len(infos)} files, more than the limit of "
            f"{budget.entries_left} (BIOMD_ZIP_MAX_ENTRIES)."
        )
    declared = sum(i.file_size for i in infos)
    if declared > budget.bytes_left:
        raise ArchiveLimit(
            f"{name}: the archive expands to {declared:,} bytes, more than the limit of "
            f"{budget.bytes_left:,} (BIOMD_ZIP_MAX_TOTAL_BYTES)."
        )
    for info in infos:
        if info.file_size > _RATIO_FLOOR and info.file_size > budget.max_ratio * max(
            info.compress_size, 1
        ):
            raise ArchiveLimit(
                f"{name}: {safe_member_name(info.filename)} expands {info.file_size:,} bytes "
                f"from {info.compress_size:,}, a ratio past the limit of {budget.max_ratio} "
                "(BIOMD_ZIP_MAX_RATIO); it looks like a zip bomb."
            )


def member_opener(
    archive: zipfile.ZipFile, info: zipfile.ZipInfo, budget: ArchiveBudget, label: str
) -> Callable[[], BinaryIO]:
    def open_member() -> BinaryIO:
        try:
            inner = archive.open(info)
        except RuntimeError as exc:  # zipfile's way of saying "encrypted"
            raise CorruptSource(f"{label}: this archive member is encrypted ({exc}).") from exc
        except (zipfile.BadZipFile, NotImplementedError, OSError) as exc:
            raise CorruptSource(f"{label}: this archive member is damaged ({exc}).") from exc
        return _LimitedReader(inner, budget, label)  # type: ignore[return-value]

    return open_member
