"""bio.md on disk, with every state it has been in kept as a revision in the database.

The database is written first, then the file, atomically (temp file, fsync, rename). On
load the two are reconciled: a missing file is restored, a file one step behind the log is
rolled forward (a crash between the two writes), and a file that differs otherwise was
edited by hand, which is recorded as a revision of its own. So nothing written is lost,
and the log always agrees with the file."""

from __future__ import annotations

import asyncio
import contextlib
import time
import zlib
from dataclasses import dataclass
from itertools import pairwise
from pathlib import Path

from core.biographer.edits import apply_edit
from core.biographer.profile_text import (
    SKELETON,
    number_questions,
    open_questions,
    section,
    section_titles,
)
from core.errors import NotFound
from core.storage.atomic import write_atomically
from core.storage.store import Store, utc_now

STALE_TEMP_S = 60.0  # a write takes milliseconds; a temp file this old is a crash's leftover


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


def _pack(text: str) -> bytes:
    return zlib.compress(text.encode("utf-8"), 6)


def _unpack(blob: bytes) -> str:
    return zlib.decompress(blob).decode("utf-8")


def _sweep_temp_files(folder: Path, older_than_s: float = STALE_TEMP_S) -> None:
    """Remove half-written copies a killed process left behind (never one being written)."""
    cutoff = time.time() - older_than_s
    for tmp in folder.glob(".bio-*.tmp"):
        with contextlib.suppress(FileNotFoundError):
            if tmp.stat().st_mtime < cutoff:
                tmp.unlink()


class Profile:
    """The owner's bio.md and its history."""

    def __init__(self, store: Store, path: Path) -> None:
        self.store = store
        self.path = path
        self._lock = asyncio.Lock()

    async def load(self) -> str:
        """The current bio.md, reconciled with the revision log (see the module docstring)."""
        async with self._lock:
            return await self._reconcile()

    async def _reconcile(self) -> str:
        await asyncio.to_thread(_sweep_temp_files, self.path.parent)
        on_disk = self.path.read_text(encoding="utf-8") if self.path.exists() else None
        latest = await self._latest(2)
        if not latest:
            content = on_disk if on_disk is not None else SKELETON
            reason = "found an existing bio.md" if on_disk is not None else "the skeleton"
            await self._commit(content, None, "init", reason)
            return content
        last = latest[0]
        if on_disk == last:
            return last
        if on_disk is None or (len(latest) > 1 and on_disk == latest[1]):
            await asyncio.to_thread(write_atomically, self.path, last)
            return last
        await self._commit(on_disk, None, "manual", "bio.md was edited by hand", write=False)
        return on_disk

    async def edit(
        self,
        old: str,
        new: str,
        *,
        section: str | None = None,
        turn_id: int | None,
        mode: str,
        reason: str,
    ) -> str:
        """Apply one edit (see `edits.apply_edit`), number new open questions, keep a
        revision."""
        async with self._lock:
            content = await self._reconcile()
            changed = apply_edit(content, old, new, section)
            changed = await self._numbered(changed)
            await self._commit(changed, turn_id, mode, reason, old=old, new=new)
            return changed

    async def replace(self, content: str, *, turn_id: int | None, mode: str, reason: str) -> str:
        """Put a whole new bio.md in place (consolidation), as one revision."""
        async with self._lock:
            await self._reconcile()
            content = await self._numbered(content)
            await self._commit(content, turn_id, mode, reason)
            return content

    async def undo_last_turn(self) -> tuple[int, str] | None:
        """Revert the edits of the most recent turn not yet undone; (turn id, content)."""
        async with self._lock:
            await self._reconcile()
            row = await self.store.fetchone(
                "SELECT turn_id, MIN(id) FROM profile_revisions WHERE turn_id IS NOT NULL"
                " AND mode != 'undo' AND turn_id NOT IN (SELECT undoes_turn FROM"
                " profile_revisions WHERE undoes_turn IS NOT NULL)"
                " GROUP BY turn_id ORDER BY MAX(id) DESC LIMIT 1"
            )
            if row is None:
                return None
            turn_id, first = int(row[0]), int(row[1])
            before = await self.store.fetchone(
                "SELECT content FROM profile_revisions WHERE id < ? ORDER BY id DESC LIMIT 1",
                (first,),
            )
            if before is None:
                raise NotFound("There is no earlier version of bio.md to go back to.")
            content = _unpack(bytes(before[0]))
            await self._commit(content, None, "undo", f"undo turn {turn_id}", undoes=turn_id)
            return turn_id, content

    async def history(self, limit: int = 50) -> list[Revision]:
        rows = await self.store.fetchall(
            "SELECT id, turn_id, mode, reason, at, old_text, new_text, undoes_turn"
            " FROM profile_revisions ORDER BY id DESC LIMIT ?",
            (limit,),
        )
        return [Revision(*r) for r in rows]

    async def section_changes(self, depth: int = 500) -> dict[str, Revision]:
        """For each section of the current bio.md, the revision that last changed it
        (looking back at most `depth` revisions)."""
        rows = await self.store.fetchall(
            "SELECT id, turn_id, mode, reason, at, old_text, new_text, undoes_turn, content"
            " FROM profile_revisions ORDER BY id DESC LIMIT ?",
            (depth,),
        )
        if not rows:
            return {}
        versions = [(Revision(*r[:8]), _unpack(bytes(r[8]))) for r in rows]
        titles = section_titles(versions[0][1])
        found: dict[str, Revision] = {}
        for (newer, text), (_, before) in pairwise(versions):
            for title in titles:
                if title not in found and section(text, title) != section(before, title):
                    found[title] = newer
        oldest = versions[-1][0]
        return {title: found.get(title, oldest) for title in titles}

    async def version(self, revision_id: int) -> str:
        row = await self.store.fetchone(
            "SELECT content FROM profile_revisions WHERE id = ?", (revision_id,)
        )
        if row is None:
            raise NotFound(f"There is no revision {revision_id} of bio.md.")
        return _unpack(bytes(row[0]))

    async def _latest(self, n: int) -> list[str]:
        rows = await self.store.fetchall(
            "SELECT content FROM profile_revisions ORDER BY id DESC LIMIT ?", (n,)
        )
        return [_unpack(bytes(r[0])) for r in rows]

    async def _numbered(self, content: str) -> str:
        row = await self.store.fetchone(
            "SELECT (SELECT value FROM meta WHERE key = 'next_question_id'),"
            " (SELECT COUNT(*) FROM questions)"
        )
        assert row is not None
        start = int(row[0] or 0) or int(row[1]) + 1
        numbered, next_id = number_questions(content, start)
        if next_id != start:
            await self.store.set_meta({"next_question_id": str(next_id)})
        return numbered

    async def _commit(
        self,
        content: str,
        turn_id: int | None,
        mode: str,
        reason: str,
        *,
        old: str = "",
        new: str = "",
        undoes: int | None = None,
        write: bool = True,
    ) -> None:
        async with self.store.transaction() as db:
            await db.execute(
                "INSERT INTO profile_revisions(turn_id, mode, reason, at, old_text, new_text,"
                " undoes_turn, content) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (turn_id, mode, reason, utc_now(), old, new, undoes, _pack(content)),
            )
            await db.executemany(
                "INSERT INTO questions(id, text, created_at) VALUES (?, ?, ?)"
                " ON CONFLICT(id) DO UPDATE SET text = excluded.text",
                [(q.id, q.text, utc_now()) for q in open_questions(content)],
            )
        if write:
            await asyncio.to_thread(write_atomically, self.path, content)
