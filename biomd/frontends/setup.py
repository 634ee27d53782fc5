"""`biomd setup`: a walk-through that writes the config file. Every step can be skipped (press
Enter) and done later with `biomd config set`; nothing is written until the end."""

from __future__ import annotations

import asyncio
import contextlib
import time
from dataclasses import dataclass, field
from typing import Any, Protocol
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from biomd.app import model_checks
from biomd.app.config import ConfigFile
from biomd.errors import PlatformUnavailable
from biomd.settings import Settings, revealed

OPENROUTER = "https://openrouter.ai/api/v1"
DEFAULT_MODELS = {"openrouter": "openai/gpt-4o-mini"}
OWNER_WAIT_S = 120.0


class Prompter(Protocol):
    """How the wizard talks: the terminal in `biomd setup`, a script in tests."""

    def ask(self, question: str, default: str = "", secret: bool = False) -> str: ...

    def say(self, text: str) -> None: ...


# Search by meaning across ~50 languages, small enough for a CPU: 220 MB, 384 dimensions as
# the English default, 12 layers. It reads the first 128 tokens of a chunk (about 500
# characters of a European language); paraphrase-multilingual-mpnet-base-v2 reads 512 and is
# about four times slower.
MULTILINGUAL_EMBED_MODEL = "sentence-transformers/paraphrase-multilingual-MiniLM-L12-v2"


