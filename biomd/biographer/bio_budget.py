"""bio.md's size: consolidated (rewritten whole by the model, as one revision of a turn of
its own) when it grows past BIOMD_BIO_MAX_CHARS, or when it would take most of the model's
window and leave a turn no room to read and think."""

from __future__ import annotations

import logging

from biomd.biographer.backend import Backend
from biomd.biographer.consolidate import rewrite
from biomd.biographer.context import CHARS_PER_TOKEN
from biomd.biographer.profile import Profile
from biomd.biographer.profile_text import changed_sections
from biomd.errors import BiomdError
from biomd.models.turn_meter import in_turn
from biomd.storage.store import Store

log = logging.getLogger(__name__)

WINDOW_SHARE = 0.45  # of the model's window, the most bio.md may take before a turn
READING_SLACK = 2.0
"""While a round reads, bio.md may grow to this many times its budget before it is rewritten
(back to its budget): a big upload is consolidated a sixth as often, each rewrite reading
more; the round ends within the budget."""


def room_for(window: int) -> int:
    """Characters bio.md may take in a model's window of `window` tokens."""
    return int(window * WINDOW_SHARE * CHARS_PER_TOKEN)


def held_to(budget: int, room: int) -> int:
    """The size bio.md is consolidated to: its budget, or less where the window is small."""
    return min(budget, int(room * 0.8))


def reading_limit(budget: int, room: int) -> int:
    """The size past which bio.md is consolidated in the middle of a round of reading."""
    return max(budget, min(int(budget * READING_SLACK), room))


class BioBudget:
    def __init__(
        self, limit: int, reply_tokens: int, store: Store, profile: Profile, backend: Backend
    ):
        """bio.md is kept within `limit` characters (BIOMD_BIO_MAX_CHARS); the biographer's
        replies are at most `reply_tokens` long (BIOMD_LLM_MAX_TOKENS)."""
        self.limit = limit
        self.reply_tokens = reply_tokens
        self.store = store
        self.profile = profile
        self.backend = backend

    async def keep_within(self, reading: bool = False) -> bool:
        """Consolidate bio.md when it has grown past BIOMD_BIO_MAX_CHARS (or, in the middle
        of a round of reading, past READING_SLACK times it, within the model's window);
        True if it did."""
        limit = self.limit
        if reading:
            limit = reading_limit(limit, await self.room())
        if len(await self.profile.load()) <= limit:
            return False
        try:
            await self.consolidate()
        except BiomdError as exc:  # the guard refused, or the model failed: keep bio.md
            log.warning("bio.md is over its size budget and was not consolidated: %s", exc)
            return False
        return True

    async def make_room(self) -> None:
        """Consolidate first when bio.md alone would take most of the model's context
        window, so that a turn still has room to read and think."""
        room = await self.room()
        if len(await self.profile.load()) <= room:
            return
        try:
            await self.consolidate(target=held_to(self.limit, room))
        except BiomdError as exc:
            log.warning(
                "bio.md is too big for the model's context and was not consolidated: %s", exc
            )

    async def held_to(self) -> int:
        """The size bio.md is consolidated to, with this model's window."""
        return held_to(self.limit, await self.room())

    async def room(self) -> int:
        """Characters bio.md may take in the model's window before a turn."""
        return room_for(await self.backend.model().context_tokens())

    async def consolidate(self, target: int | None = None) -> list[str]:
        """Rewrite bio.md as one coherent document (of about `target` characters, or
        BIOMD_BIO_MAX_CHARS); the sections that changed."""
        model = self.backend.model()
        await model.check_budget()
        before = await self.profile.load()
        turn_id = await self.store.turns.start("consolidate", "consolidate bio.md")
        try:
            budget = target or self.limit
            longest = max(self.reply_tokens, int(len(before) / 2.5))
            with in_turn(turn_id):
                after = await rewrite(model, before, budget, max_tokens=longest)
        except BaseException as exc:
            await self.store.turns.finish(turn_id, "failed", error=str(exc)[:500])
            raise
        await self.profile.replace(after, turn_id=turn_id, mode="consolidate", reason="consolidate")
        await self.store.turns.finish(turn_id, "done", error=None)
        return changed_sections(before, after)
