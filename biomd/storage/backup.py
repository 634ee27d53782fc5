"""One-file backups: `biomd export FILE` and `biomd import FILE`.

The archive holds the database (copied with SQLite's online backup API, so it is consistent
even while the bot is writing), every raw file, bio.md, and a manifest. Derived files (the
vector cache, downloaded models) are left out; they are rebuilt. The archive ends with an
end marker, written last, so one cut short is known as such.

Import unpacks everything into a folder of its own beside the data dir and checks it (the
end marker, the manifest, the database's integrity and counts) before anything is moved
into the data dir: a backup that is cut short, damaged or not biomd's leaves nothing
behind."""

from __future__ import annotations

import gzip
import io
import json
import lzma
import shutil
import sqlite3
import tarfile
import tempfile
import zlib
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from biomd.errors import BiomdError
from biomd.storage.database import ensure_private_dir, utc_now

FORMAT = "biomd-backup"
VERSION = 1
_DB = "biomd.sqlite3"
_END = "end.json"  # the last member: the archive is whole when it is there
# What reading an archive that is cut short or damaged raises (gzip's own is an OSError).
_BROKEN = (tarfile.TarError, EOFError, zlib.error, lzma.LZMAError, gzip.BadGzipFile)


@dataclass(frozen=True)
class BackupSummary:
    documents: int
    raw_files: int
    revisions: int
    bytes: int


_TABLES = {
    "documents": "documents",
    "chunks": "chunks",
    "vectors": "vectors",
    "revisions": "profile_revisions",
}


def _counts(db: sqlite3.Connection) -> dict[str, int]:
    return {
        key: int(db.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0])
        for key, table in _TABLES.items()
    }


def export(data_dir: Path, target: Path, *, replace: bool = False) -> BackupSummary:
    """Write the archive to `target` (gzip-compressed if it ends in .gz or .tgz); a file
    already there is replaced only if `replace`."""
    db_path = data_dir / _DB
    if not db_path.exists():
        raise BiomdError(f"There is nothing to export: no database in {data_dir}.")
    if target.is_dir():
        raise BiomdError(f"{target} is a folder: name the backup file to write.")
    if target.exists() and not replace:
        raise BiomdError(f"{target} already exists: replace it, or choose another file.")
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(target.name + ".partial")
    try:
        counts, added = _write(data_dir, partial, compressed=target.suffix in (".gz", ".tgz"))
        partial.replace(target)
    finally:
        partial.unlink(missing_ok=True)
    return BackupSummary(counts["documents"], added, counts["revisions"], target.stat().st_size)


def _write(data_dir: Path, partial: Path, *, compressed: bool) -> tuple[dict[str, int], int]:
    """The archive, written to `partial`: its counts and how many raw files it holds."""
    with tempfile.TemporaryDirectory(
        dir=data_dir / "tmp" if (data_dir / "tmp").exists() else None
    ) as tmp:
        snapshot = Path(tmp) / _DB
        source = sqlite3.connect(f"file:{data_dir / _DB}?mode=ro", uri=True)
        copy = sqlite3.connect(snapshot)
        try:
            source.backup(copy)
            counts = _counts(copy)
            raws = [
                r[0] for r in copy.execute("SELECT raw_path FROM documents WHERE raw_path != ''")
            ]
        finally:
            copy.close()
            source.close()
        manifest = {
            "format": FORMAT, "version": VERSION, "created_at": utc_now(), "end": _END, **counts
        }  # fmt: skip
        opener = (
            tarfile.open(partial, "w:gz", compresslevel=1)  # noqa: SIM115 - closed by `with`
            if compressed
            else tarfile.open(partial, "w")  # noqa: SIM115
        )
        with opener as tar:
            _add_json(tar, "manifest.json", manifest)
            tar.add(snapshot, arcname=_DB)
            if (data_dir / "bio.md").exists():
                tar.add(data_dir / "bio.md", arcname="bio.md")
            added = 0
            for rel in raws:
                if (data_dir / rel).is_file():
                    tar.add(data_dir / rel, arcname=rel)
                    added += 1
            _add_json(tar, _END, {"raw_files": added})
        partial.chmod(0o600)
    return counts, added


def _add_json(tar: tarfile.TarFile, name: str, value: dict[str, object]) -> None:
    data = json.dumps(value, indent=1).encode()
    info = tarfile.TarInfo(name)
    info.size = len(data)
    tar.addfile(info, io.BytesIO(data))


