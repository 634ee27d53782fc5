"""How biomd is doing, as /status, the terminal and the web view's Status page show it: the
corpus, the job queue, the biographer's reading, today's spend and recent turns (gathered by
status_now.py)."""

from __future__ import annotations

from dataclasses import dataclass, field

from biomd.app.sources import Stats
from biomd.storage.reading import SetAside
from biomd.storage.turns import TurnSummary


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
