"""The Discord bridge: DMs to the bot, discord.py events in, `Assistant` calls out.

Commands are typed with a `!` (or `/`) prefix in the DM: `!bio`, `!source 12`; buttons under
biomd's messages send their command back as the button's custom id. Only allow-listed users
are served, and only in DMs; anyone else is logged and ignored."""

from __future__ import annotations

import asyncio
import contextlib
import io
import logging
from collections.abc import Awaitable, Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

import aiohttp
import discord

from biomd.app.assistant import Assistant, Incoming, commands
from biomd.app.channels import DISCORD_LIMIT, Buttons
from biomd.errors import BiomdError, PlatformUnavailable
from biomd.settings import Settings, revealed

log = logging.getLogger(__name__)

_AUDIO = (".ogg", ".oga", ".opus", ".m4a", ".mp3", ".wav", ".webm")
_COMMANDS = {name for c in commands() for name in c.names}
READY_WAIT_S = 60
VIEW_HELD_S = 3600.0  # discord.py forgets a message's buttons after this; they keep working
CUSTOM_ID_MAX = 100


def button_view(buttons: Buttons) -> discord.ui.View:
    """Buttons in rows of two, each carrying its command as the custom id; pressing one
    arrives as an interaction, handled by `DiscordBot.on_interaction` even after a restart."""
    view = discord.ui.View(timeout=VIEW_HELD_S)
    for i, (label, command) in enumerate(buttons):
        button: discord.ui.Button[discord.ui.View] = discord.ui.Button(
            label=label, custom_id=command[:CUSTOM_ID_MAX], row=i // 2
        )
        view.add_item(button)
    return view


@contextlib.contextmanager
def reachable() -> Iterator[None]:
    """Discord not answering (network, 5xx, rate limit) becomes `PlatformUnavailable`, which
    the engine retries later; a refused request (Forbidden, NotFound) stays what it is."""
    try:
        yield
    except (discord.DiscordServerError, discord.RateLimited) as exc:
        raise PlatformUnavailable(f"Discord did not answer ({exc})") from exc
    except (aiohttp.ClientError, OSError, TimeoutError) as exc:
        raise PlatformUnavailable(f"Discord could not be reached ({type(exc).__name__})") from exc


class DiscordChannel:
    """`Channel` over discord.py; mentions in replies never ping anyone."""

    platform = "discord"
    max_length = DISCORD_LIMIT
    local = False

    def __init__(self, client: discord.Client) -> None:
        self.client = client

    async def _channel(self, chat: str) -> Any:
        channel = self.client.get_channel(int(chat))
        if channel is None:
            channel = await self.client.fetch_channel(int(chat))
        return channel

    async def send(self, chat: str, text: str, buttons: Buttons = ()) -> str:
        with reachable():
            channel = await self._channel(chat)
            extra = {"view": button_view(buttons)} if buttons else {}
            message = await channel.send(
                text, allowed_mentions=discord.AllowedMentions.none(), **extra
            )
        return str(message.id)

    async def edit(self, chat: str, message: str, text: str) -> None:
        with reachable():
            channel = await self._channel(chat)
            await channel.get_partial_message(int(message)).edit(content=text)

    async def send_file(self, chat: str, name: str, data: bytes, caption: str = "") -> str:
        with reachable():
            channel = await self._channel(chat)
            message = await channel.send(
                content=caption or None, file=discord.File(io.BytesIO(data), filename=name)
            )
        return str(message.id)

    async def send_image(self, chat: str, name: str, png: bytes, caption: str = "") -> str:
        return await self.send_file(chat, name, png, caption)  # Discord shows a PNG inline

    async def download(self, file_ref: str, dest: Path) -> None:
        with reachable():
            async with aiohttp.ClientSession() as session, session.get(file_ref) as response:
                if response.status >= 500:
                    raise PlatformUnavailable(f"Discord's file server answered {response.status}")
                if response.status != 200:
                    raise BiomdError(
                        f"Discord did not hand over the file (HTTP {response.status})."
                    )
                with dest.open("wb") as out:
                    async for block in response.content.iter_chunked(1 << 20):
                        out.write(block)


def incoming_of(attachment: discord.Attachment, sent: datetime) -> Incoming:
    name = attachment.filename
    is_voice = bool(getattr(attachment, "is_voice_message", lambda: False)())
    audio = name.lower().endswith(_AUDIO) or (attachment.content_type or "").startswith("audio/")
    if is_voice:
        name = f"voice note {sent:%Y-%m-%d %H-%M}.ogg"
    media = "voice" if is_voice else "audio" if audio else "document"
    return Incoming(attachment.url, name, media, attachment.size)


