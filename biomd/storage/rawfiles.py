"""Raw sources kept under the data dir, named by the sha256 of their content."""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from biomd.storage.database import ensure_private_dir

_BLOCK = 1 << 20


@dataclass(frozen=True, slots=True)
class Staged:
    """A copy of a source inside the data dir, hashed, not yet filed under its hash."""

    tmp_path: Path
    sha256: str
    size: int


class RawFiles:
    """Content-addressed file store: `raw/ab/abcdef…`. Writes are atomic (temp file + rename)."""

    def __init__(self, data_dir: Path) -> None:
        self.root = data_dir / "raw"
        self.tmp = data_dir / "tmp"
        ensure_private_dir(self.root)
        ensure_private_dir(self.tmp)

    def stage(self, source: Path | BinaryIO) -> Staged:
        """Copy `source` into the data dir while hashing it, in one pass."""
        digest = hashlib.sha256()
        size = 0
        fd, name = tempfile.mkstemp(dir=self.tmp, prefix="stage-")
        try:
            with os.fdopen(fd, "wb") as out:
                src = source.open("rb") if isinstance(source, Path) else source
                try:
                    while block := src.read(_BLOCK):
                        digest.update(block)
                        out.write(block)
                        size += len(block)
                finally:
                    if isinstance(source, Path):
                        src.close()
                out.flush()
                os.fsync(out.fileno())
        except BaseException:
            Path(name).unlink(missing_ok=True)
            raise
        return Staged(Path(name), digest.hexdigest(), size)

    def relpath(self, sha256: str) -> str:
        return f"raw/{sha256[:2]}/{sha256}"

    def file(self, sha256: str, staged: Staged) -> str:
        """Move a staged copy to its final name; return the path relative to the data dir."""
        rel = self.relpath(sha256)
        final = self.root.parent / rel
        ensure_private_dir(final.parent)
        staged.tmp_path.chmod(0o600)
        staged.tmp_path.replace(final)
        return rel

    def discard(self, staged: Staged) -> None:
        staged.tmp_path.unlink(missing_ok=True)

    def path(self, rel: str) -> Path:
        return self.root.parent / rel

    def remove(self, rel: str) -> None:
        path = self.path(rel)
        path.unlink(missing_ok=True)
        with contextlib.suppress(OSError):
            path.parent.rmdir()

    def sweep_tmp(self) -> None:
        """Remove staging leftovers of an interrupted run."""
        shutil.rmtree(self.tmp, ignore_errors=True)
        ensure_private_dir(self.tmp)
