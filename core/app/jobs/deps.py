"""What the jobs need of the app, and nothing more: the queue's table, where downloads land,
and the services a job calls. Made by the engine (`Engine.job_queue`); the jobs never see it."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from core.app.answers import Answers
    from core.app.mirror.service import Mirror
    from core.app.outbox import Outbox
    from core.app.sources import Sources
    from core.app.told import Told
    from core.biographer.biography import Biography
    from core.storage.jobs import Jobs


@dataclass(frozen=True)
class JobDeps:
    jobs: Jobs  # the queue, kept in SQLite
    inbox: Path  # where a forwarded file is downloaded before it is taken in
    sources: Sources
    biography: Biography
    answers: Answers
    outbox: Outbox
    mirror: Mirror
    told: Told  # what each chat has heard this session
