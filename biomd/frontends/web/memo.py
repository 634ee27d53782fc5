"""Pictures rendered once per state of their data, however many pages ask at once.

Rendering a picture with matplotlib holds the GIL for a while, so twenty page loads that
each render it would slow the bots sharing the event loop (bench/loop_lag.py). Requests
for the same data share one render, and its result is kept until the data changes."""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import Awaitable, Callable


class RenderMemo:
    """The latest few renders, keyed by a digest of their input; one render per key."""

    def __init__(self, keep: int = 8) -> None:
        self._keep = keep
        self._done: dict[str, bytes] = {}
        self._running: dict[str, asyncio.Future[bytes]] = {}

    async def get(self, key: str, render: Callable[[], Awaitable[bytes]]) -> bytes:
        """The bytes for `key`: kept, being rendered for another request, or rendered now."""
        digest = hashlib.sha256(key.encode()).hexdigest()
        if (kept := self._done.get(digest)) is not None:
            return kept
        if (running := self._running.get(digest)) is not None:
            return await asyncio.shield(running)
        future: asyncio.Future[bytes] = asyncio.get_running_loop().create_future()
        self._running[digest] = future
        try:
            data = await render()
        except BaseException as exc:
            future.set_exception(exc)
            future.exception()  # marked retrieved: nobody else may be waiting
            raise
        finally:
            del self._running[digest]
        future.set_result(data)
        self._done[digest] = data
        while len(self._done) > self._keep:
            del self._done[next(iter(self._done))]
        return data