class DiscordBot:
    def __init__(self, settings: Settings, assistant: Assistant) -> None:
        self.settings = settings
        self.assistant = assistant
        self.allowed = settings.discord.allowed_users
        intents = discord.Intents.default()
        intents.message_content = True
        intents.dm_messages = True
        self.client = discord.Client(intents=intents, guild_ready_timeout=0.5)
        self.channel = DiscordChannel(self.client)
        self._task: Any = None
        self.client.event(self.on_message)
        self.client.event(self.on_interaction)

    def _served(self, author: discord.User | discord.Member) -> bool:
        if author.id in self.allowed:
            return True
        log.info(
            "Discord: ignoring user id %s (%s); add it to BIOMD_DISCORD_ALLOWED_USERS if this "
            "is you",
            author.id,
            author,
        )
        return False

    async def on_message(self, message: discord.Message) -> None:
        if message.author.bot or message.author.id == getattr(self.client.user, "id", None):
            return
        if not self._served(message.author):
            return
        if message.guild is not None or not isinstance(message.channel, discord.DMChannel):
            return  # the bot works in DMs only
        await self._guarded(str(message.channel.id), self._handle(message))

    async def on_interaction(self, interaction: discord.Interaction) -> None:
        """A button under one of biomd's messages: the command it carries, as if typed.
        Slash commands are not registered; anything but a button is ignored."""
        if interaction.type is not discord.InteractionType.component:
            return
        if not self._served(interaction.user) or interaction.guild_id is not None:
            return
        data: dict[str, Any] = dict(interaction.data or {})
        custom_id = str(data.get("custom_id", ""))
        command, _, args = custom_id.partition(" ")
        if not command.startswith("/") or command[1:] not in _COMMANDS:
            return
        await self._guarded(str(interaction.channel_id), self._press(interaction, command, args))

    async def _press(self, interaction: discord.Interaction, command: str, args: str) -> None:
        with reachable():
            await interaction.response.defer()  # the press is acknowledged; replies follow
        chat = str(interaction.channel_id)
        await self.assistant.on_command(self.channel, chat, command[1:], args.strip())

    async def _guarded(self, chat: str, work: Awaitable[None]) -> None:
        """Run one handler; a failure becomes a message in the chat, never a silent drop."""
        try:
            await work
        except BiomdError as exc:
            await self._tell(chat, exc.user_message)
        except Exception:
            log.exception("Discord handler failed")
            await self._tell(chat, "Something went wrong on my side; it is in the log.")

    async def _tell(self, chat: str, text: str) -> None:
        with contextlib.suppress(PlatformUnavailable):
            await self.channel.send(chat, text)

    async def _handle(self, message: discord.Message) -> None:
        chat = str(message.channel.id)
        reply_to = str(message.reference.message_id) if message.reference else None
        for attachment in message.attachments:
            incoming = incoming_of(attachment, message.created_at)
            await self.assistant.on_file(self.channel, chat, incoming, reply_to)
        text = message.content.strip()
        if not text:
            return
        if text[:1] in "!/" and text[1:].split(" ", 1)[0].lower() in _COMMANDS:
            command, _, args = text[1:].partition(" ")
            await self.assistant.on_command(self.channel, chat, command.lower(), args)
            return
        async with message.channel.typing():
            await self.assistant.on_text(self.channel, chat, text, reply_to)

    async def owner_chats(self) -> list[str]:
        chats = []
        with reachable():
            for uid in sorted(self.allowed):
                user = await self.client.fetch_user(uid)
                dm = user.dm_channel or await user.create_dm()
                chats.append(str(dm.id))
        return chats

    async def start(self) -> None:
        """Log in (waiting out a network that is not up yet; a bad token fails at once), then
        keep the gateway connected: discord.py resumes or reconnects by itself."""
        delay = 1.0
        while True:
            try:
                with reachable():
                    await self.client.login(revealed(self.settings.discord.token) or "")
                break
            except discord.LoginFailure as exc:
                raise BiomdError(f"Discord rejected BIOMD_DISCORD_TOKEN: {exc}") from exc
            except PlatformUnavailable as exc:
                log.warning("%s; trying again in %.0f s", exc.user_message, delay)
                await asyncio.sleep(delay)
                delay = min(60.0, delay * 2)
        self._task = asyncio.create_task(self.client.connect(reconnect=True), name="discord")
        ready = asyncio.create_task(self.client.wait_until_ready())
        done, _ = await asyncio.wait(
            {ready, self._task}, timeout=READY_WAIT_S, return_when="FIRST_COMPLETED"
        )
        if self._task in done and self._task.exception() is not None:
            ready.cancel()
            raise BiomdError(f"Discord: could not connect ({self._task.exception()}).")
        if ready not in done:
            ready.cancel()
            log.warning("Discord's gateway is not ready yet; discord.py keeps trying")

    async def stop(self) -> None:
        await self.client.close()
        if self._task is not None:
            with contextlib.suppress(Exception):
                await self._task
