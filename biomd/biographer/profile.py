"""bio.md on disk, with every state it has been in kept as a revision in the database.

The database is written first, then the file, atomically (temp file, fsync, rename). On
load the two are reconciled: a missing file is restored, a file one step behind the log is
rolled forward (a crash between the two writes), and a file that differs otherwise was
edited by hand, which is recorded as a revision of its own, as it is: reading never writes
bio.md (a question typed by hand gets its id in the file at biomd's next change to it).
So nothing written is lost, and the log always agrees with the file."""

from __future__ import annotations

import asyncio
import contextlib
import difflib
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from itertools import pairwise
from pathlib import Path

from biomd.biographer.edits import apply_edit
from biomd.biographer.profile_text import (
    number_questions,
    open_questions,
    section,
    section_titles,
    skeleton,
    timeline,
)
from biomd.errors import NotFound
from biomd.storage.atomic import write_atomically
from biomd.storage.revisions import Revision
from biomd.storage.store import Store

log = logging.getLogger(__name__)

STALE_TEMP_S = 60.0  # a write takes milliseconds; a temp file this old is a crash's leftover
NEXT_QUESTION = "next_question_id"  # meta: the number the next new open question gets


@dataclass(frozen=True, slots=True)
class Change:
    """A revision and what it changed: unified diff lines, without the file header."""

    revision: Revision
    diff: list[str]


@dataclass(frozen=True, slots=True)
class Undone:
    """The turn whose edits were reverted, and bio.md as it is now."""

    turn_id: int
    content: str


def _sweep_temp_files(folder: Path, older_than_s: float = STALE_TEMP_S) -> None:
    """Remove half-written copies a killed process left behind (never one being written)."""
    cutoff = time.time() - older_than_s
    for tmp in folder.glob(".bio-*.tmp"):
        with contextlib.suppress(FileNotFoundError):
            if tmp.stat().st_mtime < cutoff:
                tmp.unlink()


