"""`biomd doctor`: checks the configuration, the models, the data dir, the store, the LLM
endpoint, the bot tokens and the scheduler, and says how to fix what is wrong."""

from __future__ import annotations

import asyncio
import os
import shutil
import stat
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from biomd.app import config, maintenance, model_checks
from biomd.app.config import ConfigFile
from biomd.app.replies import counted
from biomd.errors import PlatformUnavailable, StoreError
from biomd.settings import Settings

OK, WARN, FAIL = "ok", "warn", "fail"


@dataclass(frozen=True)
class Check:
    status: str  # ok, warn or fail
    topic: str
    detail: str
    fix: str = ""


def size_mb(path: Path) -> float:
    files = [path] if path.is_file() else [p for p in path.rglob("*") if p.is_file()]
    return sum(p.stat().st_size for p in files) / 1e6


# -- configuration and files (no network) -------------------------------------------------------


def check_config_file(file: ConfigFile) -> Iterator[Check]:
    """The config file: there, private where it holds keys (on POSIX), and every key in it
    one that biomd or a plugin reads (a misspelt one is otherwise ignored)."""
    if not file.path.exists():
        yield Check(
            WARN,
            "config",
            f"no config file at {file.path}: everything is at its default",
            "run `biomd setup`, or `biomd config set NAME VALUE`",
        )
        return
    held = file.read()
    secrets = sorted(k for k, v in held.items() if v and k in config.secret_names())
    mode = stat.S_IMODE(file.path.stat().st_mode)
    if os.name != "posix":
        yield Check(OK, "config", f"{file.path} (in your own user folder)")
    elif mode & 0o077 and secrets:
        yield Check(
            FAIL,
            "config",
            f"{file.path} holds keys and tokens ({', '.join(secrets)}) but others can read "
            f"it ({mode:o})",
            f"chmod 600 {file.path}",
        )
    elif secrets:
        yield Check(OK, "config", f"{file.path} holds keys and is readable by you only")
    else:
        yield Check(OK, "config", f"{file.path} (it holds no keys)")
    for key, close in config.unknown(file):
        yield Check(
            WARN,
            "config",
            f"{key} in {file.path} is not a setting biomd or a plugin reads, so it does nothing",
            f"did you mean {' or '.join(close)}?" if close else f"`biomd config unset {key}`",
        )


def check_models(s: Settings) -> Iterator[Check]:
    if s.embed.model_path:
        there = (s.embed.model_path / "model.onnx").is_file() or any(
            s.embed.model_path.rglob("*.onnx")
        )
        if there:
            mb = size_mb(s.embed.model_path)
            yield Check(
                OK,
                "models",
                f"embedding model {s.embed.model} from {s.embed.model_path} ({mb:,.0f} MB)",
            )
        else:
            yield Check(
                FAIL,
                "models",
                f"BIOMD_EMBED_MODEL_PATH={s.embed.model_path} has no .onnx model",
                "point it at a folder with model.onnx, tokenizer.json and config.json",
            )
    elif model_checks.embedding_downloaded(s):
        part = s.embed.model.split("/")[-1].lower()
        dirs = [p for p in s.models_dir.glob("*") if part in p.name.lower()]
        mb = sum(size_mb(p) for p in dirs)
        yield Check(OK, "models", f"embedding model {s.embed.model} downloaded ({mb:,.0f} MB)")
    else:
        yield Check(
            WARN,
            "models",
            f"embedding model {s.embed.model} not downloaded yet "
            f"({model_checks.embedding_size(s)}, fetched once on first use)"
            + _failed(model_checks.embedding_failure(s), "`biomd embed`"),
            "without network access, put the model files in a folder and set "
            "BIOMD_EMBED_MODEL_PATH",
        )
    whisper = Path(s.whisper.model).expanduser()
    if whisper.is_dir():
        if (whisper / "model.bin").is_file():
            yield Check(OK, "models", f"speech model from {whisper} ({size_mb(whisper):,.0f} MB)")
        else:
            yield Check(
                FAIL,
                "models",
                f"BIOMD_WHISPER_MODEL={whisper} has no model.bin",
                "point it at a CTranslate2 faster-whisper model folder",
            )
        return
    cache = s.models_dir / "whisper"
    found = list(cache.glob(f"models--*faster-whisper-{s.whisper.model}")) if cache.is_dir() else []
    if found and any(found[0].rglob("model.bin")):
        yield Check(
            OK, "models", f"speech model {s.whisper.model} downloaded ({size_mb(found[0]):,.0f} MB)"
        )
    else:
        yield Check(
            WARN,
            "models",
            f"speech model {s.whisper.model} not downloaded yet "
            "(fetched once, with the first voice note)"
            + _failed(model_checks.speech_failure(s), "sending a voice note again"),
            "without network access, set BIOMD_WHISPER_MODEL to a local model folder",
        )


