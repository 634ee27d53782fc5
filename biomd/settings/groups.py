"""The settings in groups, one model each: who the owner is, the models (llm, reader, vision,
embed, whisper, codex), reading, chat, the biographer, costs, the web view, the bots, the
questions, the mirror and the zip limits. A service is given its own group (docs/
architecture.md, "How the settings reach a service"). Every field is described; each is set
as BIOMD_<GROUP>_<FIELD> unless `names.NAMES` says otherwise."""

from __future__ import annotations

import json
from datetime import UTC, tzinfo
from pathlib import Path
from typing import Any, Literal
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pydantic import BaseModel, ConfigDict, Field, SecretStr, field_validator

from biomd.endpoints import CLOUD, LOCAL

DEFAULT_EMBED_MODEL = "snowflake/snowflake-arctic-embed-s"


class Group(BaseModel):
    """A group of settings: its fields only, validated on assignment."""

    model_config = ConfigDict(extra="forbid", validate_assignment=True)


def comma_list(value: Any) -> Any:
    """`a, b,c` as ('a', 'b', 'c'); a list or tuple as it is."""
    if isinstance(value, str):
        return tuple(x.strip() for x in value.split(",") if x.strip())
    return value


def user_ids(value: Any) -> Any:
    """`123, 456` as frozenset({123, 456}), or a clear error."""
    if isinstance(value, str):
        try:
            return frozenset(int(x) for x in value.replace(" ", "").split(",") if x)
        except ValueError:
            raise ValueError("must be numeric user ids separated by commas") from None
    return value


class OwnerSettings(Group):
    """Who the owner is: the names they appear as, where they live in time, their languages."""

    names: tuple[str, ...] = Field(
        default=(), description="Comma-separated names and handles the owner appears as."
    )
    timezone: str | None = Field(default=None, description="IANA zone; default: the system's.")
    language: str = Field(
        default="",
        description="The language bio.md and its questions are written in (ISO 639-1, e.g. "
        "de); empty: the language of the owner's own lines.",
    )
    languages: tuple[str, ...] = Field(
        default=(),
        description="The languages of the owner's life, ISO 639-1 codes, comma-separated "
        "(e.g. de,es); keyword search also learns them from the sources.",
    )
    chat_date_order: Literal["auto", "dmy", "mdy"] = Field(
        default="auto",
        description="How a chat export's dates read when they could be day first or month "
        "first (3/5/21): dmy, mdy, or auto (the order that keeps the messages in time order).",
    )

    _names = field_validator("names", mode="before")(comma_list)

    @field_validator("languages", mode="before")
    @classmethod
    def _languages(cls, value: Any) -> Any:
        listed = comma_list(value)
        return tuple(x.lower() for x in listed) if isinstance(listed, tuple) else listed

    @field_validator("timezone")
    @classmethod
    def _zone(cls, value: str | None) -> str | None:
        if value:
            try:
                ZoneInfo(value)
            except (ZoneInfoNotFoundError, ValueError):
                raise ValueError("not a time zone name such as Europe/Dublin") from None
        return value or None

    @property
    def zone(self) -> tzinfo:
        """The time zone epoch timestamps are shown in (BIOMD_TIMEZONE, checked when the
        settings load), else the system's."""
        if self.timezone:
            return ZoneInfo(self.timezone)
        from tzlocal import get_localzone

        try:
            return get_localzone()
        except Exception:  # no zone configured on this machine at all
            return UTC


class LlmSettings(Group):
    """The biographer's model: an OpenAI-compatible endpoint, or another backend."""

    backend: str = Field(
        default="openai",
        description="openai: any OpenAI-compatible endpoint; codex: the Codex CLI; or a "
        "backend a plugin adds (`biomd plugins` lists them).",
    )
    base_url: str = Field(
        default="https://openrouter.ai/api/v1",
        description="The OpenAI-compatible endpoint (OpenRouter, or a local llama.cpp or "
        "Ollama server such as http://127.0.0.1:8080/v1).",
    )
    api_key: SecretStr | None = Field(
        default=None, description="The endpoint's key (a local server needs none)."
    )
    model: str = Field(default="openai/gpt-4o-mini", description="The biographer's model.")
    timeout: float | None = Field(
        default=None,
        gt=0,
        description=f"Seconds per model call (default {CLOUD.call_timeout:.0f}; "
        f"{LOCAL.call_timeout:.0f} local).",
    )
    turn_timeout: float | None = Field(
        default=None,
        gt=0,
        description=f"Seconds per biographer turn (default {CLOUD.turn_timeout:.0f}; "
        f"{LOCAL.turn_timeout:.0f} local).",
    )
    max_retries: int | None = Field(
        default=None,
        ge=0,
        le=20,
        description=f"Retries per call (default {CLOUD.retries}; {LOCAL.retries} local).",
    )
    max_tokens: int = Field(default=1024, ge=64, description="The longest reply, in tokens.")
    stream: bool | None = Field(
        default=None, description="Stream replies (default: for a local server)."
    )
    context_tokens: int | None = Field(
        default=None, ge=1024, description="The model's context window (default: asked of it)."
    )
    price_prompt_per_mtok: float = Field(
        default=0.0,
        ge=0,
        description="USD per million prompt tokens, where the endpoint reports no cost.",
    )
    price_completion_per_mtok: float = Field(
        default=0.0,
        ge=0,
        description="USD per million completion tokens, where the endpoint reports no cost.",
    )


