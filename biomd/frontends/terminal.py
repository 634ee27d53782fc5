"""The terminal as a chat platform: the same assistant, jobs and engine as the Telegram and
Discord bots, with stdin for messages and the console for replies. `make run` with no bot
configured opens it over the bundled sample life."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import os
import queue
import shutil
import signal
import sys
import threading
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine, Iterator
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.markdown import Markdown
from rich.panel import Panel

from biomd.app import sample_life
from biomd.app.assistant import Assistant, commands
from biomd.app.channels import Buttons
from biomd.app.engine import Engine
from biomd.app.jobs import ReadJob
from biomd.errors import BiomdError
from biomd.frontends import logs
from biomd.settings import Settings

CHAT = "terminal"

ReadLine = Callable[[str], Awaitable[str | None]]


class TerminalChannel:
    """Replies printed to the console; a status message is printed again when it changes.
    Output that arrives while the prompt waits for a line goes below it, and the prompt is
    shown again after it."""

    platform = "terminal"
    max_length = 1_000_000
    local = True

    def __init__(self, console: Console, prompt: Callable[[], str | None] = lambda: None):
        self.console = console
        self._prompt = prompt
        self._ids = itertools.count(1)

    @contextlib.contextmanager
    def _output(self) -> Iterator[None]:
        waiting = self._prompt()
        if waiting:
            self.console.print()
        yield
        if waiting:
            self.console.print(waiting, end="", markup=False, highlight=False)

    async def send(self, chat: str, text: str, buttons: Buttons = ()) -> str:
        with self._output():
            panel = Panel(text.strip(), border_style="cyan", expand=False)
            self.console.print(panel, markup=False)
        return str(next(self._ids))

    async def edit(self, chat: str, message: str, text: str) -> None:
        with self._output():
            self.console.print(f"  · {text}", style="dim", markup=False, highlight=False)

    async def send_file(self, chat: str, name: str, data: bytes, caption: str = "") -> str:
        with self._output():
            self.console.rule(name)
            self.console.print(Markdown(data.decode("utf-8", errors="replace")))
            self.console.rule()
        return str(next(self._ids))

    async def send_image(self, chat: str, name: str, png: bytes, caption: str = "") -> str:
        with self._output():
            self.console.print(
                f"({caption or name}: the picture is in the web view's {Path(name).stem} page.)",
                markup=False,
                style="dim",
            )
        return str(next(self._ids))

    async def download(self, file_ref: str, dest: Path) -> None:
        """A copy of the local file, so the job never touches the owner's own file."""
        await asyncio.to_thread(shutil.copyfile, file_ref, dest)


class StdinReader:
    """Lines from the keyboard, read by a daemon thread so that Ctrl-C ends the session at
    once (a thread blocked in input() in asyncio's executor would hold the exit up)."""

    def __init__(self) -> None:
        self._asks: queue.Queue[tuple[str, asyncio.Future[str | None]]] = queue.Queue()
        self._thread: threading.Thread | None = None
        self.waiting: str | None = None  # the prompt, while a line is being typed

    async def __call__(self, prompt: str) -> str | None:
        """One line, or None at end of input (Ctrl-D)."""
        if self._thread is None:
            self._thread = threading.Thread(target=self._work, name="stdin", daemon=True)
            self._thread.start()
        answer: asyncio.Future[str | None] = asyncio.get_running_loop().create_future()
        self._asks.put((prompt, answer))
        return await answer

    def _work(self) -> None:
        while True:
            prompt, answer = self._asks.get()
            self.waiting = prompt
            try:
                line: str | None = input(prompt)
            except EOFError:
                line = None
            finally:
                self.waiting = None
            loop = answer.get_loop()
            with contextlib.suppress(RuntimeError):  # the loop has closed: we are exiting
                loop.call_soon_threadsafe(_settle, answer, line)


def _settle(future: asyncio.Future[str | None], value: str | None) -> None:
    if not future.done():
        future.set_result(value)


class TerminalSession:
    """A conversation with the biographer in the terminal until /quit or Ctrl-D."""

    def __init__(self, engine: Engine, console: Console, read_line: ReadLine | None = None) -> None:
        self.engine = engine
        self.console = console
        reader = StdinReader()
        self.read_line = read_line or reader
        self.channel = TerminalChannel(console, lambda: reader.waiting)
        self.jobs = engine.job_queue({self.channel.platform: self.channel})
        self.assistant = Assistant(engine, self.jobs)

    async def run(self, greeting: str = "") -> None:
        self.engine.sources.take_ingest_lock()
        worker = asyncio.create_task(self.jobs.run(), name="biomd-terminal-jobs")
        try:
            if greeting:
                self.console.print(Panel(greeting, border_style="green"), markup=False)
            while (line := await self.read_line("you › ")) is not None:
                if not await self.handle(line.strip()):
                    break
        finally:
            worker.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await worker

    async def handle(self, line: str) -> bool:
        """Act on one line; False to end the session."""
        if not line:
            return True
        if not line.startswith("/"):
            with self.console.status("The biographer is looking into it…"):
                await self.assistant.on_text(self.channel, CHAT, line)
            return True
        command, _, args = line[1:].partition(" ")
        command = command.lower()
        if command in ("quit", "exit", "q"):
            return False
        if command == "wait":
            await self.wait_for_jobs()
        elif command in ("help", "start"):
            await self.channel.send(CHAT, TERMINAL_HELP)
        else:
            await self.assistant.on_command(self.channel, CHAT, command, args)
        return True

    async def wait_for_jobs(self, poll_s: float = 0.2) -> None:
        """Until the queue is empty and nothing is running (scripts and tests)."""
        while True:
            if not (await self.jobs.waiting() or self.jobs.running):
                return
            await asyncio.sleep(poll_s)


