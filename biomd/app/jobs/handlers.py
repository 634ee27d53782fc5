"""What each kind of job does: a forwarded file is downloaded, ingested and read; a
transcription's biographer part follows in the main lane; an answer, a note, a
consolidation and the periodic reading. Each reports on the chat it came from, through the
outbox, with the texts in biomd.app.replies."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from biomd.app import reading, replies
from biomd.app.assistants import keeping
from biomd.app.channels import Channel, StatusMessage, Throttled
from biomd.app.jobs.payloads import (
    AnswerJob,
    ConsolidateJob,
    Job,
    LearnJob,
    MirrorJob,
    NoteJob,
    Payload,
    ReadJob,
    SessionJob,
    SourceJob,
    lane,
)
from biomd.errors import BiomdError, LLMError

if TYPE_CHECKING:
    from biomd.app.jobs.deps import JobDeps
    from biomd.biographer.reading.reading_cost import ReadingChoice

log = logging.getLogger(__name__)


class Queue(Protocol):
    """What a handler needs of the queue it runs in."""

    async def submit(self, payload: Payload) -> int: ...

    async def save(self, job: Job) -> None: ...

    def target(self, payload: Payload) -> tuple[Channel | None, str]: ...

    def status(self, payload: Payload) -> StatusMessage | None: ...


class Handlers:
    def __init__(self, deps: JobDeps, queue: Queue) -> None:
        self.app = deps
        self.queue = queue
        self._progress: set[asyncio.Task[Any]] = set()  # status edits under way

    async def run(self, job: Job) -> None:
        match job.payload:
            case SourceJob() as p:
                await self.source(job, p)
            case LearnJob() as p:
                await self.learn(p, Throttled(self.queue.status(p)))
            case AnswerJob() as p:
                await self.answer(p)
            case NoteJob() as p:
                await self.note(p)
            case SessionJob() as p:
                await self.session(p)
            case ConsolidateJob() as p:
                await self.consolidate(p)
            case ReadJob() as p:
                await self.read(p)
            case MirrorJob() as p:
                await self.mirror(p)

    async def source(self, job: Job, p: SourceJob) -> None:
        """A forwarded file or voice note: download, ingest, read, report."""
        channel, chat = self.queue.target(p)
        show = Throttled(self.queue.status(p))
        name = p.name
        inbox = self.app.inbox
        await asyncio.to_thread(inbox.mkdir, mode=0o700, exist_ok=True)
        path = Path(p.path or inbox / f"{job.id}-{safe_name(name)}")
        if not await asyncio.to_thread(path.exists):
            await show(f"{name}: downloading…", force=True)
            if channel is None:
                raise BiomdError(f"the {p.platform} connection is not running")
            await channel.download(p.file, path)
            p.path = str(path)
            await self.queue.save(job)
        await show(f"{name}: converting…", force=True)
        size = max(1, (await asyncio.to_thread(path.stat)).st_size)

        async def indexing(chars: int) -> None:
            await show(f"{name}: indexing {min(99, chars * 100 // size)}%")

        results = await self.app.sources.ingest_file(path, name, self._soon(indexing))
        added = [r.document_id for r in results if r.status == "added" and r.document_id]
        lines = [replies.not_added(r) for r in results if r.status != "added"]
        lines += [f"{r.name}: {r.note}." for r in results if r.status == "added" and r.note]
        if added:
            await show(f"{name}: indexing (vectors)…", force=True)
            try:
                await self.app.sources.embed_pending()
            except BiomdError as exc:
                lines.append(f"Vectors are not made yet: {exc.user_message}")
        if p.echo and added and channel is not None:
            heard = (await self.app.sources.read(added[0])).text
            await self.app.outbox.deliver(channel, chat, f"Heard:\n{heard.strip()}")
        await asyncio.to_thread(path.unlink, missing_ok=True)
        follow = LearnJob(
            platform=p.platform,
            chat=p.chat,
            status=p.status,
            name=name,
            question=p.question,
            documents=added,
            lines=lines,
        )
        if lane(p) == "media":
            # The biographer's part goes to the main lane: one writer for bio.md.
            await show(f"{name}: transcribed; the biographer reads it next…", force=True)
            await self.queue.submit(follow)
        else:
            await self.learn(follow, show)

    def _soon(
        self, update: Callable[[int], Coroutine[Any, Any, None]]
    ) -> Callable[[str, int], None]:
        """Ingest reports progress synchronously: each report schedules the status edit,
        kept referenced until it is done."""

        def call(_: str, chars: int) -> None:
            task = asyncio.get_running_loop().create_task(update(chars))
            self._progress.add(task)
            task.add_done_callback(self._progress.discard)

        return call

    async def learn(self, p: LearnJob, show: Throttled) -> None:
        """The biographer reads the new sources (or takes one as an answer), then a summary,
        and for a source whose reading waits for the owner, what it costs and the choice."""
        lines = list(p.lines)
        waiting: list[ReadingChoice] = []
        if p.question and p.documents:
            await show(f"{p.name}: taking it as your answer to {p.question}…", force=True)
            lines.append(await self._spoken_answer(p.question, p.documents[0]))
        elif p.documents:
            said, waiting = await self._read_new(
                p.documents, show, p.name, (str(p.platform), p.chat)
            )
            lines.append(said)
        last = replies.outcome(p.name, p.documents, p.lines)
        await show(last, force=True)
        channel, chat = self.queue.target(p)
        text = "\n\n".join(x for x in lines if x) or f"{p.name}: stored."
        if channel is not None and (text != last or p.status is None):  # not said twice
            await self.app.outbox.deliver(channel, chat, text)
            if waiting:
                await self.app.outbox.deliver(
                    channel,
                    chat,
                    replies.reading_choices(waiting),
                    replies.reading_buttons(waiting),
                )
        if p.documents:
            await self.mirror(MirrorJob())  # after the owner has heard what was learned

    async def _read_new(
        self, added: list[int], show: Throttled, name: str, chat: tuple[str, str]
    ) -> tuple[str, list[ReadingChoice]]:
        """The biographer's reading of new sources, or why it has to wait (in full the first
        time the `chat` hears it); and those that wait for the owner's choice."""
        biographer = self.app.biographer

        async def started(_: int) -> None:
            await show(f"{name}: reading it (biographer)…", force=True)

        try:
            done = await reading.read_new(self.app.biographer, only=set(added), on_start=started)
        except LLMError as exc:
            said = replies.stored_unread(name, exc.user_message, later=True)
            return said, await biographer.cost.choices(only=set(added))
        if done.missing:
            return replies.stored_unread(name, self.app.told.no_model(*chat)), []
        waiting = await biographer.cost.choices(only=set(added))
        if not done.results and waiting:
            return "", waiting  # what it costs, and the choice, follow as a message of their own
        return replies.turn_summary(done.results), waiting

    async def _spoken_answer(self, question: str, document_id: int) -> str:
        source = await self.app.sources.read(document_id)
        text = source.text.split("\n\n", 1)[-1]
        try:
            answered = await self.app.answers.answer(question, text)
        except LLMError as exc:
            return replies.answer_waits(exc.user_message)
        return replies.turn_summary([answered.result])

    async def answer(self, p: AnswerJob) -> None:
        """The owner's typed answer: kept as a source, then taken in by the biographer."""
        channel, chat = self.queue.target(p)
        status = self.queue.status(p)
        if status:
            await status.set(f"Taking in your answer to {p.question}…")
        try:
            answered = await self.app.answers.answer(p.question, p.text)
            reply = replies.answered(answered.document_id, [answered.result])
        except LLMError as exc:
            reply = replies.answer_waits(exc.user_message)
        if status:
            await status.set(f"Answer to {p.question}: done")
        if channel is not None:
            await self.app.outbox.deliver(channel, chat, replies.with_source_hint(reply))

    async def note(self, p: NoteJob) -> None:
        """A note another assistant asked biomd to remember (over MCP): kept as a source,
        then read like any."""
        doc = await self.app.answers.note(p.text, p.client, p.at)
        with contextlib.suppress(LLMError):  # read later, as after any outage
            await reading.read_new(self.app.biographer, only={doc})

    async def session(self, p: SessionJob) -> None:
        """An assistant's session (Hermes Agent's): its new turns kept as a source, then
        read like any."""
        doc, _ = await keeping.store_session(self.app.sources, p.session, p.client, p.turns)
        if doc is not None:
            with contextlib.suppress(LLMError):  # read later, as after any outage
                await reading.read_new(self.app.biographer, only={doc})

    async def consolidate(self, p: ConsolidateJob) -> None:
        channel, chat = self.queue.target(p)
        status = self.queue.status(p)
        if status:
            await status.set("Consolidating bio.md…")
        changed = await self.app.biographer.budget.consolidate()
        if channel is not None:
            await self.app.outbox.deliver(channel, chat, replies.consolidated(changed))

    async def read(self, p: ReadJob) -> None:
        """Read whatever is still waiting (periodically, after an LLM outage say); with a
        chat in the payload, say there when it is done."""
        results = (await reading.read_new(self.app.biographer)).results
        channel, chat = self.queue.target(p)
        if channel is not None and results:
            await self.app.outbox.deliver(channel, chat, replies.finished_reading(results))
        if results:
            await self.mirror(MirrorJob())

    async def mirror(self, p: MirrorJob) -> None:
        """The mirror brought up to date: chat sources parsed and the owner's lines read (so
        its page opens at once, with no model its worth-a-look too), then, with a model, the
        mirror's pass over what is new. Quiet: what it finds waits on the mirror's page and
        /mirror; a failure here fails nothing else."""
        try:
            await self.app.mirror.warm()
            if not self.app.biographer.configured:
                return
            report = await self.app.mirror.refresh()
        except BiomdError as exc:
            log.warning("mirror: %s", exc.user_message)
            return
        log.info(
            "mirror: %d shape(s) asked about, %d pattern(s)%s",
            report.judged,
            report.yes,
            f"; stopped: {report.stopped}" if report.stopped else "",
        )


def safe_name(name: str) -> str:
    """A file name's safe characters, for the inbox copy."""
    keep = "".join(c if c.isalnum() or c in "._-" else "_" for c in Path(name).name)
    return keep[-120:] or "file"