class ReaderSettings(Group):
    """The reader's model, which takes notes of new sources; each unset value is the
    biographer's (`Settings.reader_endpoint`)."""

    model: str | None = Field(
        default=None, description="The model that takes notes of new sources (default: LLM_MODEL)."
    )
    base_url: str | None = Field(
        default=None, description="The reader's endpoint, if not LLM_BASE_URL."
    )
    api_key: SecretStr | None = Field(default=None, description="The reader endpoint's key.")
    concurrency: int = Field(
        default=4, ge=1, le=64, description="Reader calls at once (a local server takes one)."
    )
    max_tokens: int = Field(default=4096, ge=256, description="The reader's longest reply.")
    context_tokens: int | None = Field(
        default=None, ge=1024, description="The reader model's context window (default: asked)."
    )
    price_prompt_per_mtok: float | None = Field(
        default=None,
        ge=0,
        description="USD per million prompt tokens (default: the biographer's, for its model).",
    )
    price_completion_per_mtok: float | None = Field(
        default=None,
        ge=0,
        description="USD per million completion tokens (default: the biographer's, for its model).",
    )


class VisionSettings(Group):
    """The model that describes photos, at the biographer's endpoint."""

    model: str | None = Field(default=None, description="Model that describes photos.")


class CodexSettings(Group):
    """The Codex CLI, when BIOMD_LLM_BACKEND=codex (a ChatGPT subscription)."""

    bin: str = Field(default="codex", description="The Codex CLI (a name on PATH or a path).")
    model: str | None = Field(default=None, description="Codex's model (default: its own).")
    home: Path | None = Field(default=None, description="CODEX_HOME for the runs.")
    config: list[str] = Field(
        default_factory=list,
        description='More `-c key=value` overrides for codex exec, as a JSON list: ["a=1"].',
    )

    @field_validator("config", mode="before")
    @classmethod
    def _json_list(cls, value: Any) -> Any:
        if isinstance(value, str):
            try:
                return json.loads(value) if value.strip() else []
            except ValueError:
                raise ValueError('must be a JSON list such as ["key=value"]') from None
        return value


class EmbedSettings(Group):
    """The embedding model (fastembed) that gives each chunk its vector."""

    model: str = Field(default=DEFAULT_EMBED_MODEL, description="fastembed model name.")
    model_path: Path | None = Field(
        default=None, description="Local folder holding the embedding model; nothing is downloaded."
    )
    cache_dir: Path | None = Field(
        default=None,
        description="Where downloaded models are kept (default: the user's cache folder).",
    )
    batch_size: int = Field(default=32, ge=1, le=1024, description="Chunks embedded at once.")
    threads: int | None = Field(
        default=None, ge=1, description="Threads the model runs on (default: every core)."
    )
    quantise: bool = Field(
        default=True,
        description="Embed with an int8 copy of the model, made once beside it (faster).",
    )


class WhisperSettings(Group):
    """Speech recognition (faster-whisper) for voice notes and videos."""

    model: str = Field(default="base", description="faster-whisper model name or folder.")
    device: str = Field(default="auto", description="cpu, cuda or auto.")
    compute_type: str = Field(
        default="auto", description="CTranslate2's compute type (int8, float16…; auto)."
    )
    language: str = Field(
        default="",
        description="The language voice notes are in (ISO 639-1, e.g. de); empty: each note "
        "is heard in the likeliest of BIOMD_LANGUAGES, or Whisper guesses.",
    )


