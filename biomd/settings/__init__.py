"""Settings in groups (`groups.py`), read once from the config file (`biomd config path`) and
the environment over it, each by the name it is written as (`names.py`); never from a `.env` in
the working folder: the same data gives the same answers from every folder."""

from __future__ import annotations

import os
from dataclasses import replace
from datetime import tzinfo
from pathlib import Path
from typing import Any, TypedDict

from pydantic import BaseModel, Field, SecretStr, ValidationError, model_validator
from pydantic.fields import FieldInfo
from pydantic_settings import BaseSettings, PydanticBaseSettingsSource, SettingsConfigDict
from pydantic_settings.sources import DotEnvSettingsSource, EnvSettingsSource

from biomd.endpoints import Endpoint, Endpoints, is_local_url
from biomd.errors import ConfigError
from biomd.settings import names
from biomd.settings.groups import (
    DEFAULT_EMBED_MODEL,
    AssistantsSettings,
    BiographerSettings,
    ChatSettings,
    CodexSettings,
    CostSettings,
    DiscordSettings,
    EmbedSettings,
    LlmSettings,
    MirrorSettings,
    OwnerSettings,
    QuestionsSettings,
    ReaderSettings,
    ReadingSettings,
    TelegramSettings,
    VisionSettings,
    WebSettings,
    WhisperSettings,
    ZipLimits,
)
from biomd.settings.names import PREFIX

__all__ = [
    "CONFIG_DIR_VARIABLE",
    "CONFIG_FILE",
    "DEFAULT_EMBED_MODEL",
    "PREFIX",
    "SECRETS",
    "ByName",
    "Settings",
    "ZipLimits",
    "config_dir",
    "config_file",
    "default_cache_dir",
    "default_data_dir",
    "environment",
    "invalid",
    "load",
    "revealed",
]

CONFIG_FILE = "settings.env"
CONFIG_DIR_VARIABLE = "BIOMD_CONFIG_DIR"
"""Where the config file is, if not in the platform's config folder: read from the
environment only (the file can't say where it is itself)."""

SECRETS: tuple[names.Path_, ...] = (
    ("llm", "api_key"),
    ("reader", "api_key"),
    ("telegram", "token"),
    ("discord", "token"),
)
"""The settings that hold a key or token: kept out of logs, messages and what a Codex turn's
tool server is given."""


class _CallLimits(TypedDict):
    call_timeout: float | None
    turn_timeout: float | None
    retries: int | None
    stream: bool | None