def check_data_dir(s: Settings) -> Iterator[Check]:
    d = s.data_dir
    if not d.exists():
        yield Check(OK, "data", f"{d} does not exist yet; it is created (0700) on first use")
        return
    mode = stat.S_IMODE(d.stat().st_mode)
    if mode != 0o700:
        yield Check(
            FAIL, "data", f"{d} is {mode:o}, so others may read your life", f"chmod 700 {d}"
        )
    else:
        yield Check(OK, "data", f"{d} is private (0700)")
    loose = [
        p
        for p in [s.db_path, *(d / "raw").rglob("*")]
        if p.is_file() and stat.S_IMODE(p.stat().st_mode) & 0o077
    ]
    if loose:
        yield Check(
            FAIL,
            "data",
            f"readable by others: {counted(len(loose), 'file')} in it, e.g. {loose[0]}",
            f"chmod -R go-rwx {d}",
        )
    if maintenance.in_use(s):
        yield Check(OK, "data", "a biomd process (the bot?) is running on it right now")
    free = shutil.disk_usage(d).free / 1e9
    if free < 1:
        yield Check(
            WARN,
            "data",
            f"only {free:.1f} GB free on the disk holding {d}",
            "free some space: ingesting stops with a clear error when the disk fills",
        )


def check_store(s: Settings) -> Iterator[Check]:
    if not s.db_path.exists():
        return
    restore = "restore from your last `biomd export` with `biomd import`"
    try:
        health = maintenance.store_health(s)
    except StoreError as exc:
        yield Check(FAIL, "store", exc.user_message, restore)
        return
    if health.quick_check != "ok":
        yield Check(FAIL, "store", f"integrity check failed: {health.quick_check}", restore)
        return
    ready, pending, failed = (health.sources.get(k, 0) for k in ("ready", "pending", "failed"))
    yield Check(
        OK,
        "store",
        f"integrity ok; {counted(ready, 'source')}, schema {health.schema}/{health.latest_schema}",
    )
    if pending:
        yield Check(
            WARN,
            "store",
            f"left half-indexed by a stop: {counted(pending, 'source')}",
            "`biomd ingest` (any file) or the bot's next start finishes them",
        )
    if failed:
        yield Check(
            WARN, "store", f"{counted(failed, 'source')} could not be read", "`biomd sources`"
        )
    stored_model = health.meta.get("embed_model")
    missing = health.chunks_without_vectors
    if stored_model and stored_model != s.embed.model:
        yield Check(
            WARN,
            "store",
            f"vectors were made with {stored_model}, but BIOMD_EMBED_MODEL is {s.embed.model};"
            f" search uses {stored_model} until they are re-embedded",
            "`biomd reindex` (search keeps working meanwhile), or the bot does it at start",
        )
    elif missing:
        here = s.embed.model_path is not None or model_checks.embedding_downloaded(s)
        yield Check(
            WARN,
            "store",
            f"still without vectors: {counted(missing, 'chunk')}",
            "`biomd embed`"
            + (
                ""
                if here
                else " (it downloads the model first: it needs network access; without it, "
                "set BIOMD_EMBED_MODEL_PATH)"
            ),
        )


def _failed(failure: model_checks.Failure | None, retry: str) -> str:
    """What a failed download of a model adds to its check."""
    if failure is None:
        return ""
    return (
        f"; its download failed at {failure.at} ({failure.why}), and is tried again in "
        f"{failure.hours} hours, or at once by {retry}"
    )


