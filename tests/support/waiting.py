"""Waiting in tests for something a bot does in the background."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any


async def wait_until(predicate: Any, said: Callable[[], list[str]], seconds: float) -> None:
    """Poll `predicate` until it holds; on timeout, fail showing what the bot said."""
    deadline = time.monotonic() + seconds
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out; bot said: {said()}")
        await asyncio.sleep(0.05)


async def until(predicate: Any, seconds: float = 30.0, why: Callable[[], Any] = lambda: "") -> None:
    """Wait for an async predicate; on timeout, fail with what `why` says."""
    deadline = time.monotonic() + seconds
    while not await predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out {why()}")
        await asyncio.sleep(0.05)
