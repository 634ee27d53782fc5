"""The Telegram bridge: python-telegram-bot events in, `Assistant` calls out, replies back.

Only private chats with allow-listed users are served; anyone else is logged (so the owner
can find their id on first run) and gets nothing."""

from __future__ import annotations

import asyncio
import contextlib
import html
import logging
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path

from telegram import (
    BotCommand,
    InlineKeyboardButton,
    InlineKeyboardMarkup,
    InputFile,
    LinkPreviewOptions,
    Message,
    Update,
)
from telegram.constants import ChatType, ParseMode
from telegram.error import BadRequest, NetworkError, RetryAfter, TelegramError
from telegram.ext import (
    Application,
    ApplicationHandlerStop,
    CallbackQueryHandler,
    CommandHandler,
    ContextTypes,
    MessageHandler,
    TypeHandler,
    filters,
)

from biomd.app.assistant import Assistant, Incoming, commands
from biomd.app.channels import TELEGRAM_LIMIT, Buttons
from biomd.errors import BiomdError, PlatformUnavailable
from biomd.settings import Settings, revealed

log = logging.getLogger(__name__)

CLOUD_API = "https://api.telegram.org"


@contextlib.contextmanager
def reachable() -> Iterator[None]:
    """Telegram not answering (network, 5xx, flood control) becomes `PlatformUnavailable`,
    which the engine retries later; a refused request (BadRequest, Forbidden) stays what it is."""
    try:
        yield
    except BadRequest:
        raise
    except (NetworkError, RetryAfter) as exc:  # TimedOut is a NetworkError
        raise PlatformUnavailable(f"Telegram did not answer ({exc})") from exc


def api_urls(api_url: str) -> tuple[str, str]:
    """The Bot API's method and file URLs under a server's root URL."""
    api = api_url.rstrip("/")
    return f"{api}/bot", f"{api}/file/bot"


class TelegramChannel:
    """`Channel` over the Bot API: HTML mode, so any text is escaped and renders as sent."""

    platform = "telegram"
    max_length = TELEGRAM_LIMIT
    local = False

    def __init__(self, application: Application) -> None:  # type: ignore[type-arg]
        self.app = application

    async def send(self, chat: str, text: str, buttons: Buttons = ()) -> str:
        markup = None
        if buttons:  # the command each sends comes back as the button's callback data
            keys = [InlineKeyboardButton(label, callback_data=cmd[:64]) for label, cmd in buttons]
            markup = InlineKeyboardMarkup([keys[i : i + 2] for i in range(0, len(keys), 2)])
        with reachable():
            message = await self.app.bot.send_message(
                int(chat),
                html.escape(text, quote=False),
                parse_mode=ParseMode.HTML,
                link_preview_options=LinkPreviewOptions(is_disabled=True),
                reply_markup=markup,
            )
        return str(message.message_id)

    async def edit(self, chat: str, message: str, text: str) -> None:
        try:
            with reachable():
                await self.app.bot.edit_message_text(
                    html.escape(text, quote=False),
                    chat_id=int(chat),
                    message_id=int(message),
                    parse_mode=ParseMode.HTML,
                )
        except BadRequest as exc:
            if "not modified" not in str(exc).lower():
                raise

    async def send_file(self, chat: str, name: str, data: bytes, caption: str = "") -> str:
        with reachable():
            message = await self.app.bot.send_document(
                int(chat), document=InputFile(data, filename=name), caption=caption or None
            )
        return str(message.message_id)

    async def send_image(self, chat: str, name: str, png: bytes, caption: str = "") -> str:
        with reachable():
            message = await self.app.bot.send_photo(
                int(chat), photo=InputFile(png, filename=name), caption=caption[:1024] or None
            )
        return str(message.message_id)

    async def download(self, file_ref: str, dest: Path) -> None:
        try:
            with reachable():
                file = await self.app.bot.get_file(file_ref)
        except BadRequest as exc:
            if "too big" in str(exc).lower():
                raise BiomdError(
                    "Telegram's cloud API lets bots download files up to 20 MB only. Run a local "
                    "Bot API server (see docs/bots.md, BIOMD_TELEGRAM_API_URL), or copy the file "
                    "to this computer and run `biomd ingest`."
                ) from exc
            raise
        with reachable():
            await file.download_to_drive(custom_path=dest)


def _polling_error(exc: TelegramError) -> None:
    """One line per failed poll while Telegram is away; python-telegram-bot keeps polling,
    waiting up to 30 s between tries."""
    log.warning("Telegram: could not fetch updates (%s); retrying", exc)


def incoming_of(message: Message) -> Incoming | None:
    """The file or voice note in a message, named the way the owner would recognise it."""
    when = (message.date or datetime.now()).strftime("%Y-%m-%d %H-%M")
    if message.document:
        d = message.document
        return Incoming(d.file_id, d.file_name or f"document {when}", "document", d.file_size)
    if message.voice:
        return Incoming(message.voice.file_id, f"voice note {when}.ogg", "voice")
    if message.video_note:
        return Incoming(message.video_note.file_id, f"video note {when}.mp4", "video_note")
    if message.audio:
        a = message.audio
        return Incoming(a.file_id, a.file_name or f"audio {when}.mp3", "audio", a.file_size)
    if message.video:
        v = message.video
        return Incoming(v.file_id, v.file_name or f"video {when}.mp4", "video", v.file_size)
    if message.photo:
        largest = message.photo[-1]
        return Incoming(largest.file_id, f"photo {when}.jpg", "photo", largest.file_size)
    return None


