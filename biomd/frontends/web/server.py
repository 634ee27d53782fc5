"""Serving the web view in the bots' own event loop (uvicorn), so that bio.md keeps one
writer: the pages call the same Assistant and JobQueue as Telegram and Discord."""

from __future__ import annotations

import asyncio
import contextlib
import errno
import logging
import socket
import webbrowser
from collections.abc import Callable, Iterator
from typing import Any

import uvicorn

from biomd.app.assistant import Assistant
from biomd.app.engine import Engine
from biomd.app.jobs import JobQueue
from biomd.errors import ConfigError
from biomd.frontends.mcp_server import http_app
from biomd.frontends.web.app import create_app
from biomd.frontends.web.context import Web
from biomd.frontends.web.hub import Hub, WebChannel
from biomd.frontends.web.security import Keys, allowed_hosts, load_token
from biomd.settings import Settings

log = logging.getLogger(__name__)
EXPOSED = (
    "The web view listens on {host}, so other machines on the network can reach it; only the "
    "token keeps them out. An SSH tunnel or Tailscale to 127.0.0.1 is safer."
)


class _Server(uvicorn.Server):
    """uvicorn without its own signal handling: the runner's Ctrl-C and SIGTERM stop all."""

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield


class WebView:
    """The web view as one of the running front-ends, with the `web` channel for jobs."""

    def __init__(
        self,
        settings: Settings,
        engine: Engine,
        assistant: Assistant,
        jobs: JobQueue,
        announce: Callable[[str], None] = print,
        open_browser: bool = False,
        mcp: Any = None,
    ) -> None:
        self.settings = settings
        self.hub = Hub()
        uploads = settings.data_dir / "uploads"
        self._channel = WebChannel(self.hub, uploads)
        jobs.channels[self._channel.platform] = self._channel
        self.keys = Keys(load_token(settings.data_dir))
        self.web = Web(
            engine,
            assistant,
            self.hub,
            self._channel,
            self.keys,
            uploads,
            settings.web.max_upload_mb * 2**20,
        )
        self.announce = announce
        self.open_browser = open_browser
        mounted: tuple[Any, Any] = mcp if mcp is not None else http_app(engine, settings.web.host)
        self._mcp_app, self._mcp = mounted
        self._stack = contextlib.AsyncExitStack()
        self._server: _Server | None = None
        self._task: asyncio.Task[Any] | None = None
        self.port = settings.web.port

    @property
    def channel(self) -> WebChannel:
        return self._channel

    @property
    def link(self) -> str:
        host = self.settings.web.host
        shown = "127.0.0.1" if host in ("0.0.0.0", "::", "") else host
        shown = f"[{shown}]" if ":" in shown else shown
        return f"http://{shown}:{self.port}/?token={self.keys.token}"

    async def start(self) -> None:
        host = self.settings.web.host
        sock = bind(host, self.settings.web.port)
        self.port = sock.getsockname()[1]
        hosts = None if host in ("0.0.0.0", "::") else allowed_hosts(host, self.port)
        app = create_app(self.web, hosts, self._mcp_app)
        await self._stack.enter_async_context(self._mcp.session_manager.run())
        config = uvicorn.Config(
            app, log_level="warning", lifespan="off", access_log=False, timeout_graceful_shutdown=2
        )
        self._server = _Server(config)
        self._task = asyncio.get_running_loop().create_task(
            self._server.serve(sockets=[sock]), name="biomd-web"
        )
        while not self._server.started and not self._task.done():  # noqa: ASYNC110 (uvicorn has only this flag)
            await asyncio.sleep(0.02)
        if self._task.done():
            self._task.result()
        if host in ("0.0.0.0", "::"):
            log.warning(EXPOSED.format(host=host))
        self.announce(f"Web view: {self.link}")
        if self.open_browser:
            await asyncio.to_thread(webbrowser.open, self.link)

    async def stop(self) -> None:
        if self._server is not None:
            self._server.should_exit = True
        for task in list(self.web.tasks):
            task.cancel()
        if self._task is not None:
            with contextlib.suppress(Exception, asyncio.CancelledError):
                await asyncio.wait_for(self._task, 5)
        with contextlib.suppress(Exception):
            await self._stack.aclose()

    async def owner_chats(self) -> list[str]:
        return []  # open questions have their own page; nothing is pushed to the browser


def bind(host: str, port: int) -> socket.socket:
    """The listening socket, or a clear error when the port is taken."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        if exc.errno == errno.EADDRINUSE:
            raise ConfigError(
                f"The web view's port {port} is taken, maybe by another biomd. Stop that, or "
                f"set BIOMD_WEB_PORT to a free port (or BIOMD_WEB_ENABLED=false to go without it)."
            ) from None
        raise ConfigError(
            f"The web view could not listen on {host}:{port}: {exc.strerror}."
        ) from None
    sock.listen(128)
    sock.setblocking(False)
    return sock
