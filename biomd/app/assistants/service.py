"""engine.assistants: what the owner's other assistants keep of them, kept up to date (the
portrait in OpenClaw's USER.md, rewritten when bio.md changes or a source is made private)."""

from __future__ import annotations

from pathlib import Path

from biomd.app.assistants import openclaw
from biomd.biographer.profile import Profile
from biomd.storage.store import Store


class Assistants:
    def __init__(self, data_dir: Path, store: Store, profile: Profile) -> None:
        self.data_dir = data_dir
        self.store = store
        self.profile = profile
        profile.on_change.append(self._tell)

    async def _tell(self, bio: str) -> None:
        hidden = await self.store.documents.private_ids()
        await openclaw.refresh(self.data_dir, bio, hidden)

    async def changed(self) -> None:
        """After what assistants may see changed without bio.md (a source made private)."""
        await self._tell(await self.profile.load())

    async def keep_openclaw_portrait(self, user_md: Path) -> None:
        """Keep the portrait in this USER.md from now on (`biomd openclaw install`)."""
        openclaw.record(self.data_dir, user_md)
        await self.changed()

    def openclaw_portrait(self) -> Path | None:
        """The USER.md the portrait is kept in, if any."""
        return openclaw.recorded(self.data_dir)

    def forget_openclaw_portrait(self) -> None:
        openclaw.record(self.data_dir, None)
