"""`biomd run`: every configured platform, the job worker and the scheduler, in one process
and one event loop. Ctrl-C and SIGTERM stop it cleanly; a job in progress stays resumable."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
from typing import Any

from biomd.app import replies
from biomd.app.assistant import Assistant
from biomd.app.channels import Channel
from biomd.app.engine import Embedder, Engine
from biomd.app.jobs import MirrorJob, ReadJob
from biomd.errors import BiomdError, ConfigError, PlatformUnavailable
from biomd.frontends.platforms import WEB, Platform, Running, configured_chats, frontends
from biomd.settings import Settings

log = logging.getLogger(__name__)


NOTHING_CONFIGURED = (
    "No chat platform is configured. To talk to biomd from your phone, run `biomd setup`, "
    "or set:\n"
    "  biomd config set BIOMD_TELEGRAM_TOKEN <token from @BotFather>\n"
    "  biomd config set BIOMD_TELEGRAM_ALLOWED_USERS <your Telegram user id>\n"
    "and/or\n"
    "  biomd config set BIOMD_DISCORD_TOKEN <bot token from the Discord developer portal>\n"
    "  biomd config set BIOMD_DISCORD_ALLOWED_USERS <your Discord user id>\n"
    "docs/bots.md has the step-by-step setup."
)


class BotApp:
    """The running bot: engine, job worker, platforms and scheduler."""

    def __init__(
        self,
        settings: Settings,
        embedder: Embedder | None = None,
        *,
        web_only: bool = False,
        open_browser: bool = False,
    ) -> None:
        self.settings = settings
        self.names = [] if web_only else configured_chats(settings)
        if settings.web.enabled or web_only:
            self.names.append(WEB)
        if not self.names:
            raise ConfigError(NOTHING_CONFIGURED)
        self.open_browser = open_browser
        self._embedder = embedder
        self.channels: dict[str, Channel] = {}
        self.platforms: list[Platform] = []
        self._worker: asyncio.Task[Any] | None = None
        self._switch: asyncio.Task[Any] | None = None
        self._warm: asyncio.Task[Any] | None = None
        self._scheduler: Any = None

    async def start(self) -> None:
        """Open everything; on failure, close what was opened and raise."""
        self.engine = await Engine.open(self.settings, self._embedder)
        try:
            await self._start()
        except BaseException:
            await self.stop()
            raise

    async def _start(self) -> None:
        settings = self.settings
        self.jobs = self.engine.job_queue(self.channels)
        self.assistant = Assistant(self.engine, self.jobs)
        self.engine.sources.take_ingest_lock()
        running = Running(
            settings, self.engine, self.assistant, self.jobs, {"open_browser": self.open_browser}
        )
        known = frontends()
        self.platforms.extend(known[name].make(running) for name in self.names)
        for platform in self.platforms:
            await platform.start()
            self.channels[platform.channel.platform] = platform.channel
        resumed = await self.jobs.recover()
        if resumed:
            log.info("resuming %d job(s) left unfinished", resumed)
        self._worker = asyncio.create_task(self.jobs.run(), name="biomd-jobs")
        self._warm = asyncio.create_task(self._warm_search(), name="biomd-warm-search")
        if await self.engine.sources.switching():
            self._switch = asyncio.create_task(self._switch_model(), name="biomd-switch-model")
        from biomd.frontends.scheduler import build_scheduler

        self._scheduler = build_scheduler(
            settings.questions.cron,
            settings.zone,
            self.push_questions,
            self.read_pending,
            self.flush_outbox,
            self.mirror,
            settings.mirror.cron,
        )
        self._scheduler.start()
        await self.flush_outbox()  # anything kept from before a restart
        log.info("biomd is running on %s", ", ".join(self.names))

    async def push_questions(self) -> int:
        """The scheduled push: the next open questions to every owner chat."""
        targets = []
        for platform in self.platforms:
            try:
                targets += [(platform.channel, chat) for chat in await platform.owner_chats()]
            except PlatformUnavailable as exc:
                log.warning("no questions pushed there this time: %s", exc.user_message)
        sent = await self.assistant.push_questions(
            targets, self.settings.questions.per_push, self.settings.questions.cooldown_days
        )
        log.info("pushed %d question(s)", sent)
        return sent

    async def flush_outbox(self) -> None:
        """Send the messages kept while a platform was unreachable (every few seconds)."""
        for channel in self.channels.values():
            await self.engine.outbox.flush(channel)

    async def read_pending(self) -> None:
        if await self.engine.biographer.reading.pending():
            await self.jobs.submit(ReadJob())

    async def mirror(self) -> None:
        """The scheduled mirror pass, as a job (one writer at a time)."""
        await self.jobs.submit(MirrorJob())

    async def _warm_search(self) -> None:
        """Get vector search ready at start, so that the first question does not wait for
        it (the first time after vectors are written, that turns them all into codes)."""
        try:
            await self.engine.sources.prepare_search()
        except Exception:
            log.warning(
                "could not get search ready; the first search will try again", exc_info=True
            )
            return
        if (last := self.engine.sources.last_search_load()) is not None:
            log.info(replies.search_prepared(last))

    async def _switch_model(self) -> None:
        """Re-embed the corpus with a changed BIOMD_EMBED_MODEL, logging how far it is;
        search keeps the old vectors until it is done, and a stop resumes at the next start."""
        model = self.settings.embed.model
        log.info("re-embedding every chunk with %s; search uses the old vectors until then", model)
        logged = [0]

        def tick(done: int, total: int) -> None:
            if done * 10 // total > logged[0]:
                logged[0] = done * 10 // total
                log.info("re-embedding with %s: %d of %d chunks", model, done, total)

        try:
            done = await self.engine.sources.reindex(tick)
        except BiomdError as exc:
            log.warning("re-embedding with %s stopped: %s", model, exc.user_message)
            return
        log.info("re-embedded %d chunks; search now uses %s", done, model)

    async def stop(self) -> None:
        log.info("stopping")
        if self._scheduler is not None:
            self._scheduler.shutdown(wait=False)
        for task in (self._warm, self._switch, self._worker):
            if task is not None:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
        for platform in self.platforms:
            with contextlib.suppress(Exception):
                await platform.stop()
        await self.engine.close()


async def serve(settings: Settings, stop: asyncio.Event, **options: Any) -> None:
    """Run until `stop` is set."""
    app = BotApp(settings, **options)
    try:
        await app.start()
        await stop.wait()
    finally:
        if hasattr(app, "engine"):
            await app.stop()


def run(settings: Settings, **options: Any) -> None:
    """Blocking entry point with signal handling; `options` go to BotApp (web_only,
    open_browser)."""

    async def main() -> None:
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            with contextlib.suppress(NotImplementedError):
                loop.add_signal_handler(sig, stop.set)
        await serve(settings, stop, **options)

    asyncio.run(main())
