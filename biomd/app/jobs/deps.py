"""What the jobs need of the app, and nothing more: the queue's table, where downloads land,
and the services a job calls. Made by the engine (`Engine.job_queue`); the jobs never see it."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from biomd.app.answers import Answers
    from biomd.app.mirror.service import Mirror
    from biomd.app.outbox import Outbox
    from biomd.app.sources import Sources
    from biomd.app.told import Told
    from biomd.biographer.biographer import Biographer
    from biomd.storage.jobs import Jobs


@dataclass(frozen=True)
class JobDeps:
    jobs: Jobs  # the queue, kept in SQLite
    inbox: Path  # where a forwarded file is downloaded before it is taken in
    sources: Sources
    biographer: Biographer
    answers: Answers
    outbox: Outbox
    mirror: Mirror
    told: Told  # what each chat has heard this session