@dataclass
class Wizard:
    settings: Settings
    io: Prompter
    owner_wait_s: float = OWNER_WAIT_S
    values: dict[str, str] = field(default_factory=dict)
    local_candidates: tuple[tuple[str, str], ...] = model_checks.LOCAL_SERVERS

    async def run(self, file: ConfigFile) -> dict[str, str]:
        """All the steps, then the config file written with what was chosen."""
        self.io.say(
            "Setting up biomd. Press Enter to skip any step; everything can also be set later "
            f"with `biomd config set NAME VALUE`, which writes {file.path}.\n"
        )
        await self.language_model()
        await self.telegram()
        await self.discord()
        self.about_you()
        self.schedule()
        if not self.values:
            self.io.say("Nothing changed.")
            return self.values
        file.add(self.values)
        shown = ", ".join(sorted(self.values))
        self.io.say(
            f"\nWrote {shown} to {file.path} (readable by you only), which biomd reads from "
            "any folder.\nCheck everything with `biomd doctor`, then start with `biomd run` "
            "(`make run` in a clone)."
        )
        return self.values

    # -- the language model ---------------------------------------------------------------

    async def language_model(self) -> None:
        self.io.say(
            "1. The language model (the biographer's brain). Your sources stay here; the "
            "biographer sends the LLM only what it needs for each turn.\n"
            "   [1] OpenRouter (one key, many models)  [2] a model server on this computer "
            "(Ollama, llama.cpp, LM Studio, vLLM)  [3] another OpenAI-compatible URL"
        )
        codex = await self._codex()
        if codex:
            self.io.say(f"   [4] your ChatGPT subscription, through the Codex CLI ({codex})")
        if (now := self.settings.endpoint()).configured:
            self.io.say(f"   Now: {now.model} at {now.base_url}.")
        choice = self.io.ask(f"   Which one? (1/2/3{'/4' if codex else ''}, Enter to skip)").strip()
        if choice == "4" and codex:
            self.values["BIOMD_LLM_BACKEND"] = "codex"
            self.io.say("   The biographer will run on Codex; no per-token cost beyond your plan.")
            return
        if choice not in ("1", "2", "3"):
            return
        if self.settings.llm.backend == "codex":
            self.values["BIOMD_LLM_BACKEND"] = "openai"
        key, model = "", ""
        if choice == "1":
            url = OPENROUTER
            key = self.io.ask("   OpenRouter key (https://openrouter.ai/keys)", secret=True)
            if not key:
                self.io.say("   Skipped.")
                return
        elif choice == "2":
            picked = await self._local_server()
            if picked is None:
                return
            url, model = picked
        else:
            url = self.io.ask("   Base URL (ending in /v1)")
            key = self.io.ask("   API key (Enter if none)", secret=True)
            if not url:
                self.io.say("   Skipped.")
                return
        model = model or self.io.ask("   Model", DEFAULT_MODELS["openrouter"] if key else "")
        problem = await model_checks.answers(url, key, model)
        if problem:
            self.io.say(f"   The test call failed: {problem}")
            if self.io.ask("   Keep these settings anyway? (y/N)").lower() != "y":
                return
        else:
            self.io.say(f"   {model} answered. Checking how it makes tool calls…")
            tools = await model_checks.tool_calls(url, key, model)
            self.io.say(f"   {tools.advice[0].upper()}{tools.advice[1:]}")
            if tools.how == "none" and self.io.ask("   Use it anyway? (y/N)").lower() != "y":
                return
            model = await self._ollama_context(url, model)
        self.values |= {"BIOMD_LLM_BASE_URL": url, "BIOMD_LLM_MODEL": model}
        if key:
            self.values["BIOMD_LLM_API_KEY"] = key
        reader = self.io.ask(
            "   New sources are first read by a reader that takes notes (every quote is "
            "checked), then judged by this model. A cheaper model on the same endpoint can "
            "be the reader. Reader model (Enter: the same)"
        ).strip()
        if reader and reader != model:
            self.values["BIOMD_READER_MODEL"] = reader
        if choice == "2":  # a small local model places notes poorly: rules first (RESULTS.md)
            self.values["BIOMD_READING_PLACEMENT"] = "rules"

    async def _codex(self) -> str | None:
        """The Codex CLI's login, if it is installed and logged in."""
        codex = await model_checks.codex(self.settings)
        return codex.said if codex is not None and codex.logged_in else None

    async def _local_server(self) -> tuple[str, str] | None:
        """A model server on this computer and one of its models, as (base URL, model)."""
        servers = await model_checks.find_local_servers(self.local_candidates)
        if not servers:
            ports = ", ".join(f"{k} {u.rsplit(':', 1)[-1]}" for k, u in self.local_candidates)
            self.io.say(f"   No model server answered at the usual ports ({ports}).")
            url = self.io.ask("   Its URL, if it runs elsewhere (Enter to skip)")
            if not url:
                self.io.say(
                    "   Skipped. Start one (for example `ollama serve`) and run setup again."
                )
                return None
            return url, self.io.ask("   Model")
        for i, s in enumerate(servers, 1):
            shown = ", ".join(s.models[:8]) or "no model loaded"
            self.io.say(f"   [{i}] {s.kind} at {s.base_url}: {shown}")
        which = self.io.ask("   Which server?", "1").strip()
        server = (
            servers[int(which) - 1] if which.isdigit() and 0 < int(which) <= len(servers) else None
        )
        if server is None:
            self.io.say("   Skipped.")
            return None
        if not server.models:
            return server.base_url, self.io.ask("   Model (as the server names it)")
        for i, m in enumerate(server.models, 1):
            self.io.say(f"     ({i}) {m}")
        answer = self.io.ask("   Model (number or name)", "1").strip()
        if answer.isdigit() and 0 < int(answer) <= len(server.models):
            return server.base_url, server.models[int(answer) - 1]
        return server.base_url, answer

    async def _ollama_context(self, url: str, model: str) -> str:
        """On Ollama, offer a copy of the model with a context window a reading turn fits in."""
        context = await model_checks.short_context(url, model)
        if context is None:
            return model
        self.io.say(
            f"   Ollama runs {model} with a {context:,}-token context, and silently cuts longer "
            f"prompts. Reading a source wants about {model_checks.WANTED_CONTEXT:,}."
        )
        if self.io.ask("   Make a copy of the model with that context? (Y/n)", "y").lower() != "y":
            return model
        try:
            made = await model_checks.make_ollama_variant(url, model)
        except Exception as exc:
            self.io.say(f"   Ollama could not make it ({exc}); keeping {model}.")
            return model
        self.io.say(f"   Made {made}; biomd will use it.")
        return made

    # -- Telegram ---------------------------------------------------------------------------

    async def telegram(self) -> None:
        self.io.say(
            "\n2. Telegram. In Telegram, message @BotFather, send /newbot, pick a name, and "
            "copy the token it gives you."
        )
        token = self._token(revealed(self.settings.telegram.token))
        if not token:
            return
        from telegram import Bot
        from telegram.error import TelegramError

        from biomd.frontends.telegram_bot import api_urls, reachable

        base_url, base_file_url = api_urls(self.settings.telegram.api_url)
        bot = Bot(token, base_url=base_url, base_file_url=base_file_url)
        try:
            with reachable():
                async with bot:
                    me = await bot.get_me()
                    await bot.delete_webhook()
                    self.io.say(
                        f"   Found your bot @{me.username}. Now send it any message from your "
                        f"own Telegram account (waiting {self.owner_wait_s:.0f} s)…"
                    )
                    owner = await self._telegram_owner(bot)
        except PlatformUnavailable as exc:
            self.io.say(f"   {exc.user_message}. Skipped; run setup again online.")
            return
        except TelegramError as exc:
            self.io.say(f"   Telegram did not accept that token: {exc}. Skipped.")
            return
        self.values["BIOMD_TELEGRAM_TOKEN"] = token
        if owner is None:
            self.io.say(
                "   No message arrived. Set BIOMD_TELEGRAM_ALLOWED_USERS by hand: run `make run`, "
                "message the bot, and copy the id from 'Telegram: ignoring user id …'."
            )
            return
        self._confirm_owner("BIOMD_TELEGRAM_ALLOWED_USERS", "Message", *owner)

    def _token(self, current: str | None) -> str:
        """A bot token, typed hidden; empty to skip (or to keep the one already set)."""
        hint = " (a token is set; Enter keeps it)" if current else " (Enter to skip)"
        return self.io.ask(f"   Bot token{hint}", secret=True).strip()

    def _confirm_owner(self, key: str, what: str, uid: int, name: str) -> None:
        """Allow the sender of the first message, once the owner says it was them."""
        if self.io.ask(f"   {what} from {name} (id {uid}). Is that you? (Y/n)").lower() != "n":
            self.values[key] = str(uid)

    async def _telegram_owner(self, bot: Any) -> tuple[int, str] | None:
        deadline = time.monotonic() + self.owner_wait_s
        offset = None
        while time.monotonic() < deadline:
            poll = max(1, min(10, int(deadline - time.monotonic())))
            for update in await bot.get_updates(offset=offset, timeout=poll):
                offset = update.update_id + 1
                user, chat = update.effective_user, update.effective_chat
                if user and chat and chat.type == "private" and not user.is_bot:
                    label = user.full_name + (f" (@{user.username})" if user.username else "")
                    await bot.get_updates(offset=offset, timeout=0)  # mark it read
                    return user.id, label
        return None

    # -- Discord ----------------------------------------------------------------------------

    async def discord(self) -> None:
        self.io.say(
            "\n3. Discord. At https://discord.com/developers/applications: New Application → "
            "Bot → Reset Token, and turn on Message Content Intent on the same page."
        )
        token = self._token(revealed(self.settings.discord.token))
        if not token:
            return
        import discord

        from biomd.frontends.discord_bot import reachable

        found: asyncio.Future[tuple[int, str]] = asyncio.get_running_loop().create_future()
        intents = discord.Intents.default()
        intents.dm_messages = True
        client = discord.Client(intents=intents)

        @client.event
        async def on_message(message: discord.Message) -> None:
            if message.guild is None and not message.author.bot and not found.done():
                found.set_result((message.author.id, str(message.author)))

        try:
            with reachable():
                await client.login(token)
        except PlatformUnavailable as exc:
            self.io.say(f"   {exc.user_message}. Skipped; run setup again online.")
            await client.close()
            return
        except (discord.LoginFailure, discord.HTTPException) as exc:
            self.io.say(f"   Discord did not accept that token: {exc}. Skipped.")
            await client.close()
            return
        self.values["BIOMD_DISCORD_TOKEN"] = token
        gateway = asyncio.create_task(client.connect(reconnect=False))
        try:
            ready = asyncio.ensure_future(client.wait_until_ready())
            await asyncio.wait({ready, gateway}, timeout=60, return_when="FIRST_COMPLETED")
            if not ready.done():
                ready.cancel()
                self.io.say(
                    "   Could not connect to Discord's gateway just now. The token is kept; set "
                    "BIOMD_DISCORD_ALLOWED_USERS by hand (see docs/bots.md)."
                )
                return
            bot_id = client.user.id if client.user else 0
            self.io.say(
                f"   Found your bot {client.user}. Invite it to a server you are in, so you can "
                "DM it: https://discord.com/oauth2/authorize?client_id="
                f"{bot_id}&scope=bot&permissions=0\n"
                f"   Then send it a direct message (waiting {self.owner_wait_s:.0f} s)…"
            )
            try:
                uid, name = await asyncio.wait_for(asyncio.shield(found), self.owner_wait_s)
            except TimeoutError:
                self.io.say(
                    "   No DM arrived. Set BIOMD_DISCORD_ALLOWED_USERS by hand: run `make run`, "
                    "DM the bot, and copy the id from 'Discord: ignoring user id …'."
                )
                return
        finally:
            await client.close()
            gateway.cancel()
            with contextlib.suppress(BaseException):
                await gateway
        self._confirm_owner("BIOMD_DISCORD_ALLOWED_USERS", "DM", uid, name)

    # -- you, and when to ask ------------------------------------------------------------------

    def about_you(self) -> None:
        self.io.say(
            "\n4. The names you appear as in your chat exports (e.g. 'Nina Castell, Nina, "
            "nina_c'), so the biographer knows which side of a chat is you."
        )
        names = self.io.ask("   Your names (comma-separated, Enter to skip)").strip()
        if names:
            self.values["BIOMD_OWNER_NAMES"] = names
        self.io.say(
            "   The languages your life is in, the one bio.md should be written in first "
            "(e.g. 'de, es'; ISO codes)."
        )
        codes = [c.strip().lower() for c in self.io.ask("   Languages", "en").split(",")]
        codes = [c for c in dict.fromkeys(codes) if c]
        if codes and codes != ["en"]:
            self.values["BIOMD_LANGUAGES"] = ",".join(codes)
            self.values["BIOMD_LANGUAGE"] = codes[0]
            self.values["BIOMD_EMBED_MODEL"] = MULTILINGUAL_EMBED_MODEL
            self.io.say(
                f"   bio.md will be written in {codes[0]}; search by meaning uses "
                f"{MULTILINGUAL_EMBED_MODEL} (about 50 languages, 220 MB, downloaded once). "
                "Sources you already have are re-embedded with it by `biomd reindex` or at "
                "the bot's next start; search keeps working meanwhile."
            )

    def schedule(self) -> None:
        self.io.say(
            "\n5. Questions. When your sources leave gaps, the bot asks you, at most once a "
            "day at a time you choose."
        )
        while True:
            at = self.io.ask("   Time of day (HH:MM, 'off' for never, Enter to skip)").strip()
            if not at:
                break
            if at.lower() == "off":
                self.values["BIOMD_QUESTIONS_PER_PUSH"] = "0"
                break
            cron = daily_cron(at)
            if cron:
                self.values["BIOMD_QUESTIONS_CRON"] = cron
                break
            self.io.say("   That is not a time like 19:00.")
        zone = self.settings.zone
        while True:
            name = self.io.ask("   Your time zone", str(zone)).strip()
            if not name or name == str(zone):
                break
            try:
                ZoneInfo(name)
            except (ZoneInfoNotFoundError, ValueError):
                self.io.say(
                    "   Not a time zone name; try one like Europe/Lisbon or America/Chicago."
                )
                continue
            self.values["BIOMD_TIMEZONE"] = name
            break


def daily_cron(at: str) -> str | None:
    """'19:00' → '0 19 * * *'; None if `at` is not a time of day."""
    hours, _, minutes = at.partition(":")
    if not (hours.isdigit() and (minutes or "0").isdigit()):
        return None
    h, m = int(hours), int(minutes or 0)
    if not (0 <= h < 24 and 0 <= m < 60):
        return None
    return f"{m} {h} * * *"