def check_scheduler(s: Settings) -> Iterator[Check]:
    from datetime import datetime

    from apscheduler.triggers.cron import CronTrigger

    try:
        zone = s.zone
        trigger = CronTrigger.from_crontab(s.questions.cron, timezone=zone)
    except Exception as exc:
        yield Check(
            FAIL,
            "schedule",
            str(getattr(exc, "user_message", exc)),
            "BIOMD_QUESTIONS_CRON like '0 19 * * *', BIOMD_TIMEZONE like Europe/Lisbon",
        )
        return
    if s.questions.per_push == 0:
        yield Check(OK, "schedule", "questions are never pushed (BIOMD_QUESTIONS_PER_PUSH=0)")
        return
    nxt = trigger.get_next_fire_time(None, datetime.now(zone))
    when = nxt.strftime("%a %d %b %H:%M %Z") if nxt else "never"
    yield Check(OK, "schedule", f"questions pushed '{s.questions.cron}' ({zone}); next {when}")


# -- network ---------------------------------------------------------------------------------------


async def check_codex(s: Settings) -> list[Check]:
    """The Codex backend: the binary, its version, and a login."""
    codex = await model_checks.codex(s)
    if codex is None:
        return [
            Check(
                FAIL,
                "llm",
                f"BIOMD_LLM_BACKEND is codex but {s.codex.bin} is not found",
                "`npm i -g @openai/codex`, then `codex login`",
            )
        ]
    found = []
    tested = ".".join(map(str, model_checks.TESTED))
    if codex.version is None:
        found.append(
            Check(FAIL, "llm", f"{codex.path} --version failed", "reinstall the Codex CLI")
        )
    elif codex.version[:2] < model_checks.TESTED[:2]:
        found.append(
            Check(
                FAIL,
                "llm",
                f"Codex CLI {'.'.join(map(str, codex.version))} is older "
                f"than {tested}, the version biomd is tested with",
                "`npm i -g @openai/codex`",
            )
        )
    else:
        found.append(
            Check(
                OK,
                "llm",
                f"Codex CLI {'.'.join(map(str, codex.version))} at {codex.path} "
                f"(tested with {tested})",
            )
        )
    found.append(
        Check(OK, "llm", f"Codex login: {codex.said}")
        if codex.logged_in
        else Check(FAIL, "llm", f"Codex is not logged in ({codex.said})", "`codex login`")
    )
    return found


async def check_llm(s: Settings) -> list[Check]:
    if s.llm.backend == "codex":
        return await check_codex(s)

    ep = s.endpoint()
    if not ep.configured:
        return [
            Check(
                WARN,
                "llm",
                "no language model configured: answers are search results "
                "and bio.md is not written",
                "`biomd setup`, or `biomd config set BIOMD_LLM_API_KEY <key>`",
            )
        ]
    problem = await model_checks.answers(ep.base_url, ep.api_key or "", ep.model)
    if problem:
        return [
            Check(
                FAIL,
                "llm",
                f"{ep.model} at {ep.base_url}: {problem}",
                "check BIOMD_LLM_API_KEY, BIOMD_LLM_BASE_URL and BIOMD_LLM_MODEL",
            )
        ]
    found = [Check(OK, "llm", f"{ep.model} at {ep.base_url} answers")]
    found += await check_reader(s)
    tools = await model_checks.tool_calls(ep.base_url, ep.api_key or "", ep.model)
    status = {"native": OK, "text": WARN}.get(tools.how, FAIL)
    fix = "" if status == OK else "a model trained for tool use (docs/models-and-costs.md)"
    found.append(Check(status, "llm", f"tool-call round trip: {tools.advice}", fix))
    context = await model_checks.short_context(ep.base_url, ep.model)
    if context is not None and not ep.context_tokens:
        found.append(
            Check(
                WARN,
                "llm",
                f"Ollama runs {ep.model} with a {context:,}-token context; turns are trimmed "
                f"to fit, but reading a source wants about {model_checks.WANTED_CONTEXT:,}",
                "`biomd setup` makes a copy of the model with a larger num_ctx",
            )
        )
    return found


