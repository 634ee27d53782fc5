"""Settings, read once from the config file in the platform's config folder (`BIOMD_NAME=value`
lines, `biomd config path` says where) and the environment, which overrides it. A `.env` in
the working folder is never read: the same data gives the same answers from every folder."""

from __future__ import annotations

import os
from dataclasses import dataclass, replace
from datetime import UTC, tzinfo
from pathlib import Path
from typing import Any, Literal, TypedDict
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pydantic import AliasChoices, Field, ValidationError
from pydantic_settings import BaseSettings, SettingsConfigDict

from biomd.endpoints import CLOUD, LOCAL, Endpoint, is_local_url
from biomd.errors import ConfigError

DEFAULT_EMBED_MODEL = "snowflake/snowflake-arctic-embed-s"
PREFIX = "BIOMD_"
CONFIG_FILE = "settings.env"
CONFIG_DIR_VARIABLE = "BIOMD_CONFIG_DIR"
"""Where the config file is, if not in the platform's config folder: read from the
environment only (the file can't say where it is itself)."""


@dataclass(frozen=True)
class ZipLimits:
    """What one upload may expand to, archives inside archives included: the guard against
    zip bombs (BIOMD_ZIP_MAX_*)."""

    total_bytes: int = 20 * 1024**3
    entries: int = 20_000
    depth: int = 3  # archives inside archives
    ratio: int = 200  # a member's size over its compressed size


SECRET_FIELDS = ("llm_api_key", "reader_api_key", "telegram_token", "discord_token")
"""The settings that hold a key or token: kept out of logs, messages and what a Codex turn's
tool server is given."""


class _CallLimits(TypedDict):
    call_timeout: float | None
    turn_timeout: float | None
    retries: int | None
    stream: bool | None


