"""The job queue: long work from the bot, persistent in SQLite, done one job at a time by a
single worker, so bio.md has one writer. Jobs survive restarts; a job that fails
unexpectedly is retried a bounded number of times, then reported to the owner."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from core.app.channels import Channel, StatusMessage
from core.app.engine import Engine
from core.app.replies import with_source_hint
from core.errors import BiomdError, LLMError, PlatformUnavailable
from core.storage.store import Store

log = logging.getLogger(__name__)

MAX_ATTEMPTS = 3
RETRY_DELAY_S = 30
PLATFORM_RETRY_S = 60
_EDIT_EVERY_S = 1.5


@dataclass(frozen=True, slots=True)
class Job:
    id: int
    kind: str
    payload: dict[str, Any]
    attempts: int


class JobQueue:
    """Submit jobs from handlers; `run` works through them until cancelled."""

    def __init__(self, engine: Engine, channels: dict[str, Channel]) -> None:
        self.engine = engine
        self.channels = channels
        self.running: dict[str, Job] = {}
        self._wakes: dict[str, asyncio.Event] = {}

    @property
    def store(self) -> Store:
        return self.engine.store

    async def submit(self, kind: str, payload: dict[str, Any]) -> int:
        job_id = await self.store.jobs.add(kind, json.dumps(payload), lane_of(kind, payload))
        for wake in self._wakes.values():
            wake.set()
        return job_id

    async def recover(self) -> int:
        """Jobs a previous process was running go back in the queue; how many."""
        return await self.store.jobs.recover()

    async def waiting(self) -> int:
        return await self.store.jobs.queued()

    async def _claim(self, lane: str | None = None) -> Job | None:
        row = await self.store.jobs.claim(lane)
        if row is None:
            return None
        return Job(row.id, row.kind, json.loads(row.payload), row.attempts)

    async def run(self) -> None:
        """Work through the queue until cancelled (a cancelled job stays resumable). Two
        lanes: speech and video are transcribed in their own, so an hour of audio never
        holds up an answer; everything that writes bio.md runs in the main lane."""
        await self.recover()
        await asyncio.gather(self._lane("main"), self._lane("media"))

    async def _lane(self, lane: str) -> None:
        wake = self._wakes.setdefault(lane, asyncio.Event())
        while True:
            job = await self._claim(lane)
            if job is None:
                wake.clear()
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(wake.wait(), timeout=5)
                continue
            self.running[lane] = job
            try:
                await self._process(job)
            finally:
                self.running.pop(lane, None)

    async def run_until_idle(self) -> None:
        """Process queued jobs until none is due (tests, and one-shot runs)."""
        await self.recover()
        while (job := await self._claim()) is not None:
            self.running["main"] = job
            try:
                await self._process(job)
            finally:
                self.running.pop("main", None)

    async def _process(self, job: Job) -> None:
        handler = getattr(self, f"_do_{job.kind}", None)
        try:
            if handler is None:
                raise BiomdError(f"unknown job kind {job.kind!r}")
            await handler(job)
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
        await self._finish(job.id, "done", None)

    async def _failed(self, job: Job, exc: Exception) -> None:
        reason = exc.user_message if isinstance(exc, BiomdError) else f"{type(exc).__name__}: {exc}"
        if isinstance(exc, PlatformUnavailable):  # not the job's fault: wait, however long
            later = datetime.now(UTC) + timedelta(seconds=PLATFORM_RETRY_S)
            await self.store.jobs.again_at(
                job.id, later.isoformat(timespec="seconds"), reason, counts=False
            )
            return
        if job.attempts < MAX_ATTEMPTS:
            later = datetime.now(UTC) + timedelta(seconds=RETRY_DELAY_S * job.attempts)
            await self.store.jobs.again_at(
                job.id, later.isoformat(timespec="seconds"), reason, counts=True
            )
            return
        await self._finish(job.id, "failed", reason)
        channel, chat = self._target(job)
        if channel is not None and chat:
            name = job.payload.get("name") or job.kind
            await self.engine.outbox.deliver(
                channel, chat, f"Sorry, I gave up on {name} after {job.attempts} tries: {reason}"
            )

    async def _finish(self, job_id: int, status: str, error: str | None) -> None:
        await self.store.jobs.finish(job_id, status, error)

    async def _save_payload(self, job: Job) -> None:
        await self.store.jobs.save_payload(job.id, json.dumps(job.payload))

    def _target(self, job: Job) -> tuple[Channel | None, str]:
        return self.channels.get(str(job.payload.get("platform"))), str(job.payload.get("chat", ""))

    def _status(self, job: Job) -> StatusMessage | None:
        channel, chat = self._target(job)
        if channel is None:
            return None
        return StatusMessage(channel, chat, job.payload.get("status"))

    # -- job kinds ------------------------------------------------------------------------

    async def _do_source(self, job: Job) -> None:
        """A forwarded file or voice note: download, ingest, read, report."""
        p = job.payload
        channel, chat = self._target(job)
        status = self._status(job)
        show = _Throttled(status)
        name = str(p["name"])
        inbox = self.engine.settings.data_dir / "inbox"
        await asyncio.to_thread(inbox.mkdir, mode=0o700, exist_ok=True)
        path = Path(p.get("path") or inbox / f"{job.id}-{_safe(name)}")
        if not await asyncio.to_thread(path.exists):
            await show(f"{name}: downloading…", force=True)
            if channel is None:
                raise BiomdError(f"the {p.get('platform')} connection is not running")
            await channel.download(str(p["file"]), path)
            p["path"] = str(path)
            await self._save_payload(job)
        await show(f"{name}: converting…", force=True)
        size = max(1, (await asyncio.to_thread(path.stat)).st_size)

        async def indexing(_: str, chars: int) -> None:
            await show(f"{name}: indexing {min(99, chars * 100 // size)}%")

        results = await self.engine.sources.ingest_file(path, name, _sync(indexing))
        added = [r.document_id for r in results if r.status == "added" and r.document_id]
        lines = [_result_line(r) for r in results if r.status != "added"]
        if added:
            await show(f"{name}: indexing (vectors)…", force=True)
            try:
                await self.engine.sources.embed_pending()
            except BiomdError as exc:
                lines.append(f"Vectors are not made yet: {exc.user_message}")
        if p.get("echo") and added and channel is not None:
            heard = (await self.engine.sources.read(added[0])).text
            await self.engine.outbox.deliver(channel, chat, f"Heard:\n{heard.strip()}")
        await asyncio.to_thread(path.unlink, missing_ok=True)
        follow = {k: p.get(k) for k in ("platform", "chat", "status", "name", "question")}
        follow |= {"documents": added, "lines": lines}
        if lane_of(job.kind, p) == "media":
            # The biographer's part goes to the main lane: one writer for bio.md.
            await show(f"{name}: transcribed; the biographer reads it next…", force=True)
            await self.submit("learn", follow)
        else:
            await self._learn(follow, show)

    async def _do_learn(self, job: Job) -> None:
        await self._learn(job.payload, _Throttled(self._status(job)))

    async def _learn(self, p: dict[str, Any], show: _Throttled) -> None:
        """The biographer reads the new sources (or takes one as an answer), then a summary."""
        name, added = str(p["name"]), [int(d) for d in p.get("documents") or []]
        lines = list(p.get("lines") or [])
        question = p.get("question")
        if question and added:
            await show(f"{name}: taking it as your answer to {question}…", force=True)
            lines.append(await self._answer(str(question), added[0]))
        elif added:
            lines.append(await self._read(added, show, name))
        await show(f"{name}: done", force=True)
        channel = self.channels.get(str(p.get("platform")))
        if channel is not None:
            text = "\n\n".join(x for x in lines if x) or f"{name}: done."
            await self.engine.outbox.deliver(channel, str(p.get("chat", "")), text)

    async def _read(self, added: list[int], show: _Throttled, name: str) -> str:
        """The biographer's reading of new sources, or why it has to wait."""
        if not self.engine.biography.configured:
            return (
                f"{name} is stored and searchable. The biographer will read it once an LLM is "
                "configured."
            )
        await show(f"{name}: reading it (biographer)…", force=True)
        try:
            results = await self.engine.biography.read_pending(only=set(added))
        except LLMError as exc:
            return (
                f"{name} is stored and searchable. The biographer could not read it yet, and "
                f"will when the model answers again: {exc.user_message}"
            )
        return _turn_summary(results)

    async def _answer(self, question: str, document_id: int) -> str:
        source = await self.engine.sources.read(document_id)
        text = source.text.split("\n\n", 1)[-1]
        try:
            answered = await self.engine.answers.answer(question, text)
        except LLMError as exc:
            return _answer_waits(exc)
        return _turn_summary([answered.result])

    async def _do_answer(self, job: Job) -> None:
        p = job.payload
        channel, chat = self._target(job)
        status = self._status(job)
        if status:
            await status.set(f"Taking in your answer to {p['question']}…")
        try:
            answered = await self.engine.answers.answer(str(p["question"]), str(p["text"]))
            reply = (
                f"Your answer is source #{answered.document_id}.\n\n"
                f"{_turn_summary([answered.result])}"
            )
        except LLMError as exc:
            reply = _answer_waits(exc)
        if status:
            await status.set(f"Answer to {p['question']}: done")
        if channel is not None:
            await self.engine.outbox.deliver(channel, chat, with_source_hint(reply))

    async def _do_note(self, job: Job) -> None:
        """A note another assistant asked biomd to remember (over MCP): kept as a source,
        then read like any."""
        p = job.payload
        doc = await self.engine.answers.note(str(p["text"]), str(p["client"]), str(p["at"]))
        if self.engine.biography.configured:
            with contextlib.suppress(LLMError):  # read later, as after any outage
                await self.engine.biography.read_pending(only={doc})

    async def _do_consolidate(self, job: Job) -> None:
        channel, chat = self._target(job)
        status = self._status(job)
        if status:
            await status.set("Consolidating bio.md…")
        changed = await self.engine.biography.consolidate()
        if channel is not None:
            done = ", ".join(changed) if changed else "nothing needed changing"
            await self.engine.outbox.deliver(channel, chat, f"bio.md is consolidated ({done}).")

    async def _do_read(self, job: Job) -> None:
        """Read whatever is still waiting (periodically, after an LLM outage say); with a
        chat in the payload, say there when it is done."""
        if not (self.engine.biography.configured and await self.engine.biography.pending()):
            return
        results = await self.engine.biography.read_pending()
        channel, chat = self._target(job)
        if channel is not None and results:
            edits = sum(r.edits for r in results)
            refused = sum(len(r.refused) for r in results)
            changed = sorted({s for r in results for s in r.sections_changed})
            text = f"The biographer has finished reading: {edits} edits to bio.md"
            text += f" ({', '.join(changed)})" if changed else ""
            text += f", {refused} refused." if refused else "."
            unread = [r.reading for r in results if "not read" in r.reading]
            if unread:
                text += "\n" + "\n".join(unread)
            await self.engine.outbox.deliver(channel, chat, text + READ_NEXT)


