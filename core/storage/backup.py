"""One-file backups: `biomd export FILE` and `biomd import FILE`.

The archive holds the database (copied with SQLite's online backup API, so it is consistent
even while the bot is writing), every raw file, bio.md, and a manifest. Derived files (the
vector cache, downloaded models) are left out; they are rebuilt. Import restores into an
empty data dir and checks the result before it returns."""

from __future__ import annotations

import io
import json
import sqlite3
import tarfile
import tempfile
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from core.errors import BiomdError
from core.storage.database import ensure_private_dir, utc_now

FORMAT = "biomd-backup"
VERSION = 1
_DB = "biomd.sqlite3"


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


def export(data_dir: Path, target: Path) -> BackupSummary:
    """Write the archive to `target` (gzip-compressed if it ends in .gz or .tgz)."""
    db_path = data_dir / _DB
    if not db_path.exists():
        raise BiomdError(f"There is nothing to export: no database in {data_dir}.")
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(
        dir=data_dir / "tmp" if (data_dir / "tmp").exists() else None
    ) as tmp:
        snapshot = Path(tmp) / _DB
        source = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True)
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
        manifest = {"format": FORMAT, "version": VERSION, "created_at": utc_now(), **counts}
        compressed = target.suffix in (".gz", ".tgz")
        partial = target.with_name(target.name + ".partial")
        opener = (
            tarfile.open(partial, "w:gz", compresslevel=1)  # noqa: SIM115 - closed by `with`
            if compressed
            else tarfile.open(partial, "w")  # noqa: SIM115
        )
        with opener as tar:
            data = json.dumps(manifest, indent=1).encode()
            info = tarfile.TarInfo("manifest.json")
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
            tar.add(snapshot, arcname=_DB)
            if (data_dir / "bio.md").exists():
                tar.add(data_dir / "bio.md", arcname="bio.md")
            added = 0
            for rel in raws:
                if (data_dir / rel).is_file():
                    tar.add(data_dir / rel, arcname=rel)
                    added += 1
        partial.chmod(0o600)
        partial.replace(target)
    return BackupSummary(counts["documents"], added, counts["revisions"], target.stat().st_size)


def restore(archive: Path, data_dir: Path) -> BackupSummary:
    """Unpack `archive` into `data_dir`, which must hold no database yet."""
    if (data_dir / _DB).exists():
        raise BiomdError(
            f"{data_dir} already has a biomd database; import only into an empty data dir "
            "(set BIOMD_DATA_DIR or --data-dir to a new folder)."
        )
    try:
        tar = tarfile.open(archive)  # noqa: SIM115 - closed by the `with` below
    except (tarfile.TarError, OSError) as exc:
        raise BiomdError(f"{archive}: not a biomd backup ({exc}).") from exc
    ensure_private_dir(data_dir)
    with tar:
        try:
            manifest = json.loads(tar.extractfile("manifest.json").read())  # type: ignore[union-attr]
        except (KeyError, AttributeError, ValueError) as exc:
            raise BiomdError(f"{archive}: not a biomd backup (no manifest).") from exc
        if manifest.get("format") != FORMAT or manifest.get("version") != VERSION:
            raise BiomdError(f"{archive}: a backup format this biomd does not know.")
        raws = 0
        for member in tar.getmembers():
            name = PurePosixPath(member.name)
            allowed = name.name in (_DB, "bio.md") and len(name.parts) == 1
            allowed |= len(name.parts) == 3 and name.parts[0] == "raw"
            if not member.isfile() or not allowed or ".." in name.parts:
                continue  # anything else in the archive is not ours and is not written
            destination = data_dir / name
            ensure_private_dir(destination.parent)
            source = tar.extractfile(member)
            assert source is not None
            with destination.open("wb") as out:
                while block := source.read(1 << 20):
                    out.write(block)
            destination.chmod(0o600)
            raws += name.parts[0] == "raw"
    db = sqlite3.connect(data_dir / _DB)
    try:
        check = db.execute("PRAGMA integrity_check").fetchone()[0]
        counts = _counts(db)
    finally:
        db.close()
    if check != "ok" or any(counts[k] != manifest[k] for k in counts):
        raise BiomdError(f"{archive}: the restored database does not match its manifest.")
    return BackupSummary(counts["documents"], raws, counts["revisions"], archive.stat().st_size)
