"""The job queue: long work from the bots, the terminal and the web view, persistent in
SQLite, done one job at a time per lane by a single worker, so bio.md has one writer. Jobs
survive restarts; a job that fails unexpectedly is retried a bounded number of times, then
reported to the owner. A platform that is unreachable is waited for, however long."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING

from biomd.app import replies
from biomd.app.channels import Channel, StatusMessage
from biomd.app.jobs.handlers import Handlers
from biomd.app.jobs.payloads import Job, Payload, ReplyTo, decode, encode, lane
from biomd.errors import BiomdError, PlatformUnavailable

if TYPE_CHECKING:
    from biomd.app.jobs.deps import JobDeps

log = logging.getLogger(__name__)

MAX_ATTEMPTS = 3
RETRY_DELAY_S = 30
PLATFORM_RETRY_S = 60
LANES = ("main", "media")


class JobQueue:
    """Submit jobs from handlers; `run` works through them until cancelled."""

    def __init__(self, deps: JobDeps, channels: dict[str, Channel]) -> None:
        self.jobs = deps.jobs
        self.outbox = deps.outbox
        self.channels = channels
        self.handlers = Handlers(deps, self)
        self.running: dict[str, Job] = {}
        self._wakes: dict[str, asyncio.Event] = {}

    async def submit(self, payload: Payload) -> int:
        job_id = await self.jobs.add(payload.kind, encode(payload), lane(payload))
        for wake in self._wakes.values():
            wake.set()
        return job_id

    async def recover(self) -> int:
        """Jobs a previous process was running go back in the queue; how many."""
        return await self.jobs.recover()

    async def waiting(self) -> int:
        return await self.jobs.queued()

    async def unfinished(self) -> int:
        """Jobs queued or running."""
        return await self.jobs.unfinished()

    def target(self, payload: Payload) -> tuple[Channel | None, str]:
        """The channel and chat a job reports to (None where it reports nowhere)."""
        if not isinstance(payload, ReplyTo):
            return None, ""
        return self.channels.get(str(payload.platform)), payload.chat

    def status(self, payload: Payload) -> StatusMessage | None:
        """The status message a job edits as it goes along."""
        channel, chat = self.target(payload)
        if channel is None or not isinstance(payload, ReplyTo):
            return None
        return StatusMessage(channel, chat, payload.status)

    async def save(self, job: Job) -> None:
        """Keep what a job learned so far (a download's path), for a resumed run."""
        await self.jobs.save_payload(job.id, encode(job.payload))

    async def run(self) -> None:
        """Work through the queue until cancelled (a cancelled job stays resumable). Two
        lanes: speech and video are transcribed in their own, so an hour of audio never
        holds up an answer; everything that writes bio.md runs in the main lane."""
        await self.recover()
        await asyncio.gather(*(self._lane(name) for name in LANES))

    async def run_until_idle(self) -> None:
        """Process queued jobs until none is due (tests, and one-shot runs)."""
        await self.recover()
        while (job := await self._claim()) is not None:
            await self._work(job, "main")

    async def _lane(self, name: str) -> None:
        wake = self._wakes.setdefault(name, asyncio.Event())
        while True:
            job = await self._claim(name)
            if job is None:
                wake.clear()
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(wake.wait(), timeout=5)
                continue
            await self._work(job, name)

    async def _claim(self, name: str | None = None) -> Job | None:
        row = await self.jobs.claim(name)
        if row is None:
            return None
        try:
            payload = decode(row.kind, row.payload)
        except (BiomdError, TypeError, ValueError) as exc:
            reason = exc.user_message if isinstance(exc, BiomdError) else f"a bad payload: {exc}"
            await self.jobs.finish(row.id, "failed", reason)
            return await self._claim(name)
        return Job(row.id, payload, row.attempts)

    async def _work(self, job: Job, name: str) -> None:
        self.running[name] = job
        try:
            await self._process(job)
        finally:
            self.running.pop(name, None)

    async def _process(self, job: Job) -> None:
        try:
            await self.handlers.run(job)
        except asyncio.CancelledError:
            raise  # stays 'running'; queued again at the next start
        except PlatformUnavailable as exc:
            log.warning("job %s (%s) waits for the platform: %s", job.id, job.kind, exc)
            await self._failed(job, exc)
            return
        except Exception as exc:
            log.exception("job %s (%s) failed", job.id, job.kind)
            await self._failed(job, exc)
            return
        await self.jobs.finish(job.id, "done")

    async def _failed(self, job: Job, exc: Exception) -> None:
        reason = exc.user_message if isinstance(exc, BiomdError) else f"{type(exc).__name__}: {exc}"
        jobs = self.jobs
        if isinstance(exc, PlatformUnavailable):  # not the job's fault: wait, however long
            later = datetime.now(UTC) + timedelta(seconds=PLATFORM_RETRY_S)
            await jobs.again_at(job.id, later.isoformat(timespec="seconds"), reason, counts=False)
            return
        if job.attempts < MAX_ATTEMPTS:
            later = datetime.now(UTC) + timedelta(seconds=RETRY_DELAY_S * job.attempts)
            await jobs.again_at(job.id, later.isoformat(timespec="seconds"), reason, counts=True)
            return
        await jobs.finish(job.id, "failed", reason)
        channel, chat = self.target(job.payload)
        if channel is not None and chat:
            name = getattr(job.payload, "name", None) or job.kind
            await self.outbox.deliver(channel, chat, replies.gave_up(name, job.attempts, reason))
