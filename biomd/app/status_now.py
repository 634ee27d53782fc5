"""The status gathered now, from the engine and the job queue, once for each look."""

from __future__ import annotations

from biomd.app.engine import Engine
from biomd.app.jobs import JobQueue
from biomd.app.status import Status


async def gather(engine: Engine, jobs: JobQueue, turns: int = 0) -> Status:
    """The status now, with the last `turns` turns."""
    running = [
        f"{j.kind} ({name})" if (name := getattr(j.payload, "name", "")) else j.kind
        for j in jobs.running.values()
    ]
    return Status(
        stats=await engine.sources.stats(),
        queued=await jobs.waiting(),
        unfinished=await jobs.unfinished(),
        running=running,
        unread=len(await engine.biographer.reading.pending()),
        spent_today=await engine.usage.spent_today(),
        limit=engine.usage.limit,
        set_aside=await engine.biographer.reading.set_aside(),
        turns=await engine.usage.recent_turns(turns) if turns else [],
    )