def open_session(settings: Settings, web: bool = False, open_browser: bool = False) -> None:
    """`biomd chat`: a terminal session over the owner's own data; with `web`, the web view
    beside it (`biomd run` with no bot, once the owner's sources are in)."""

    async def main() -> None:
        console = Console()
        async with await Engine.open(settings) as engine:
            greeting = HELLO_OWN + ("" if engine.biographer.configured else "\n\n" + NO_LLM)
            session = TerminalSession(engine, console)
            if not web:
                await session.run(greeting)
                return
            async with web_view(settings, session, console, open_browser):
                await session.run(greeting)

    _until_ctrl_c(main)


def open_sample_session(settings: Settings, open_browser: bool = False) -> None:
    """`make run` with no bot configured: a terminal session over the bundled sample life,
    in a data dir of its own beside the owner's."""
    settings = sample_life.settings_for(settings)
    logs.configure(settings.data_dir)  # the sample's log is its own, beside its data

    async def main() -> None:
        console = Console()
        console.print(Panel(sample_life.ABOUT, title="biomd", border_style="green"), markup=False)
        async with await Engine.open(settings) as engine:
            await sample_life.load(engine, lambda line: say(console, line))
            session = TerminalSession(engine, console)
            if engine.biographer.configured:
                greeting = READING if await engine.biographer.reading.pending() else ""
                await session.jobs.submit(ReadJob(platform="terminal", chat=CHAT))
            else:
                greeting = NO_LLM
            greeting = "\n\n".join(x for x in (greeting, TERMINAL_HELP, sample_life.TRY) if x)
            async with web_view(settings, session, console, open_browser):
                await session.run(greeting)
        console.print(
            f"The sample life is kept in {settings.data_dir}. {YOUR_OWN} {SET_UP_OWN}",
            markup=False,
        )

    _until_ctrl_c(main)


@contextlib.asynccontextmanager
async def web_view(
    settings: Settings, session: TerminalSession, console: Console, open_browser: bool
) -> AsyncIterator[None]:
    """The web view beside the terminal session, when BIOMD_WEB_ENABLED is on; a port that is taken
    is said, and the session goes on without it."""
    if not settings.web.enabled:
        yield
        return
    from biomd.frontends.web.server import WebView

    view = WebView(
        settings,
        session.engine,
        session.assistant,
        session.jobs,
        announce=lambda line: console.print(line, markup=False, highlight=False),
        open_browser=open_browser,
    )
    try:
        await view.start()
    except BiomdError as exc:
        console.print(exc.user_message, markup=False)
        yield
        return
    try:
        yield
    finally:
        await view.stop()


def _until_ctrl_c(main: Callable[[], Coroutine[Any, Any, None]]) -> None:
    """Run the session; Ctrl-C ends it quietly (work in progress resumes next time)."""
    with contextlib.suppress(ImportError):
        import readline  # noqa: F401  (line editing and history for input())

    async def session() -> None:
        task = asyncio.current_task()
        assert task is not None

        def stop() -> None:
            print("\nStopped. Anything unfinished carries on next time.", flush=True)
            # The session's cleanup gets a few seconds; work left in threads (a
            # transcription, a batch of the model) is not waited for: it keeps nothing that
            # a crash would not, and the next start picks it up.
            watchdog = threading.Timer(5.0, os._exit, args=(130,))
            watchdog.daemon = True
            watchdog.start()
            task.cancel()

        # Not on Windows (NotImplementedError), where Ctrl-C cancels the session as
        # asyncio.Runner does by itself.
        with contextlib.suppress(NotImplementedError):
            asyncio.get_running_loop().add_signal_handler(signal.SIGINT, stop)
        await main()

    runner = asyncio.Runner()
    try:
        runner.run(session())
    except (KeyboardInterrupt, asyncio.CancelledError):
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(130)
    finally:
        runner.close()


def say(console: Console, line: str) -> None:
    console.print(line, markup=False, highlight=False)


TERMINAL_HELP = (
    "Ask anything in plain words. Commands: "
    + ", ".join(
        c.help.split(": ", 1)[1] if ": " in c.help else f"/{c.name}"
        for c in commands(local=True)
        if c.name != "start"
    )
    + ", /quit."
)
HELLO_OWN = "biomd, in your terminal. " + TERMINAL_HELP
READING = (
    "The biographer is reading the sample now, which takes a few minutes and a few cents of "
    "LLM use. Ask away meanwhile; /status shows how far it is, /bio what it has written."
)
SET_UP_OWN = "`biomd setup` sets up your own private bot; docs/bots.md has the steps."
YOUR_OWN = (
    "`biomd ingest FILE` adds your own sources, and `biomd chat` talks with your biographer "
    "about them (once they are in, `make run` opens your own session, not this sample)."
)
NO_LLM = (
    "No language model is configured, so questions are answered with cited search results "
    "instead of the biographer's own words, and bio.md fills in once one is. "
    "`biomd setup` connects one (OpenRouter, a local Ollama, or any OpenAI-compatible URL)."
)