class ZipLimits(Group):
    """What one upload may expand to, archives inside archives included: the guard against
    zip bombs (BIOMD_ZIP_MAX_*)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    total_bytes: int = Field(
        default=20 * 1024**3, ge=1, description="Bytes one upload may expand to, in all."
    )
    entries: int = Field(default=20_000, ge=1, description="Files one upload may hold, in all.")
    depth: int = Field(default=3, ge=0, description="Archives inside archives, at most.")
    ratio: int = Field(
        default=200, ge=1, description="A member's size over its compressed size, at most."
    )


class ReadingSettings(Group):
    """How the biographer reads new sources: parts, notes, turns, and when it asks first."""

    part_chars: int = Field(
        default=60_000, ge=1000, description="Characters of a long source one reading turn covers."
    )
    notes_chars: int = Field(
        default=24_000, ge=1_000, description="Characters of notes one reading turn takes in."
    )
    placement: Literal["model", "rules"] = Field(
        default="rules",
        description="rules: notes go into bio.md by kind first, then the biographer tidies; "
        "model: the biographer places them (its notes go in by rules if it places none).",
    )
    steps: int = Field(default=60, ge=1, description="Tool calls one reading turn may make.")
    attempts: int = Field(
        default=3, ge=1, description="Turns that may fail to read a source before it is set aside."
    )
    confirm_usd: float = Field(
        default=0.5, ge=0, description="Ask before reading a source estimated above this."
    )
    confirm_tokens: int = Field(
        default=200_000, ge=0, description="... or this many tokens, where they are free."
    )


class ChatSettings(Group):
    """A conversation with the biographer."""

    steps: int = Field(default=25, ge=1, description="Tool calls one chat turn may make.")
    evidence_chars: int = Field(
        default=6000,
        ge=0,
        description="Characters of passages and notes a chat turn starts from (0: none); "
        "at most a quarter of the model's window.",
    )
    tools: Literal["auto", "always", "never"] = Field(
        default="auto",
        description="Tools in a chat turn that starts from passages biomd found: 'auto' "
        "offers them to a cloud model and not to a local one (a 1.5B model answered 6/10 of the "
        "sample life's questions without them, 4/10 with them); 'always', 'never'.",
    )
    tail: int = Field(default=6, ge=0, description="Earlier messages each chat turn sees.")


class BiographerSettings(Group):
    """The biographer's own limits: bio.md's size, its analysis turns, what a tool reads."""

    bio_max_chars: int = Field(default=30_000, ge=2_000, description="bio.md size budget.")
    analysis_steps: int = Field(
        default=40, ge=1, description="Tool calls one analysis turn (biomd analyse) may make."
    )
    read_max_chars: int = Field(
        default=8_000, ge=100, description="Characters one read_source tool call returns."
    )


class CostSettings(Group):
    """What the models may cost, and how the cost preview counts a provider's prompt cache."""

    daily_limit_usd: float | None = Field(
        default=5.0, ge=0, description="Model spend a day, in USD, after which turns wait."
    )
    prompt_cache: Literal["auto", "openai", "anthropic", "none"] = Field(
        default="auto",
        description="The provider's prompt-cache pricing the cost preview shows beside list "
        "prices: openai (a cached prompt token at half price), anthropic (a tenth, and 1.25x "
        "to write it); auto: anthropic for Claude models, none on a local server, else openai.",
    )
    cache_read_price_share: float | None = Field(
        default=None,
        ge=0,
        le=1,
        description="Override: a cached prompt token's share of the price.",
    )
    cache_write_price_share: float | None = Field(
        default=None, ge=0, le=5, description="Override: writing a token to the cache, as a share."
    )


class WebSettings(Group):
    """The local web view."""

    enabled: bool = Field(default=True, description="Serve the local web view.")
    host: str = Field(default="127.0.0.1", description="Where the web view listens.")
    port: int = Field(default=8765, ge=0, le=65535, description="Its port; 0: any free port.")
    max_upload_mb: int = Field(default=2048, ge=1, description="The largest upload.")


class TelegramSettings(Group):
    """The private Telegram bot."""

    token: SecretStr | None = Field(default=None, description="The bot's token (@BotFather).")
    allowed_users: frozenset[int] = Field(
        default=frozenset(), description="Comma-separated user ids the bot answers."
    )
    api_url: str = Field(
        default="https://api.telegram.org",
        description="The Bot API server (a local one for files over 20 MB).",
    )
    local_mode: bool | None = Field(
        default=None, description="Bot API server in --local mode (default: when not the cloud)."
    )

    _users = field_validator("allowed_users", mode="before")(user_ids)


class DiscordSettings(Group):
    """The private Discord bot."""

    token: SecretStr | None = Field(default=None, description="The bot's token.")
    allowed_users: frozenset[int] = Field(
        default=frozenset(), description="Comma-separated user ids the bot answers."
    )

    _users = field_validator("allowed_users", mode="before")(user_ids)


class QuestionsSettings(Group):
    """The open questions the bots push."""

    cron: str = Field(default="0 19 * * *", description="When to push questions (cron).")
    per_push: int = Field(default=1, ge=0, description="Questions in each push.")
    cooldown_days: float = Field(
        default=3.0, ge=0, description="Days before a question is asked again."
    )


class MirrorSettings(Group):
    """The mirror: how conversations are cut, and how and when patterns are looked for."""

    silence_hours: float = Field(
        default=6.0,
        gt=0,
        description="The mirror: hours of silence after which a message starts a new conversation.",
    )
    cron: str = Field(
        default="30 4 * * *", description="When the mirror looks for new patterns ('' never)."
    )


class AssistantsSettings(Group):
    """The owner's other assistants (MCP clients, Hermes Agent, OpenClaw)."""

    recall_chars: int = Field(
        default=4000,
        ge=500,
        le=8000,
        description="What recall shows an assistant before each reply, at most (characters).",
    )
    learn: bool = Field(
        default=True,
        description="Keep the sessions an assistant hands over (Hermes Agent's) as sources.",
    )