class TelegramBot:
    """Builds the python-telegram-bot application and runs it inside the caller's loop."""

    def __init__(self, settings: Settings, assistant: Assistant) -> None:
        self.settings = settings
        self.assistant = assistant
        self.allowed = settings.telegram.allowed_users
        api = settings.telegram.api_url.rstrip("/")
        base_url, base_file_url = api_urls(api)
        builder = (
            Application.builder()
            .token(revealed(settings.telegram.token) or "")
            .base_url(base_url)
            .base_file_url(base_file_url)
        )
        local = settings.telegram.local_mode
        if local if local is not None else api != CLOUD_API:
            builder = builder.local_mode(True)
        self.app = builder.build()
        self.channel = TelegramChannel(self.app)
        self._register()

    def _register(self) -> None:
        app = self.app
        app.add_handler(TypeHandler(Update, self._gatekeeper), group=-1)
        app.add_handler(CommandHandler([n for c in commands() for n in c.names], self._command))
        media = (
            filters.Document.ALL
            | filters.PHOTO
            | filters.VOICE
            | filters.VIDEO_NOTE
            | filters.AUDIO
            | filters.VIDEO
        )
        app.add_handler(MessageHandler(filters.UpdateType.MESSAGE & media, self._file))
        app.add_handler(
            MessageHandler(filters.UpdateType.MESSAGE & filters.TEXT & ~filters.COMMAND, self._text)
        )
        app.add_handler(CallbackQueryHandler(self._button))
        app.add_error_handler(self._error)

    async def _gatekeeper(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        """Stop every update that is not the owner writing in a private chat."""
        user = update.effective_user
        chat = update.effective_chat
        owner = user is not None and user.id in self.allowed
        if owner and chat is not None and chat.type == ChatType.PRIVATE:
            return
        if user is not None and user.id not in self.allowed:
            log.info(
                "Telegram: ignoring user id %s (%s); add it to BIOMD_TELEGRAM_ALLOWED_USERS "
                "if this is you",
                user.id,
                user.username or user.full_name,
            )
        raise ApplicationHandlerStop

    async def _command(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        message = update.effective_message
        if message is None or not message.text:
            return
        command, _, args = message.text.partition(" ")
        name = command.lstrip("/").split("@")[0]
        await self.assistant.on_command(self.channel, str(message.chat_id), name, args)

    async def _button(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        """A button under one of biomd's messages: the command it carries, as if typed."""
        query = update.callback_query
        if query is None or not query.data or update.effective_chat is None:
            return
        await query.answer()
        command, _, args = query.data.partition(" ")
        if command.startswith("/"):
            chat = str(update.effective_chat.id)
            await self.assistant.on_command(self.channel, chat, command[1:], args)

    async def _text(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        message = update.effective_message
        if message is None or not message.text:
            return
        await message.chat.send_action("typing")
        reply_to = message.reply_to_message
        await self.assistant.on_text(
            self.channel,
            str(message.chat_id),
            message.text,
            str(reply_to.message_id) if reply_to else None,
        )

    async def _file(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        message = update.effective_message
        if message is None:
            return
        incoming = incoming_of(message)
        if incoming is None:
            return
        reply_to = message.reply_to_message
        await self.assistant.on_file(
            self.channel,
            str(message.chat_id),
            incoming,
            str(reply_to.message_id) if reply_to else None,
        )

    async def _error(self, update: object, context: ContextTypes.DEFAULT_TYPE) -> None:
        log.error("Telegram handler failed", exc_info=context.error)
        if isinstance(update, Update) and update.effective_chat is not None:
            user = update.effective_user
            if user is not None and user.id in self.allowed:
                text = (
                    context.error.user_message
                    if isinstance(context.error, BiomdError)
                    else "Something went wrong on my side; it is in the log. Try again?"
                )
                with contextlib.suppress(PlatformUnavailable):
                    await self.channel.send(str(update.effective_chat.id), text)

    async def owner_chats(self) -> list[str]:
        """In Telegram a private chat's id is the user's id."""
        return [str(uid) for uid in sorted(self.allowed)]

    async def start(self) -> None:
        """Connect, waiting out a network that is not up yet; a bad token fails at once."""
        delay = 1.0
        while True:
            try:
                with reachable():
                    await self.app.initialize()
                    await self.app.bot.set_my_commands(
                        [BotCommand(c.name, c.help) for c in commands()]
                    )
                break
            except PlatformUnavailable as exc:
                log.warning("%s; trying again in %.0f s", exc.user_message, delay)
                await asyncio.sleep(delay)
                delay = min(60.0, delay * 2)
        await self.app.start()
        assert self.app.updater is not None
        await self.app.updater.start_polling(
            allowed_updates=Update.ALL_TYPES, error_callback=_polling_error
        )

    async def stop(self) -> None:
        if self.app.updater is not None and self.app.updater.running:
            await self.app.updater.stop()
        if self.app.running:
            await self.app.stop()
        await self.app.shutdown()
