"""The chat platforms biomd runs on (Telegram, Discord, the web view, and any a plugin adds),
registered through the `register_frontends` hook; biomd's own as a default plugin. A
`Frontend` says whether the settings turn it on and makes it for the running bot."""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from biomd import plugins
from biomd.app.assistant import Assistant
from biomd.app.channels import Channel
from biomd.app.engine import Engine
from biomd.app.jobs import JobQueue
from biomd.plugins import hookimpl
from biomd.settings import Settings, revealed

log = logging.getLogger(__name__)


class Platform(Protocol):
    """A running front-end: its channel for the job queue, and how it starts and stops."""

    @property
    def channel(self) -> Channel: ...

    async def start(self) -> None: ...

    async def stop(self) -> None: ...

    async def owner_chats(self) -> list[str]: ...


@dataclass(frozen=True)
class Running:
    """What a front-end is made from: the running bot's settings, engine, assistant and jobs."""

    settings: Settings
    engine: Engine
    assistant: Assistant
    jobs: JobQueue
    options: dict[str, Any] = field(default_factory=dict)  # open_browser, from the command


@dataclass(frozen=True)
class Frontend:
    """A chat platform: its name, whether the settings turn it on (warning, where they turn it
    on half-way, what is missing), and how it is made."""

    name: str
    configured: Callable[[Settings], bool]
    make: Callable[[Running], Platform]
    chat: bool = True  # the owner talks to biomd there (the web view is a page, not a chat)


def _served(platform: str, token: str | None, owners: frozenset[int], greet: str) -> bool:
    """Whether a bot platform is turned on (it has a token); warns when nobody is allowed yet,
    saying how the owner finds their id."""
    if token and not owners:
        setting = f"BIOMD_{platform.upper()}_ALLOWED_USERS"
        log.warning(
            "%s is empty, so nobody is served yet. %s the bot now, then copy your id from the "
            "line '%s: ignoring user id …' into `biomd config set %s <id>` and restart.",
            setting,
            greet,
            platform.capitalize(),
            setting,
        )
    return bool(token)


def _telegram_configured(settings: Settings) -> bool:
    return _served(
        "telegram", revealed(settings.telegram.token), settings.telegram.allowed_users, "Message"
    )


def _discord_configured(settings: Settings) -> bool:
    return _served(
        "discord", revealed(settings.discord.token), settings.discord.allowed_users, "DM"
    )


def _telegram(running: Running) -> Platform:
    from biomd.frontends.telegram_bot import TelegramBot

    return TelegramBot(running.settings, running.assistant)


def _discord(running: Running) -> Platform:
    from biomd.frontends.discord_bot import DiscordBot

    return DiscordBot(running.settings, running.assistant)


def _web(running: Running) -> Platform:
    from biomd.frontends.web.server import WebView

    return WebView(
        running.settings,
        running.engine,
        running.assistant,
        running.jobs,
        open_browser=bool(running.options.get("open_browser")),
    )


WEB = "web"


@hookimpl(tryfirst=True)
def register_frontends(register: Callable[[Frontend], None]) -> None:
    """biomd's own platforms, registered as a default plugin."""
    register(Frontend("telegram", _telegram_configured, _telegram))
    register(Frontend("discord", _discord_configured, _discord))
    register(Frontend(WEB, lambda s: s.web.enabled, _web, chat=False))


@functools.cache
def frontends() -> dict[str, Frontend]:
    """Every platform of biomd and its plugins, by name (the first to take a name keeps it)."""
    found: dict[str, Frontend] = {}

    def register(plugin: plugins.Plugin) -> Callable[[Frontend], None]:
        def add(frontend: Frontend) -> None:
            if frontend.name in found:
                log.warning("plugin %s: platform %r is taken", plugin.name, frontend.name)
                return
            found[frontend.name] = frontend
            plugin.record("frontends", frontend.name)

        return add

    plugins.each("register_frontends", register)
    return found


def configured_chats(settings: Settings) -> list[str]:
    """The chat platforms the settings turn on (not the web view), in registered order."""
    return [f.name for f in frontends().values() if f.chat and f.configured(settings)]