class Settings(BaseSettings):
    """Every knob biomd has. Built once in the entry point (`load`) and passed down.

    `Settings()` reads the config file (`config_file()`) and the environment, which wins;
    `Settings(_env_file=None)` the environment alone. Keys no field has are left for plugins
    (`biomd.plugins.settings_of`), which read the same file under their own names."""

    model_config = SettingsConfigDict(
        env_prefix=PREFIX, env_file=None, env_file_encoding="utf-8", extra="ignore"
    )

    def __init__(self, **values: Any) -> None:
        values.setdefault("_env_file", config_file())
        super().__init__(**values)

    data_dir: Path = Field(
        default_factory=lambda: default_data_dir(),
        description="Where everything is kept (default: the user's data folder, e.g. "
        "~/.local/share/biomd).",
    )
    embed_model: str = Field(default=DEFAULT_EMBED_MODEL, description="fastembed model name.")
    embed_model_path: Path | None = Field(
        default=None, description="Local folder holding the embedding model; nothing is downloaded."
    )
    embed_cache_dir: Path | None = Field(
        default=None,
        description="Where downloaded models are kept (default: <data_dir>/models).",
    )
    embed_batch_size: int = Field(default=32, ge=1, le=1024)
    embed_threads: int | None = Field(default=None, ge=1)
    embed_quantise: bool = Field(
        default=True,
        description="Embed with an int8 copy of the model, made once beside it (faster).",
    )

    zip_max_total_bytes: int = Field(default=ZipLimits.total_bytes, ge=1)
    zip_max_entries: int = Field(default=ZipLimits.entries, ge=1)
    zip_max_depth: int = Field(default=ZipLimits.depth, ge=0)
    zip_max_ratio: int = Field(default=ZipLimits.ratio, ge=1)

    read_max_chars: int = Field(default=8_000, ge=100)

    owner_names: str = Field(
        default="", description="Comma-separated names and handles the owner appears as."
    )
    timezone: str | None = Field(default=None, description="IANA zone; default: the system's.")
    chat_date_order: Literal["auto", "dmy", "mdy"] = Field(
        default="auto",
        description="How a chat export's dates read when they could be day first or month "
        "first (3/5/21): dmy, mdy, or auto (the order that keeps the messages in time order).",
    )
    language: str = Field(
        default="",
        description="The language bio.md and its questions are written in (ISO 639-1, e.g. "
        "de); empty: the language of the owner's own lines.",
    )
    languages: str = Field(
        default="",
        description="The languages of the owner's life, ISO 639-1 codes, comma-separated "
        "(e.g. de,es); keyword search also learns them from the sources.",
    )

    whisper_model: str = Field(default="base", description="faster-whisper model name or folder.")
    whisper_device: str = Field(default="auto")
    whisper_compute_type: str = Field(default="auto")
    whisper_language: str = Field(
        default="",
        description="The language voice notes are in (ISO 639-1, e.g. de); empty: each note "
        "is heard in the likeliest of BIOMD_LANGUAGES, or Whisper guesses.",
    )

    llm_backend: str = Field(
        default="openai",
        description="openai: any OpenAI-compatible endpoint; codex: the Codex CLI; or a "
        "backend a plugin adds (`biomd plugins` lists them).",
    )
    codex_bin: str = Field(default="codex", description="The Codex CLI (a name on PATH or a path).")
    codex_model: str | None = Field(default=None, description="Codex's model (default: its own).")
    codex_home: Path | None = Field(default=None, description="CODEX_HOME for the runs.")
    codex_config: list[str] = Field(
        default_factory=list, description="More `-c key=value` overrides for codex exec."
    )

    llm_base_url: str = Field(default="https://openrouter.ai/api/v1")
    llm_api_key: str | None = Field(default=None)
    vision_model: str | None = Field(default=None, description="Model that describes photos.")
    llm_model: str = Field(default="openai/gpt-4o-mini")
    llm_timeout: float | None = Field(
        default=None,
        gt=0,
        description=f"Seconds per model call (default {CLOUD.call_timeout:.0f}; "
        f"{LOCAL.call_timeout:.0f} local).",
    )
    llm_turn_timeout: float | None = Field(
        default=None,
        gt=0,
        description=f"Seconds per biographer turn (default {CLOUD.turn_timeout:.0f}; "
        f"{LOCAL.turn_timeout:.0f} local).",
    )
    llm_max_retries: int | None = Field(
        default=None,
        ge=0,
        le=20,
        description=f"Retries per call (default {CLOUD.retries}; {LOCAL.retries} local).",
    )
    llm_max_tokens: int = Field(default=1024, ge=64, description="The longest reply, in tokens.")
    llm_stream: bool | None = Field(
        default=None, description="Stream replies (default: for a local server)."
    )
    llm_context_tokens: int | None = Field(
        default=None, ge=1024, description="The model's context window (default: asked of it)."
    )
    llm_price_prompt_per_mtok: float = Field(default=0.0, ge=0)
    llm_price_completion_per_mtok: float = Field(default=0.0, ge=0)
    daily_spend_limit_usd: float | None = Field(default=5.0, ge=0)

    web: bool = Field(default=True, description="Serve the local web view.")
    web_host: str = Field(default="127.0.0.1", description="Where the web view listens.")
    web_port: int = Field(default=8765, ge=0, le=65535, description="0: any free port.")
    web_max_upload_mb: int = Field(default=2048, ge=1, description="The largest upload.")

    telegram_token: str | None = Field(default=None)
    telegram_allowed_users: str = Field(default="", description="Comma-separated user ids.")
    telegram_api_url: str = Field(default="https://api.telegram.org")
    telegram_local_mode: bool | None = Field(
        default=None, description="Bot API server in --local mode (default: when not the cloud)."
    )
    discord_token: str | None = Field(default=None)
    discord_allowed_users: str = Field(default="", description="Comma-separated user ids.")
    questions_cron: str = Field(default="0 19 * * *", description="When to push questions.")
    questions_per_push: int = Field(default=1, ge=0)
    questions_cooldown_days: float = Field(default=3.0, ge=0)

    steps_chat: int = Field(default=25, ge=1)
    chat_evidence_chars: int = Field(
        default=6000,
        ge=0,
        description="Characters of passages and notes a chat turn starts from (0: none); "
        "at most a quarter of the model's window.",
    )
    chat_tools: Literal["auto", "always", "never"] = Field(
        default="auto",
        description="Tools in a chat turn that starts from passages biomd found: 'auto' "
        "offers them to a cloud model and not to a local one (a 1.5B model answered 6/10 of the "
        "sample life's questions without them, 4/10 with them); 'always', 'never'.",
    )
    steps_analysis: int = Field(default=40, ge=1)
    steps_reading: int = Field(
        default=60,
        ge=1,
        validation_alias=AliasChoices(
            "steps_reading",
            "BIOMD_STEPS_READING",
            "BIOMD_STEPS_INGEST",  # its name until 0.2
        ),
    )
    chat_tail: int = Field(default=6, ge=0, description="Earlier messages each chat turn sees.")
    bio_max_chars: int = Field(default=30_000, ge=2_000, description="bio.md size budget.")
    reading_part_chars: int = Field(
        default=60_000,
        ge=1000,
        description="Characters of a long source one reading turn covers.",
        validation_alias=AliasChoices(
            "reading_part_chars", "BIOMD_READING_PART_CHARS", "BIOMD_INGEST_PART_CHARS"
        ),
    )
    read_attempts: int = Field(
        default=3, ge=1, description="Turns that may fail to read a source before it is set aside."
    )
    reader_model: str | None = Field(
        default=None, description="The model that takes notes of new sources (default: LLM_MODEL)."
    )
    reader_base_url: str | None = Field(
        default=None, description="The reader's endpoint, if not LLM_BASE_URL."
    )
    reader_api_key: str | None = Field(default=None, description="The reader endpoint's key.")
    reader_concurrency: int = Field(
        default=4, ge=1, le=64, description="Reader calls at once (a local server takes one)."
    )
    reader_max_tokens: int = Field(default=4096, ge=256, description="The reader's longest reply.")
    reader_context_tokens: int | None = Field(
        default=None, ge=1024, description="The reader model's context window (default: asked)."
    )
    reader_price_prompt_per_mtok: float | None = Field(default=None, ge=0)
    reader_price_completion_per_mtok: float | None = Field(default=None, ge=0)
    reading_placement: Literal["model", "rules"] = Field(
        default="rules",
        description="rules: notes go into bio.md by kind first, then the biographer tidies; "
        "model: the biographer places them (its notes go in by rules if it places none).",
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
    read_confirm_usd: float = Field(
        default=0.5, ge=0, description="Ask before reading a source estimated above this."
    )
    read_confirm_tokens: int = Field(
        default=200_000, ge=0, description="... or this many tokens, where they are free."
    )
    reading_notes_chars: int = Field(
        default=24_000, ge=1_000, description="Characters of notes one reading turn takes in."
    )

    mirror_silence_hours: float = Field(
        default=6.0,
        gt=0,
        description="The mirror: hours of silence after which a message starts a new conversation.",
    )
    mirror_design: Literal["judge", "whole"] = Field(
        default="judge",
        description="The mirror's patterns: judge (candidates by rules, each judged by the "
        "model in a small call) or whole (one call finds them in all the notes).",
    )
    mirror_cron: str = Field(
        default="30 4 * * *", description="When the mirror looks for new patterns ('' never)."
    )

    def secrets(self) -> list[str | None]:
        """Values that must never appear in logs or messages."""
        return [getattr(self, name) for name in SECRET_FIELDS]

    @property
    def telegram_users(self) -> frozenset[int]:
        return _ids(self.telegram_allowed_users, "BIOMD_TELEGRAM_ALLOWED_USERS")

    @property
    def discord_users(self) -> frozenset[int]:
        return _ids(self.discord_allowed_users, "BIOMD_DISCORD_ALLOWED_USERS")

    @property
    def owner_list(self) -> tuple[str, ...]:
        return tuple(n.strip() for n in self.owner_names.split(",") if n.strip())

    @property
    def language_list(self) -> tuple[str, ...]:
        return tuple(x.strip().lower() for x in self.languages.split(",") if x.strip())

    @property
    def zone(self) -> tzinfo:
        """The time zone epoch timestamps are shown in."""
        if self.timezone:
            try:
                return ZoneInfo(self.timezone)
            except (ZoneInfoNotFoundError, ValueError) as exc:
                raise ConfigError(
                    f"BIOMD_TIMEZONE is {self.timezone!r}, which is not a time zone name "
                    "such as Europe/Dublin."
                ) from exc
        from tzlocal import get_localzone

        try:
            return get_localzone()
        except Exception:  # no zone configured on this machine at all
            return UTC

    @property
    def chat_tools_with_evidence(self) -> bool:
        """Whether a chat turn that starts from passages is offered the tools too."""
        if self.chat_tools == "auto":
            return not self.llm_is_local
        return self.chat_tools == "always"

    @property
    def llm_is_local(self) -> bool:
        """The biographer's model runs on this machine or network."""
        return is_local_url(self.llm_base_url)

    @property
    def reader_is_local(self) -> bool:
        """The reader's model runs on this machine or network."""
        return is_local_url(self.reader_base_url or self.llm_base_url)

    @property
    def turn_timeout(self) -> float:
        """Seconds one biographer turn may take."""
        return self.endpoint().turn_timeout

    def endpoint(self) -> Endpoint:
        """The biographer's endpoint (BIOMD_LLM_*)."""
        return Endpoint.at(
            self.llm_base_url,
            self.llm_model,
            api_key=self.llm_api_key,
            context_tokens=self.llm_context_tokens,
            price_prompt_per_mtok=self.llm_price_prompt_per_mtok,
            price_completion_per_mtok=self.llm_price_completion_per_mtok,
            max_tokens=self.llm_max_tokens,
            **self._call_limits(),
        )

    def reader_endpoint(self) -> Endpoint:
        """The reader's endpoint: BIOMD_READER_MODEL at BIOMD_READER_BASE_URL (each the
        biographer's where unset), with the reader's key where it has an endpoint of its own.
        The biographer's window and prices carry over only to the same model on the same
        endpoint; its timeouts, retries and streaming where they are set."""
        own_endpoint = bool(self.reader_base_url) and self.reader_base_url != self.llm_base_url
        same_model = not self.reader_model or self.reader_model == self.llm_model
        same = same_model and not own_endpoint
        return Endpoint.at(
            self.reader_base_url or self.llm_base_url,
            self.reader_model or self.llm_model,
            api_key=self.reader_api_key if own_endpoint else self.llm_api_key,
            context_tokens=self.reader_context_tokens
            or (self.llm_context_tokens if same else None),
            price_prompt_per_mtok=_first(
                self.reader_price_prompt_per_mtok, self.llm_price_prompt_per_mtok if same else 0.0
            ),
            price_completion_per_mtok=_first(
                self.reader_price_completion_per_mtok,
                self.llm_price_completion_per_mtok if same else 0.0,
            ),
            max_tokens=self.reader_max_tokens,
            **self._call_limits(),
        )

    def vision_endpoint(self) -> Endpoint | None:
        """The biographer's endpoint with BIOMD_VISION_MODEL, which describes photos; None
        without one."""
        if not self.vision_model:
            return None
        return replace(self.endpoint(), model=self.vision_model)

    def _call_limits(self) -> _CallLimits:
        """BIOMD_LLM_TIMEOUT, _TURN_TIMEOUT, _MAX_RETRIES and _STREAM as set (None: by where
        the model runs), for every endpoint."""
        return {
            "call_timeout": self.llm_timeout,
            "turn_timeout": self.llm_turn_timeout,
            "retries": self.llm_max_retries,
            "stream": self.llm_stream,
        }

    @property
    def zip_limits(self) -> ZipLimits:
        """What one upload may expand to (BIOMD_ZIP_MAX_*)."""
        return ZipLimits(
            self.zip_max_total_bytes, self.zip_max_entries, self.zip_max_depth, self.zip_max_ratio
        )

    @property
    def db_path(self) -> Path:
        return self.data_dir / "biomd.sqlite3"

    @property
    def models_dir(self) -> Path:
        """Where downloaded models are kept: BIOMD_EMBED_CACHE_DIR, else `models` in the data
        folder where an earlier biomd put them there, else the user's cache folder (shared
        with the sample's data folder, so each model downloads once)."""
        if self.embed_cache_dir:
            return self.embed_cache_dir
        kept = self.data_dir / "models"
        return kept if kept.is_dir() else default_cache_dir() / "models"


def load(**overrides: Any) -> Settings:
    """The settings every process runs with (the config file, then the environment, then
    `overrides`); a value that isn't valid is a ConfigError naming the setting and where it
    was set, not a traceback."""
    try:
        return Settings(**overrides)
    except ValidationError as exc:
        raise ConfigError(invalid(exc, config_file())) from None


def invalid(
    exc: ValidationError,
    file: Path | None,
    prefix: str = PREFIX,
    from_environment: bool = True,
    lead: str = "Some settings are not valid:",
) -> str:
    """What is wrong with the settings, one line a setting, each named as it is written and
    said where it was set: the environment (where `from_environment` and it is set there), or
    `file` (None: nowhere yet, a value offered)."""
    lines = [lead]
    for error in exc.errors():
        field = str(error["loc"][0]).upper() if error["loc"] else ""
        name = field if field.startswith(prefix) else prefix + field
        where = "the environment" if from_environment and name in environment() else file
        said = f" (in {where})" if where else ""
        lines.append(f"{name}{said}: {error['msg']}, not {error.get('input')!r}.")
    lines.append("Fix it with `biomd config set NAME VALUE` (or `biomd config unset NAME`).")
    return "\n".join(lines[:-1] if file is None else lines)


def environment() -> dict[str, str]:
    """The BIOMD_ variables of the environment, by their upper-case names (as the settings
    read them: any case). The one place outside pydantic-settings that reads the environment."""
    return {k.upper(): v for k, v in os.environ.items() if k.upper().startswith(PREFIX)}


def config_dir() -> Path:
    """The folder of biomd's config file: BIOMD_CONFIG_DIR, else the platform's config folder
    (~/.config/biomd on Linux, ~/Library/Application Support/biomd on macOS,
    %LOCALAPPDATA%\\biomd on Windows)."""
    if chosen := os.environ.get(CONFIG_DIR_VARIABLE):
        return Path(chosen).expanduser()
    from platformdirs import user_config_path

    return user_config_path("biomd", appauthor=False)


def config_file() -> Path:
    """The one file biomd's settings are kept in (`biomd config path`)."""
    return config_dir() / CONFIG_FILE


def default_data_dir() -> Path:
    """The user's data folder by the platform's convention (~/.local/share/biomd on Linux,
    ~/Library/Application Support/biomd on macOS, %LOCALAPPDATA%\\biomd on Windows)."""
    from platformdirs import user_data_path

    return user_data_path("biomd", appauthor=False)


def default_cache_dir() -> Path:
    """The user's cache folder for biomd (~/.cache/biomd on Linux)."""
    from platformdirs import user_cache_path

    return user_cache_path("biomd", appauthor=False)


def _ids(value: str, name: str) -> frozenset[int]:
    try:
        return frozenset(int(x) for x in value.replace(" ", "").split(",") if x)
    except ValueError:
        raise ConfigError(f"{name} must be numeric user ids separated by commas.") from None


def _first(value: float | None, default: float) -> float:
    return default if value is None else value
