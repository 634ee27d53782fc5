"""Scheduled work: open questions pushed to the owner on a cron schedule, a periodic pass
that reads sources still waiting for the biographer (after an LLM outage, say), and the
mirror's pass on its own schedule."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from datetime import tzinfo

from apscheduler.schedulers.asyncio import AsyncIOScheduler
from apscheduler.triggers.cron import CronTrigger
from apscheduler.triggers.interval import IntervalTrigger

from biomd.errors import ConfigError

READ_EVERY_MINUTES = 30
OUTBOX_EVERY_S = 15


def _stoppable(job: Callable[[], Awaitable[object]]) -> Callable[[], Awaitable[None]]:
    """The job, ending quietly when the bot stops mid-run (the work is resumable), instead
    of apscheduler logging the cancellation as a failure with a traceback."""

    async def run() -> None:
        with contextlib.suppress(asyncio.CancelledError):
            await job()

    run.__name__ = getattr(job, "__name__", "job")
    return run


def build_scheduler(
    cron: str,
    zone: tzinfo,
    push_questions: Callable[[], Awaitable[object]],
    read_pending: Callable[[], Awaitable[None]],
    flush_outbox: Callable[[], Awaitable[None]],
    mirror: Callable[[], Awaitable[None]] | None = None,
    mirror_cron: str = "",
) -> AsyncIOScheduler:
    """Not started; call `.start()` inside the running loop."""
    try:
        trigger = CronTrigger.from_crontab(cron, timezone=zone)
    except ValueError as exc:
        raise ConfigError(
            f"BIOMD_QUESTIONS_CRON is {cron!r}, which is not a cron expression such as "
            f"'0 19 * * *' (every day at 19:00): {exc}"
        ) from exc
    mirror_trigger = None
    if mirror is not None and mirror_cron.strip():
        try:
            mirror_trigger = CronTrigger.from_crontab(mirror_cron, timezone=zone)
        except ValueError as exc:
            raise ConfigError(
                f"BIOMD_MIRROR_CRON is {mirror_cron!r}, which is not a cron expression such "
                f"as '30 4 * * *' (every day at 04:30), or '' for never: {exc}"
            ) from exc
    scheduler = AsyncIOScheduler(timezone=zone)
    push_questions, read_pending, flush_outbox = map(
        _stoppable, (push_questions, read_pending, flush_outbox)
    )
    scheduler.add_job(
        push_questions, trigger, id="questions", coalesce=True, misfire_grace_time=3600
    )
    scheduler.add_job(
        read_pending,
        IntervalTrigger(minutes=READ_EVERY_MINUTES, timezone=zone),
        id="read",
        coalesce=True,
    )
    scheduler.add_job(
        flush_outbox,
        IntervalTrigger(seconds=OUTBOX_EVERY_S, timezone=zone),
        id="outbox",
        coalesce=True,
        max_instances=1,
    )
    if mirror is not None and mirror_trigger is not None:
        scheduler.add_job(
            _stoppable(mirror), mirror_trigger, id="mirror", coalesce=True, misfire_grace_time=3600
        )
    return scheduler