async def check_reader(s: Settings) -> list[Check]:
    """The reader, where it is a model or an endpoint of its own."""
    if not (s.reader.model or s.reader.base_url):
        return []
    r = s.reader_endpoint()
    problem = await model_checks.answers(r.base_url, r.api_key or "", r.model)
    if problem:
        return [
            Check(
                FAIL,
                "reader",
                f"{r.model} at {r.base_url}: {problem}",
                "check BIOMD_READER_MODEL, BIOMD_READER_BASE_URL and BIOMD_READER_API_KEY",
            )
        ]
    return [Check(OK, "reader", f"{r.model} at {r.base_url} answers")]


def unreachable(topic: str, exc: PlatformUnavailable) -> Check:
    detail = f"could not reach {topic.title()} to check the token ({exc.user_message})"
    return Check(WARN, topic, detail)


async def check_telegram(s: Settings) -> list[Check]:
    if not s.telegram.token:
        return [Check(OK, "telegram", "not configured")]
    from telegram import Bot
    from telegram.error import TelegramError

    from biomd.frontends.telegram_bot import api_urls, reachable

    base_url, base_file_url = api_urls(s.telegram.api_url)
    try:
        with reachable():
            async with Bot(
                s.telegram.token.get_secret_value(), base_url=base_url, base_file_url=base_file_url
            ) as bot:
                me = await bot.get_me()
    except PlatformUnavailable as exc:
        return [unreachable("telegram", exc)]
    except TelegramError as exc:
        return [
            Check(
                FAIL,
                "telegram",
                f"the token did not work: {exc}",
                "a fresh token from @BotFather (/token) in BIOMD_TELEGRAM_TOKEN",
            )
        ]
    out = [Check(OK, "telegram", f"token works: @{me.username}")]
    if not s.telegram.allowed_users:
        out.append(
            Check(
                FAIL,
                "telegram",
                "BIOMD_TELEGRAM_ALLOWED_USERS is empty: nobody is served",
                "`biomd setup` finds your id from one message",
            )
        )
    return out


async def check_discord(s: Settings) -> list[Check]:
    if not s.discord.token:
        return [Check(OK, "discord", "not configured")]
    import discord

    from biomd.frontends.discord_bot import reachable

    client = discord.Client(intents=discord.Intents.none())
    try:
        with reachable():
            await client.login(s.discord.token.get_secret_value())
        name = str(client.user)
    except PlatformUnavailable as exc:
        return [unreachable("discord", exc)]
    except (discord.HTTPException, discord.LoginFailure) as exc:
        return [
            Check(
                FAIL,
                "discord",
                f"the token did not work: {exc}",
                "Reset Token in the developer portal, put it in BIOMD_DISCORD_TOKEN",
            )
        ]
    finally:
        await client.close()
    out = [Check(OK, "discord", f"token works: {name}")]
    if not s.discord.allowed_users:
        out.append(
            Check(
                FAIL,
                "discord",
                "BIOMD_DISCORD_ALLOWED_USERS is empty: nobody is served",
                "`biomd setup` finds your id from one DM",
            )
        )
    return out


async def examine(settings: Settings, file: ConfigFile, network: bool = True) -> list[Check]:
    """Every check, in the order they are shown."""
    found = [
        *check_config_file(file),
        *check_models(settings),
        *check_data_dir(settings),
        *check_store(settings),
        *check_scheduler(settings),
    ]
    if network:
        for part in await asyncio.gather(
            check_llm(settings), check_telegram(settings), check_discord(settings)
        ):
            found += part
    return found


def render(findings: list[Check]) -> str:
    mark = {OK: "✓", WARN: "!", FAIL: "✗"}
    lines = []
    for f in findings:
        lines.append(f"{mark[f.status]} {f.topic:9} {f.detail}")
        if f.fix and f.status != OK:
            lines.append(f"  {'':9} → {f.fix}")
    bad = sum(f.status == FAIL for f in findings)
    warn = sum(f.status == WARN for f in findings)
    lines.append("")
    said = f"{counted(bad, 'problem')}, {counted(warn, 'warning')}."
    lines.append(said if bad or warn else "All good.")
    return os.linesep.join(lines)