class ByName(PydanticBaseSettingsSource):
    """The BIOMD_ variables of the environment or the config file, each put where its name
    says (BIOMD_LLM_MODEL: llm.model)."""

    def __init__(self, settings_cls: type[BaseSettings], read: PydanticBaseSettingsSource):
        super().__init__(settings_cls)
        assert isinstance(read, EnvSettingsSource | DotEnvSettingsSource)
        self.read = read

    def get_field_value(self, field: FieldInfo, field_name: str) -> tuple[Any, str, bool]:
        return None, field_name, False  # __call__ reads them all at once

    def __call__(self) -> dict[str, Any]:
        found = {k: v for k, v in self.read.env_vars.items() if k.upper().startswith(PREFIX)}
        return names.nest(self.settings_cls, found)


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
    owner: OwnerSettings = Field(default_factory=OwnerSettings)
    llm: LlmSettings = Field(default_factory=LlmSettings)
    reader: ReaderSettings = Field(default_factory=ReaderSettings)
    vision: VisionSettings = Field(default_factory=VisionSettings)
    codex: CodexSettings = Field(default_factory=CodexSettings)
    embed: EmbedSettings = Field(default_factory=EmbedSettings)
    whisper: WhisperSettings = Field(default_factory=WhisperSettings)
    zip: ZipLimits = Field(default_factory=ZipLimits)
    reading: ReadingSettings = Field(default_factory=ReadingSettings)
    chat: ChatSettings = Field(default_factory=ChatSettings)
    biographer: BiographerSettings = Field(default_factory=BiographerSettings)
    costs: CostSettings = Field(default_factory=CostSettings)
    web: WebSettings = Field(default_factory=WebSettings)
    telegram: TelegramSettings = Field(default_factory=TelegramSettings)
    discord: DiscordSettings = Field(default_factory=DiscordSettings)
    questions: QuestionsSettings = Field(default_factory=QuestionsSettings)
    mirror: MirrorSettings = Field(default_factory=MirrorSettings)
    assistants: AssistantsSettings = Field(default_factory=AssistantsSettings)

    @model_validator(mode="before")
    @classmethod
    def _by_name(cls, data: Any) -> Any:
        """Values given by name (llm_model=..., BIOMD_LLM_MODEL=...) into their groups, over
        what the groups were given."""
        if not isinstance(data, dict):
            return data
        fields = cls.model_fields
        grouped = {k: v for k, v in data.items() if k in fields}
        for key, value in names.nest(
            cls, {k: v for k, v in data.items() if k not in fields}
        ).items():
            if isinstance(value, dict):
                group = grouped.get(key)
                if isinstance(group, BaseModel):
                    group = group.model_dump(exclude_unset=True)
                grouped[key] = {**(group or {}), **value}
            else:
                grouped[key] = value
        return grouped

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        """The keyword arguments, then the environment, then the config file, each read by
        the settings' names (BIOMD_LLM_MODEL) into their groups."""
        return (
            init_settings,
            ByName(settings_cls, env_settings),
            ByName(settings_cls, dotenv_settings),
        )

    def but(self, **values: Any) -> Settings:
        """These settings with `values` (by name: llm_model=..., or a group) changed."""
        return type(self).model_validate({**self.model_dump(exclude_unset=True), **values})

    def without_secrets(self) -> dict[str, Any]:
        """The settings as JSON values with no key or token (a Codex turn's tool server)."""
        hidden: dict[str, set[str]] = {}
        for group, field in SECRETS:
            hidden.setdefault(group, set()).add(field)
        return self.model_dump(mode="json", exclude=hidden)

    def secrets(self) -> list[str]:
        """Values that must never appear in logs or messages."""
        found = (getattr(getattr(self, group), field) for group, field in SECRETS)
        return [s.get_secret_value() for s in found if isinstance(s, SecretStr)]

    @property
    def zone(self) -> tzinfo:
        """The owner's time zone (`OwnerSettings.zone`)."""
        return self.owner.zone

    @property
    def chat_tools_with_evidence(self) -> bool:
        """Whether a chat turn that starts from passages is offered the tools too."""
        if self.chat.tools == "auto":
            return not self.llm_is_local
        return self.chat.tools == "always"

    @property
    def llm_is_local(self) -> bool:
        """The biographer's model runs on this machine or network."""
        return is_local_url(self.llm.base_url)

    @property
    def reader_is_local(self) -> bool:
        """The reader's model runs on this machine or network."""
        return is_local_url(self.reader.base_url or self.llm.base_url)

    @property
    def turn_timeout(self) -> float:
        """Seconds one biographer turn may take."""
        return self.endpoint().turn_timeout

    def endpoint(self) -> Endpoint:
        """The biographer's endpoint (BIOMD_LLM_*)."""
        llm = self.llm
        return Endpoint.at(
            llm.base_url,
            llm.model,
            api_key=revealed(llm.api_key),
            context_tokens=llm.context_tokens,
            price_prompt_per_mtok=llm.price_prompt_per_mtok,
            price_completion_per_mtok=llm.price_completion_per_mtok,
            max_tokens=llm.max_tokens,
            **self._call_limits(),
        )

    def reader_endpoint(self) -> Endpoint:
        """The reader's endpoint: BIOMD_READER_MODEL at BIOMD_READER_BASE_URL (each the
        biographer's where unset), with the reader's key where it has an endpoint of its own.
        The biographer's window and prices carry over only to the same model on the same
        endpoint; its timeouts, retries and streaming where they are set."""
        llm, reader = self.llm, self.reader
        own_endpoint = bool(reader.base_url) and reader.base_url != llm.base_url
        same_model = not reader.model or reader.model == llm.model
        same = same_model and not own_endpoint
        return Endpoint.at(
            reader.base_url or llm.base_url,
            reader.model or llm.model,
            api_key=revealed(reader.api_key if own_endpoint else llm.api_key),
            context_tokens=reader.context_tokens or (llm.context_tokens if same else None),
            price_prompt_per_mtok=_first(
                reader.price_prompt_per_mtok, llm.price_prompt_per_mtok if same else 0.0
            ),
            price_completion_per_mtok=_first(
                reader.price_completion_per_mtok, llm.price_completion_per_mtok if same else 0.0
            ),
            max_tokens=reader.max_tokens,
            **self._call_limits(),
        )

    def vision_endpoint(self) -> Endpoint | None:
        """The biographer's endpoint with BIOMD_VISION_MODEL, which describes photos; None
        without one."""
        if not self.vision.model:
            return None
        return replace(self.endpoint(), model=self.vision.model)

    def endpoints(self) -> Endpoints:
        """Every endpoint a backend calls, with the reader's concurrency."""
        return Endpoints(
            biographer=self.endpoint(),
            reader=self.reader_endpoint(),
            vision=self.vision_endpoint(),
            reader_apart=bool(self.reader.base_url),
            concurrency=self.reader.concurrency,
            concurrency_chosen="concurrency" in self.reader.model_fields_set,
            max_tokens=self.llm.max_tokens,
        )

    def _call_limits(self) -> _CallLimits:
        """BIOMD_LLM_TIMEOUT, _TURN_TIMEOUT, _MAX_RETRIES and _STREAM as set (None: by where
        the model runs), for every endpoint."""
        return {
            "call_timeout": self.llm.timeout,
            "turn_timeout": self.llm.turn_timeout,
            "retries": self.llm.max_retries,
            "stream": self.llm.stream,
        }

    @property
    def db_path(self) -> Path:
        return self.data_dir / "biomd.sqlite3"

    @property
    def models_dir(self) -> Path:
        """Where downloaded models are kept: BIOMD_EMBED_CACHE_DIR, else `models` in the data
        folder where an earlier biomd put them there, else the user's cache folder (shared
        with the sample's data folder, so each model downloads once)."""
        if self.embed.cache_dir:
            return self.embed.cache_dir
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
        name = _written(tuple(str(x) for x in error["loc"]), prefix)
        where = "the environment" if from_environment and name in environment() else file
        said = f" (in {where})" if where else ""
        lines.append(f"{name}{said}: {error['msg']}, not {error.get('input')!r}.")
    lines.append("Fix it with `biomd config set NAME VALUE` (or `biomd config unset NAME`).")
    return "\n".join(lines[:-1] if file is None else lines)


def _written(loc: tuple[str, ...], prefix: str) -> str:
    """The name a setting is written as, from where an error was found in it: BIOMD_LLM_MODEL
    for ("llm", "model"); a plugin's BIOMD_<PLUGIN>_<FIELD> by its `prefix`."""
    if prefix != PREFIX:
        field = loc[0].upper() if loc else ""
        return field if field.startswith(prefix) else prefix + field
    known = dict(names.paths(Settings))
    return names.name_of(loc[:2] if loc[:2] in known else loc[:1])


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


def _first(value: float | None, default: float) -> float:
    return default if value is None else value


def revealed(secret: SecretStr | None) -> str | None:
    """A key or token as the service it is for needs it (None: not set)."""
    return secret.get_secret_value() if secret else None
