"""engine.assistants: the owner's other assistants. What they keep of the owner, kept up to
date (the portrait in OpenClaw's USER.md, rewritten when bio.md changes or a source is made
private), and which are connected, what each last read and when (`biomd assistants`)."""

from __future__ import annotations

import asyncio
import json
import logging
from dataclasses import dataclass
from pathlib import Path

from biomd.app.assistants import hermes, openclaw
from biomd.biographer.profile import Profile
from biomd.storage.database import utc_now
from biomd.storage.store import Store

log = logging.getLogger(__name__)
SEEN = "assistant:"  # meta: what each MCP client last read, by its name


@dataclass(frozen=True)
class Seen:
    client: str  # as it names itself over MCP (hermes-agent, openclaw-bundle-mcp, claude-ai…)
    tool: str  # what it last called
    at: str  # when, UTC
    calls: int


@dataclass(frozen=True)
class Connected:
    """How each assistant biomd can install into is connected."""

    hermes: Path | None  # the provider's folder, if installed in Hermes's home
    hermes_selected: bool
    openclaw: Path | None  # the USER.md the portrait is kept in, if installed
    seen: list[Seen]


class Assistants:
    def __init__(self, data_dir: Path, store: Store, profile: Profile) -> None:
        self.data_dir = data_dir
        self.store = store
        self.profile = profile
        profile.on_change.append(self._tell)
        self._pending: set[asyncio.Task[None]] = set()

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

    async def seen(self, client: str, tool: str) -> None:
        """Note that `client` called `tool` now; never in the way of the call (a failure is
        logged)."""
        key = SEEN + (client or "an MCP client")[:60]
        try:
            before = json.loads(await self.store.meta.get(key) or "{}")
            calls = int(before.get("calls", 0)) + 1
            value = {"tool": tool, "at": utc_now(), "calls": calls}
            await self.store.meta.set({key: json.dumps(value)})
        except Exception as exc:
            log.warning("could not note what %s read: %s", client, exc)

    def note_seen(self, client: str, tool: str) -> None:
        """`seen`, in the background: an assistant's call does not wait for the write."""
        task = asyncio.get_running_loop().create_task(self.seen(client, tool))
        self._pending.add(task)
        task.add_done_callback(self._pending.discard)

    async def settle(self) -> None:
        """Let the notes still being written finish (before the store closes)."""
        if self._pending:
            await asyncio.gather(*self._pending, return_exceptions=True)

    async def connected(self, hermes_home: Path | None = None) -> Connected:
        """Which assistants are connected, and what each MCP client last read."""
        home = hermes.hermes_home(hermes_home)
        folder = hermes.plugin_folder(home)
        installed = folder if (folder / hermes.CONFIG).is_file() else None
        seen = []
        for key, value in (await self.store.meta.starting(SEEN)).items():
            found = json.loads(value)
            seen.append(Seen(key[len(SEEN) :], found["tool"], found["at"], int(found["calls"])))
        seen.sort(key=lambda s: s.at, reverse=True)
        return Connected(installed, hermes.selected(home), self.openclaw_portrait(), seen)
