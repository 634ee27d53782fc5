"""Each setting's name as it is written (BIOMD_LLM_MODEL, in the environment and the config
file) and where it lives in the groups (llm.model): one table, read both ways. Older names
are still read. Pure."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from pydantic import BaseModel
from pydantic.fields import FieldInfo

PREFIX = "BIOMD_"

Path_ = tuple[str, ...]
"""Where a setting lives: ("data_dir",) at the top, ("llm", "model") in a group."""

NAMES: dict[Path_, str] = {
    ("owner", "names"): "BIOMD_OWNER_NAMES",
    ("owner", "timezone"): "BIOMD_TIMEZONE",
    ("owner", "language"): "BIOMD_LANGUAGE",
    ("owner", "languages"): "BIOMD_LANGUAGES",
    ("owner", "chat_date_order"): "BIOMD_CHAT_DATE_ORDER",
    ("zip", "total_bytes"): "BIOMD_ZIP_MAX_TOTAL_BYTES",
    ("zip", "entries"): "BIOMD_ZIP_MAX_ENTRIES",
    ("zip", "depth"): "BIOMD_ZIP_MAX_DEPTH",
    ("zip", "ratio"): "BIOMD_ZIP_MAX_RATIO",
    ("reading", "steps"): "BIOMD_STEPS_READING",
    ("reading", "attempts"): "BIOMD_READ_ATTEMPTS",
    ("reading", "confirm_usd"): "BIOMD_READ_CONFIRM_USD",
    ("reading", "confirm_tokens"): "BIOMD_READ_CONFIRM_TOKENS",
    ("chat", "steps"): "BIOMD_STEPS_CHAT",
    ("biographer", "bio_max_chars"): "BIOMD_BIO_MAX_CHARS",
    ("biographer", "analysis_steps"): "BIOMD_STEPS_ANALYSIS",
    ("biographer", "read_max_chars"): "BIOMD_READ_MAX_CHARS",
    ("costs", "daily_limit_usd"): "BIOMD_DAILY_SPEND_LIMIT_USD",
    ("costs", "prompt_cache"): "BIOMD_PROMPT_CACHE",
    ("costs", "cache_read_price_share"): "BIOMD_CACHE_READ_PRICE_SHARE",
    ("costs", "cache_write_price_share"): "BIOMD_CACHE_WRITE_PRICE_SHARE",
}
"""The names that are not BIOMD_<GROUP>_<FIELD>: they were written before the groups."""

OLDER: dict[str, Path_] = {
    "BIOMD_WEB": ("web", "enabled"),  # until 0.3
    "BIOMD_STEPS_INGEST": ("reading", "steps"),  # until 0.2
    "BIOMD_INGEST_PART_CHARS": ("reading", "part_chars"),  # until 0.2
}
"""Older names, still read; the current name wins where both are set."""


def paths(model: type[BaseModel]) -> Iterator[tuple[Path_, FieldInfo]]:
    """Every setting of `model` (the Settings class), a group's fields one by one."""
    for name, info in model.model_fields.items():
        group = info.annotation
        if isinstance(group, type) and issubclass(group, BaseModel):
            for field, inner in group.model_fields.items():
                yield (name, field), inner
        else:
            yield (name,), info


def name_of(path: Path_) -> str:
    """The name a setting is written as: BIOMD_LLM_MODEL for ("llm", "model")."""
    return NAMES.get(path) or PREFIX + "_".join(path).upper()


def table(model: type[BaseModel]) -> dict[str, Path_]:
    """Every name `model` reads, older names included, to where its setting lives."""
    return {**OLDER, **{name_of(path): path for path, _ in paths(model)}}


def nest(model: type[BaseModel], flat: Mapping[str, Any]) -> dict[str, Any]:
    """Values by name (BIOMD_LLM_MODEL, or llm_model as a keyword) as the groups hold them,
    {"llm": {"model": ...}}; names the settings don't have are left out (a plugin's are
    read by the plugin). An older name gives way to the current one."""
    known = table(model)
    nested: dict[str, Any] = {}
    ordered = sorted(flat.items(), key=lambda kv: _upper(kv[0]) not in OLDER)
    for key, value in ordered:
        path = known.get(_upper(key))
        if path is None:
            continue
        if len(path) == 1:
            nested[path[0]] = value
        else:
            group = nested.setdefault(path[0], {})
            if isinstance(group, dict):
                group[path[1]] = value
    return nested


def _upper(key: str) -> str:
    upper = key.upper()
    return upper if upper.startswith(PREFIX) else PREFIX + upper
