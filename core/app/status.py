"""How biomd is doing, gathered once for /status, the terminal and the web view's Status
page: the corpus, the job queue, the biographer's reading, today's spend and recent turns."""

from __future__ import annotations

from dataclasses import dataclass, field

from core.app.engine import Engine
from core.app.jobs import JobQueue
from core.app.sources import Stats
from core.storage.reading import SetAside
from core.storage.turns import TurnSummary


@dataclass(frozen=True)
class Status:
    stats: Stats
    queued: int  # jobs waiting
    unfinished: int  # jobs waiting or running
    running: list[str]  # the jobs running now, as "kind (name)"
    unread: int  # sources waiting for the biographer
    spent_today: float
    limit: float | None
    set_aside: list[SetAside] = field(default_factory=list)
    turns: list[TurnSummary] = field(default_factory=list)


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
        unread=len(await engine.biography.reading.pending()),
        spent_today=await engine.usage.spent_today(),
        limit=engine.usage.limit,
        set_aside=await engine.biography.reading.set_aside(),
        turns=await engine.usage.recent_turns(turns) if turns else [],
    )
