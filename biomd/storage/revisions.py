"""`profile_revisions`: every state bio.md has been in (zlib-compressed), with the edit that
made it: the turn, the mode, the reason, the text replaced and the text put in, and for an
undo, the turn it undid."""

from __future__ import annotations

import zlib
from collections.abc import Iterable
from dataclasses import dataclass

from biomd.storage import questions
from biomd.storage.database import Database, utc_now


@dataclass(frozen=True, slots=True)
class Revision:
    id: int
    turn_id: int | None
    mode: str
    reason: str
    at: str
    old_text: str
    new_text: str
    undoes_turn: int | None


@dataclass(frozen=True, slots=True)
class Version:
    """A revision with the whole of bio.md as it made it."""

    revision: Revision
    content: str


@dataclass(frozen=True, slots=True)
class LastTurn:
    """The newest turn whose edits are not undone yet, and its first revision."""

    turn_id: int
    first_revision: int


def _pack(text: str) -> bytes:
    return zlib.compress(text.encode("utf-8"), 6)


def _unpack(blob: bytes) -> str:
    return zlib.decompress(blob).decode("utf-8")


_COLUMNS = "id, turn_id, mode, reason, at, old_text, new_text, undoes_turn"


class Revisions:
    def __init__(self, db: Database) -> None:
        self._db = db

    async def add(
        self,
        content: str,
        *,
        turn_id: int | None,
        mode: str,
        reason: str,
        old: str = "",
        new: str = "",
        undoes: int | None = None,
        open_questions: Iterable[tuple[str, str]] = (),
    ) -> None:
        """A new state of bio.md, and its open questions (id, text) by id, together."""
        async with self._db.transaction() as db:
            await db.execute(
                f"INSERT INTO profile_revisions({_COLUMNS.removeprefix('id, ')}, content)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (turn_id, mode, reason, utc_now(), old, new, undoes, _pack(content)),
            )
            await questions.keep_open(db, open_questions)

    async def latest(self, n: int) -> list[str]:
        """The last `n` states of bio.md, newest first."""
        rows = await self._db.fetchall(
            "SELECT content FROM profile_revisions ORDER BY id DESC LIMIT ?", (n,)
        )
        return [_unpack(bytes(r[0])) for r in rows]

    async def history(self, limit: int = 50) -> list[Revision]:
        """The newest revisions, newest first."""
        rows = await self._db.fetchall(
            f"SELECT {_COLUMNS} FROM profile_revisions ORDER BY id DESC LIMIT ?", (limit,)
        )
        return [Revision(*r) for r in rows]

    async def get(self, revision_id: int) -> Revision | None:
        row = await self._db.fetchone(
            f"SELECT {_COLUMNS} FROM profile_revisions WHERE id = ?", (revision_id,)
        )
        return None if row is None else Revision(*row)

    async def versions(self, depth: int) -> list[Version]:
        """The newest `depth` revisions with their content, newest first."""
        rows = await self._db.fetchall(
            f"SELECT {_COLUMNS}, content FROM profile_revisions ORDER BY id DESC LIMIT ?",
            (depth,),
        )
        return [Version(Revision(*r[:8]), _unpack(bytes(r[8]))) for r in rows]

    async def content(self, revision_id: int) -> str | None:
        """bio.md as revision `revision_id` left it."""
        blob = await self._db.scalar(
            "SELECT content FROM profile_revisions WHERE id = ?", (revision_id,)
        )
        return None if blob is None else _unpack(bytes(blob))

    async def content_before(self, revision_id: int) -> str | None:
        """bio.md as it was just before revision `revision_id`."""
        blob = await self._db.scalar(
            "SELECT content FROM profile_revisions WHERE id < ? ORDER BY id DESC LIMIT 1",
            (revision_id,),
        )
        return None if blob is None else _unpack(bytes(blob))

    async def last_turn(self) -> LastTurn | None:
        """The newest turn with edits that are not undone yet."""
        row = await self._db.fetchone(
            "SELECT turn_id, MIN(id) FROM profile_revisions WHERE turn_id IS NOT NULL"
            " AND mode != 'undo' AND turn_id NOT IN (SELECT undoes_turn FROM"
            " profile_revisions WHERE undoes_turn IS NOT NULL)"
            " GROUP BY turn_id ORDER BY MAX(id) DESC LIMIT 1"
        )
        return None if row is None else LastTurn(int(row[0]), int(row[1]))