READ_NEXT = " /bio shows it all, /timeline and /questions the parts."


def _answer_waits(exc: LLMError) -> str:
    return (
        "Your answer is stored and searchable. The biographer could not take it in yet, and "
        f"will when the model answers again: {exc.user_message}"
    )


def lane_of(kind: str, payload: dict[str, Any]) -> str:
    """'media' for speech and video to transcribe, 'main' for everything else."""
    media = payload.get("media") in ("voice", "audio", "video", "video_note")
    return "media" if kind == "source" and media else "main"


class _Throttled:
    """Status updates at most every 1.5 s, except forced ones."""

    def __init__(self, status: StatusMessage | None) -> None:
        self.status = status
        self._at = 0.0

    async def __call__(self, text: str, force: bool = False) -> None:
        if self.status is None:
            return
        now = time.monotonic()
        if force or now - self._at >= _EDIT_EVERY_S:
            self._at = now
            await self.status.set(text)


def _sync(fn: Any) -> Any:
    """Ingest progress is reported synchronously; schedule the async status edit."""

    def call(name: str, chars: int) -> None:
        asyncio.get_running_loop().create_task(fn(name, chars))

    return call


def _safe(name: str) -> str:
    keep = "".join(c if c.isalnum() or c in "._-" else "_" for c in Path(name).name)
    return keep[-120:] or "file"


def _result_line(r: Any) -> str:
    if r.status == "duplicate":
        return f"{r.name}: I already have this (source #{r.document_id})."
    return f"Could not read {r.error or r.name}"


def _turn_summary(results: list[Any]) -> str:
    """What the biographer did: each turn's report and outcome (edits, refusals, whether
    the source was read), one block per source when there were several."""
    if not results:
        return "Nothing new to read."
    if len(results) == 1:
        (r,) = results
        shown = with_source_hint(r.report)
        if r.mode == "reading" or r.edits or r.refused:
            shown += f"\n\nbio.md: {r.outcome}."
        return shown
    blocks = [
        f"Source #{r.document_id}: {r.outcome}.\n{r.report}" if r.document_id else r.report
        for r in results
    ]
    return with_source_hint("\n\n".join(blocks))
