"""The web view as the tests serve it: over an engine, with the job worker running."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator

from biomd.app.assistant import Assistant
from biomd.app.engine import Engine
from biomd.app.jobs import JobQueue
from biomd.frontends.web.server import WebView
from biomd.settings import Settings


@contextlib.asynccontextmanager
async def working(jobs: JobQueue) -> AsyncIterator[None]:
    """The job worker running until the block ends."""
    worker = asyncio.create_task(jobs.run())
    try:
        yield
    finally:
        worker.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await worker


@contextlib.asynccontextmanager
async def served(settings: Settings, engine: Engine) -> AsyncIterator[WebView]:
    """The web view on a real port over `engine`, its jobs worked through."""
    jobs = engine.job_queue({})
    view = WebView(settings, engine, Assistant(engine, jobs), jobs, announce=lambda _: None)
    await view.start()
    try:
        async with working(jobs):
            yield view
    finally:
        await view.stop()