def restore(archive: Path, data_dir: Path) -> BackupSummary:
    """Unpack `archive` into `data_dir`, which must hold no database yet. It is unpacked and
    checked beside the data dir first; only a whole, sound backup is moved in."""
    if (data_dir / _DB).exists():
        raise BiomdError(
            f"{data_dir} already has a biomd database; import only into an empty data dir "
            "(set BIOMD_DATA_DIR or --data-dir to a new folder)."
        )
    if not archive.is_file():
        raise BiomdError(f"There is no file {archive} to import.")
    beside = data_dir.parent if data_dir.parent.is_dir() else None
    staging = Path(tempfile.mkdtemp(prefix=".biomd-import-", dir=beside))
    try:
        manifest, raws = _unpack(archive, staging)
        counts = _check(archive, staging, manifest)
        _move_in(staging, data_dir)
    except OSError as exc:
        raise BiomdError(
            f"Could not import {archive} into {data_dir}: {exc.strerror or exc}. Nothing was "
            "restored."
        ) from None
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return BackupSummary(counts["documents"], raws, counts["revisions"], archive.stat().st_size)


def _incomplete(archive: Path, why: str) -> BiomdError:
    return BiomdError(
        f"{archive} is not a complete biomd backup: {why}. Nothing was restored. (`biomd "
        "export FILE` makes a backup.)"
    )


def _unpack(archive: Path, staging: Path) -> tuple[dict[str, object], int]:
    """Every file of ours in `archive`, read to its end marker and written under `staging`:
    the manifest, and how many raw files there were."""
    try:
        tar = tarfile.open(archive)  # noqa: SIM115 - closed by the `with` below
    except _BROKEN:
        raise _incomplete(archive, "it is not an archive biomd can read") from None
    raws, manifest, end = 0, None, None
    try:
        with tar:
            for member in tar:
                name = PurePosixPath(member.name)
                if member.name in ("manifest.json", _END) and member.isfile():
                    value = json.loads(_read(tar, member))
                    manifest, end = (value, end) if member.name != _END else (manifest, value)
                    continue
                allowed = name.name in (_DB, "bio.md") and len(name.parts) == 1
                allowed |= len(name.parts) == 3 and name.parts[0] == "raw"
                if not member.isfile() or not allowed or ".." in name.parts:
                    continue  # anything else in the archive is not ours and is not written
                destination = staging / name
                ensure_private_dir(destination.parent)
                source = tar.extractfile(member)
                assert source is not None
                with destination.open("wb") as out:
                    while block := source.read(1 << 20):
                        out.write(block)
                destination.chmod(0o600)
                raws += name.parts[0] == "raw"
    except _BROKEN:
        raise _incomplete(
            archive, "it ends too early or is damaged (cut off while copying?)"
        ) from None
    except ValueError:
        raise _incomplete(archive, "its manifest can't be read") from None
    if not isinstance(manifest, dict):
        raise _incomplete(archive, "it has no manifest")
    if manifest.get("format") != FORMAT or manifest.get("version") != VERSION:
        raise BiomdError(f"{archive}: a backup format this biomd does not know.")
    if manifest.get("end") and (not isinstance(end, dict) or end.get("raw_files") != raws):
        raise _incomplete(archive, "it ends too early (cut off while copying?)")
    return manifest, raws


def _read(tar: tarfile.TarFile, member: tarfile.TarInfo) -> bytes:
    source = tar.extractfile(member)
    assert source is not None
    return source.read()


def _check(archive: Path, staging: Path, manifest: dict[str, object]) -> dict[str, int]:
    """The unpacked database's counts, once it is sound and matches the manifest."""
    if not (staging / _DB).is_file():
        raise _incomplete(archive, "it holds no database")
    try:
        db = sqlite3.connect(staging / _DB)
        try:
            check = db.execute("PRAGMA integrity_check").fetchone()[0]
            counts = _counts(db)
        finally:
            db.close()
    except sqlite3.DatabaseError:
        raise _incomplete(archive, "the database in it is damaged") from None
    if check != "ok" or any(counts[k] != manifest.get(k) for k in counts):
        raise _incomplete(archive, "the database in it does not match its manifest")
    return counts


def _move_in(staging: Path, data_dir: Path) -> None:
    """Everything unpacked, moved into the data dir (made now if it is not there yet)."""
    if not data_dir.exists():
        data_dir.parent.mkdir(parents=True, exist_ok=True)
        shutil.move(staging, data_dir)
    else:
        for path in sorted(staging.rglob("*")):
            if path.is_file():
                destination = data_dir / path.relative_to(staging)
                ensure_private_dir(destination.parent)
                shutil.move(path, destination)
    ensure_private_dir(data_dir)