class Profile:
    """The owner's bio.md and its history."""

    def __init__(self, store: Store, path: Path, language: str = "") -> None:
        self.store = store
        self.path = path
        self.language = language or "en"  # the headings of a new bio.md
        self._lock = asyncio.Lock()
        self.on_change: list[Callable[[str], Awaitable[None]]] = []
        """Told each new bio.md, once it is kept (under the profile's lock: they must not
        load it). One that fails is logged; bio.md is kept all the same."""

    async def load(self) -> str:
        """The current bio.md, reconciled with the revision log (see the module docstring)."""
        async with self._lock:
            return await self._reconcile()

    async def _reconcile(self) -> str:
        """bio.md as it is, its revisions brought level with the file; open questions typed
        by hand read with the ids they will get (the file is written only to create or
        restore it: reading never changes it)."""
        await asyncio.to_thread(_sweep_temp_files, self.path.parent)
        on_disk = self.path.read_text(encoding="utf-8") if self.path.exists() else None
        latest = await self._latest(2)
        if not latest and on_disk is None:
            content = await self._numbered(skeleton(self.language))
            await self._commit(content, None, "init", "the skeleton")
            return content
        if not latest:
            await self._commit(on_disk or "", None, "init", "found an existing bio.md", write=False)
            return await self._provisional(on_disk or "")
        last = latest[0]
        if on_disk != last and (on_disk is None or (len(latest) > 1 and on_disk == latest[1])):
            await asyncio.to_thread(write_atomically, self.path, last)
            return await self._provisional(last)
        if on_disk != last:
            await self._commit(
                on_disk or "", None, "manual", "bio.md was edited by hand", write=False
            )
        return await self._provisional(on_disk or "")

    async def register_questions(self) -> str:
        """Give the open questions typed by hand their ids in bio.md, as a revision of its
        own: before one is pushed or answered, so the id the owner sees is kept."""
        async with self._lock:
            content = await self._reconcile()
            if content != (await self._latest(1))[0]:
                content = await self._numbered(content)
                await self._commit(content, None, "manual", "open questions typed by hand")
            return content

    async def edit(
        self,
        old: str,
        new: str,
        *,
        section: str | None = None,
        turn_id: int | None,
        mode: str,
        reason: str,
        check: Callable[[str, str], None] | None = None,
    ) -> str:
        """Apply one edit (see `edits.apply_edit`), number new open questions, keep a
        revision. `check` sees bio.md before and after the edit, once, and may refuse it by
        raising."""
        async with self._lock:
            content = await self._reconcile()
            changed = apply_edit(content, old, new, section)
            if check is not None:
                check(content, changed)
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

    async def undo(self) -> Undone | None:
        """Revert the edits of the most recent turn not yet undone."""
        async with self._lock:
            await self._reconcile()
            last = await self.store.revisions.last_turn()
            if last is None:
                return None
            content = await self.store.revisions.content_before(last.first_revision)
            if content is None:
                raise NotFound("There is no earlier version of bio.md to go back to.")
            turn = last.turn_id
            await self._commit(content, None, "undo", f"undo turn {turn}", undoes=turn)
            return Undone(turn, content)

    async def history(self, limit: int = 50) -> list[Revision]:
        return await self.store.revisions.history(limit)

    async def section_changes(self, depth: int = 500) -> dict[str, Revision]:
        """For each section of the current bio.md, the revision that last changed it
        (looking back at most `depth` revisions)."""
        versions = await self.store.revisions.versions(depth)
        if not versions:
            return {}
        titles = section_titles(versions[0].content)
        found: dict[str, Revision] = {}
        for newer, older in pairwise(versions):
            for title in titles:
                if title not in found and section(newer.content, title) != section(
                    older.content, title
                ):
                    found[title] = newer.revision
        oldest = versions[-1].revision
        return {title: found.get(title, oldest) for title in titles}

    async def timeline(self) -> list[str]:
        """The Timeline section's bullets."""
        return timeline(await self.load())

    async def sections(self) -> list[tuple[str, str]]:
        """Each `## ` section of bio.md, in order: its heading and its body."""
        bio = await self.load()
        return [(title, section(bio, title)) for title in section_titles(bio)]

    async def change(self, revision_id: int) -> Change:
        """What revision `revision_id` changed, as a diff of bio.md before and after it."""
        revision = await self.store.revisions.get(revision_id)
        after = await self.store.revisions.content(revision_id)
        if revision is None or after is None:
            raise NotFound(f"There is no revision {revision_id} of bio.md.")
        before = await self.store.revisions.content_before(revision_id) or ""
        diff = difflib.unified_diff(
            before.splitlines(), after.splitlines(), "before", "after", lineterm="", n=2
        )
        return Change(revision, list(diff)[2:])

    async def version(self, revision_id: int) -> str:
        content = await self.store.revisions.content(revision_id)
        if content is None:
            raise NotFound(f"There is no revision {revision_id} of bio.md.")
        return content

    async def _latest(self, n: int) -> list[str]:
        return await self.store.revisions.latest(n)

    async def _numbered(self, content: str) -> str:
        """`content` with an id for every open question, the next id kept."""
        kept = int(await self.store.meta.get(NEXT_QUESTION) or 0)
        numbered, next_id = number_questions(content, await self._first_free(content, kept))
        if next_id != kept:
            await self.store.meta.set({NEXT_QUESTION: str(next_id)})
        return numbered

    async def _provisional(self, content: str) -> str:
        """`content` with the ids its questions typed by hand will get, nothing kept."""
        kept = int(await self.store.meta.get(NEXT_QUESTION) or 0)
        return number_questions(content, await self._first_free(content, kept))[0]

    async def _first_free(self, content: str, kept: int) -> int:
        """The next question id: never one used before, nor one `content` holds."""
        start = kept or await self.store.questions.count() + 1
        held = [int(q.id[1:]) for q in open_questions(content) if q.id[1:].isdigit()]
        return max(start, max(held, default=0) + 1)

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
        await self.store.revisions.add(
            content,
            turn_id=turn_id,
            mode=mode,
            reason=reason,
            old=old,
            new=new,
            undoes=undoes,
            open_questions=[(q.id, q.text) for q in open_questions(content)],
        )
        if write:
            await asyncio.to_thread(write_atomically, self.path, content)
        for told in self.on_change:
            try:
                await told(content)
            except Exception:  # an assistant's copy failing never loses an edit
                log.exception("after a change to bio.md")
