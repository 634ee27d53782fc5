"""`shares` and `share_audiences`: every portrait the owner saved (for whom, what went in,
who was shown by name, the file's hash, what each sentence rests on, and the file itself,
so it can be opened again), and the owner's own audiences."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass

from biomd.storage.database import Database, utc_now


@dataclass(frozen=True, slots=True)
class ShareRecord:
    id: int
    created_at: str
    audience: str
    format: str
    sections: tuple[str, ...]
    shown: tuple[str, ...]  # people shown by name
    path: str
    sha256: str
    size: int
    writer: str  # "rules", or the model that wrote it
    accepted: tuple[str, ...]  # the scan's findings the owner accepted
    support: list[dict[str, object]]  # each sentence and the bio.md lines it rests on
    has_card: bool = False


@dataclass(frozen=True, slots=True)
class NewShare:
    audience: str
    format: str
    sections: Sequence[str]
    shown: Sequence[str]
    path: str
    sha256: str
    writer: str
    accepted: Sequence[str]
    support: list[dict[str, object]]
    content: bytes
    card: bytes | None = None  # the one-page PNG, where one was made


_COLUMNS = (
    "id, created_at, audience, format, sections, shown, path, sha256, size, writer, accepted,"
    " support, card IS NOT NULL"
)


class ShareTable:
    def __init__(self, db: Database) -> None:
        self._db = db

    async def add(self, new: NewShare) -> int:
        async with self._db.transaction() as db:
            cur = await db.execute(
                "INSERT INTO shares(created_at, audience, format, sections, shown, path, sha256,"
                " size, writer, accepted, support, content, card)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    utc_now(),
                    new.audience,
                    new.format,
                    json.dumps(list(new.sections)),
                    json.dumps(list(new.shown), ensure_ascii=False),
                    new.path,
                    new.sha256,
                    len(new.content),
                    new.writer,
                    json.dumps(list(new.accepted), ensure_ascii=False),
                    json.dumps(new.support, ensure_ascii=False),
                    new.content,
                    new.card,
                ),
            )
            return int(cur.lastrowid or 0)

    async def all(self) -> list[ShareRecord]:
        """Every share, newest first."""
        rows = await self._db.fetchall(f"SELECT {_COLUMNS} FROM shares ORDER BY id DESC")
        return [_record(r) for r in rows]

    async def get(self, share_id: int) -> ShareRecord | None:
        row = await self._db.fetchone(f"SELECT {_COLUMNS} FROM shares WHERE id = ?", (share_id,))
        return None if row is None else _record(row)

    async def content(self, share_id: int) -> bytes | None:
        """The file as it was saved."""
        value = await self._db.scalar("SELECT content FROM shares WHERE id = ?", (share_id,))
        return None if value is None else bytes(value)

    async def card(self, share_id: int) -> bytes | None:
        """The share's PNG card, if it has one."""
        value = await self._db.scalar("SELECT card FROM shares WHERE id = ?", (share_id,))
        return None if value is None else bytes(value)

    async def delete(self, share_id: int) -> bool:
        async with self._db.transaction() as db:
            cur = await db.execute("DELETE FROM shares WHERE id = ?", (share_id,))
            return cur.rowcount > 0

    # -- the owner's audiences ------------------------------------------------------------

    async def save_audience(self, name: str, settings: str) -> None:
        async with self._db.transaction() as db:
            await db.execute(
                "INSERT INTO share_audiences(name, settings, updated_at) VALUES (?, ?, ?)"
                " ON CONFLICT(name) DO UPDATE SET settings = excluded.settings,"
                " updated_at = excluded.updated_at",
                (name, settings, utc_now()),
            )

    async def audiences(self) -> dict[str, str]:
        """The owner's audiences: name → settings (JSON)."""
        rows = await self._db.fetchall("SELECT name, settings FROM share_audiences ORDER BY name")
        return {str(n): str(s) for n, s in rows}


def _record(r: Sequence[object]) -> ShareRecord:
    return ShareRecord(
        int(r[0]),  # type: ignore[call-overload]
        str(r[1]),
        str(r[2]),
        str(r[3]),
        tuple(json.loads(str(r[4]))),
        tuple(json.loads(str(r[5]))),
        str(r[6]),
        str(r[7]),
        int(r[8]),  # type: ignore[call-overload]
        str(r[9]),
        tuple(json.loads(str(r[10]))),
        json.loads(str(r[11])),
        bool(r[12]),
    )
