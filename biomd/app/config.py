"""The config file (`biomd config set|get|unset|list|path`): one setting a line, BIOMD_NAME=value,
checked before it is written. A key is accepted as BIOMD_LLM_MODEL, llm_model, llm-model or
llm.model (its group and field); a plugin's settings are BIOMD_<PLUGIN>_<NAME> in the same file."""

from __future__ import annotations

import difflib
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from dotenv import dotenv_values
from filelock import FileLock
from pydantic import SecretStr, ValidationError
from pydantic.fields import FieldInfo
from pydantic_settings import BaseSettings, PydanticBaseSettingsSource

from biomd import plugins
from biomd.app.envfile import quoted, update_env_file, without
from biomd.biographer.backend import backends
from biomd.errors import ConfigError
from biomd.settings import (
    CONFIG_DIR_VARIABLE,
    PREFIX,
    SECRETS,
    ByName,
    Settings,
    config_file,
    invalid,
    names,
)
from biomd.settings import environment as settings_environment

Origin = Literal["environment", "config file", "default"]
REFUSED = "Nothing was changed: biomd can't run with that."

HEADER = (
    "# biomd's settings, one BIOMD_NAME=value a line, read from any folder biomd runs in.\n"
    "# `biomd config set NAME VALUE` edits this file; .env.example lists every setting.\n"
    "# The environment overrides what is here.\n"
)


@dataclass(frozen=True)
class Known:
    """A setting biomd or a plugin has: its name in the file, and what it is."""

    name: str  # BIOMD_OWNER_NAMES
    description: str
    default: str
    secret: bool
    plugin: str | None = None  # the plugin that declared it; None: biomd's own


@dataclass(frozen=True)
class Value:
    """A setting's value as biomd runs with it, and where it came from."""

    setting: Known
    value: str
    origin: Origin

    def shown(self, reveal: bool = False) -> str:
        """The value to print: a key or token masked unless `reveal`."""
        return self.value if reveal or not self.setting.secret else masked(self.value)


def masked(value: str) -> str:
    """A secret as it may be shown: its last four characters where it is long enough to keep
    the rest hidden."""
    if not value:
        return ""
    return "****" + value[-4:] if len(value) >= 12 else "****"


def known() -> dict[str, Known]:
    """Every setting biomd and its installed plugins have, by name (BIOMD_...)."""
    found = {
        names.name_of(path): _known(path[-1], info, path in SECRETS, key=names.name_of(path))
        for path, info in names.paths(Settings)
    }
    for plugin, model in plugins.declared_settings().items():
        for name, info in model.model_fields.items():
            key = f"{PREFIX}{plugin.upper()}_{name.upper()}"
            found[key] = _known(name, info, info.annotation is SecretStr, plugin, key)
    return found


def _known(
    field: str, info: FieldInfo, secret: bool, plugin: str | None = None, key: str = ""
) -> Known:
    default = "" if info.default_factory is not None or info.default is None else info.default
    if isinstance(default, tuple | frozenset):
        default = ",".join(str(x) for x in default)
    return Known(
        name=key or PREFIX + field.upper(),
        description=info.description or "",
        default=str(default),
        secret=secret or "SecretStr" in str(info.annotation),
        plugin=plugin,
    )


def secret_names() -> set[str]:
    """The settings that hold a key or token (biomd's and its plugins')."""
    return {name for name, setting in known().items() if setting.secret}


def aliases() -> dict[str, str]:
    """Older names still read, each to the setting it is now (BIOMD_STEPS_INGEST: ...)."""
    return {old: names.name_of(path) for old, path in names.OLDER.items()}


def name_of(key: str) -> str:
    """The setting a key names (BIOMD_OWNER_NAMES from owner_names, owner-names or itself), or a
    ConfigError saying which names come close."""
    by_path = dict(names.paths(Settings))
    path = tuple(key.strip().replace("-", "_").lower().split("."))
    if len(path) == 2 and path in by_path:
        return names.name_of(path)  # llm.model, as the settings' groups hold it
    raw = key.strip().replace("-", "_").replace(".", "_").upper()
    if raw == CONFIG_DIR_VARIABLE:
        raise ConfigError(
            f"{CONFIG_DIR_VARIABLE} says where the config file is, so it is read from the "
            "environment only: set it there."
        )
    name = raw if raw.startswith(PREFIX) else PREFIX + raw
    settings = known()
    if name in settings:
        return name
    if name in (old := aliases()):
        return old[name]
    close = difflib.get_close_matches(name, list(settings), n=3, cutoff=0.75)
    hint = (
        f" Did you mean {' or '.join(close)}?"
        if close
        else " `biomd config list --all` lists them."
    )
    raise ConfigError(f"biomd has no setting {name}.{hint}")


class ConfigFile:
    """The config file: read, and changed one key at a time, atomically and readable by its
    owner only (it may hold keys and tokens)."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path or config_file()

    def read(self) -> dict[str, str]:
        """Every BIOMD_ key the file sets, as written (upper-cased names)."""
        if not self.path.is_file():
            return {}
        return {
            k.upper(): v or ""
            for k, v in dotenv_values(self.path, encoding="utf-8").items()
            if k.upper().startswith(PREFIX)
        }

    def lock(self) -> FileLock:
        """Held while the file changes, so two processes never write it at once."""
        private_folder(self.path.parent)
        return FileLock(str(self.path) + ".lock", timeout=10, mode=0o600)

    def set(self, key: str, value: str) -> str:
        """Set a setting, after checking that biomd can run with it; its name."""
        name = name_of(key)
        with self.lock():
            current = self.read()
            check({**current, name: value}, self.path)
            self._write({name: value})
        return name

    def unset(self, key: str) -> tuple[str, bool]:
        """Remove a setting from the file (it goes back to its default); its name, and
        whether it was there."""
        name = name_of(key)
        with self.lock():
            there = self.path.is_file() and name in self.read()
            if there:
                text = self.path.read_text(encoding="utf-8")
                update_env_file(self.path, {}, text=without(text, {name}))
        return name, there

    def add(self, values: dict[str, str]) -> None:
        """Write several settings at once (the wizard's), checked as `set` checks one."""
        with self.lock():
            check({**self.read(), **values}, self.path)
            self._write(values)

    def _write(self, values: dict[str, str]) -> None:
        private_folder(self.path.parent)
        update_env_file(self.path, values, text=None if self.path.exists() else HEADER)


def check(values: dict[str, str], file: Path) -> None:
    """Raise a ConfigError naming what is wrong if biomd and its plugins can't run with
    `values` as the config file (the file alone: the environment may hide a bad value)."""
    settings = known()
    ours = {k: v for k, v in values.items() if k not in settings or not settings[k].plugin}
    folder = file.parent if file.parent.is_dir() else None
    with tempfile.TemporaryDirectory(dir=folder) as tmp:
        candidate = Path(tmp) / "candidate.env"
        candidate.write_text("".join(f"{k}={quoted(v)}\n" for k, v in ours.items()), "utf-8")
        try:
            chosen = _FileOnly(_env_file=candidate)  # type: ignore[call-arg]
        except ValidationError as exc:
            raise ConfigError(invalid(exc, None, from_environment=False, lead=REFUSED)) from None
    if chosen.llm.backend not in (known_backends := backends()):
        raise ConfigError(
            f"{REFUSED}\nBIOMD_LLM_BACKEND: no backend is called {chosen.llm.backend!r}; "
            f"there are {', '.join(sorted(known_backends))} (`biomd plugins` lists what "
            "plugins add)."
        )
    for plugin, model in plugins.declared_settings().items():
        try:
            plugins.settings_of(plugin, model, values, environment=False)
        except ValidationError as exc:
            prefix = f"{PREFIX}{plugins.key_of(plugin).upper()}_"
            raise ConfigError(invalid(exc, None, prefix, False, REFUSED)) from None


class _FileOnly(Settings):
    """Settings read from a file alone, to check it: by the settings' names, as Settings reads
    the file (older names included), without the environment."""

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        return (init_settings, ByName(settings_cls, dotenv_settings))


def values(settings_file: ConfigFile | None = None, everything: bool = False) -> Iterator[Value]:
    """Each setting biomd runs with, from the environment or the config file (and, with
    `everything`, those at their default), sorted by name."""
    file = _by_current_name((settings_file or ConfigFile()).read())
    environment = _by_current_name(settings_environment())
    for name, setting in sorted(known().items()):
        if name in environment:
            yield Value(setting, environment[name], "environment")
        elif name in file:
            yield Value(setting, file[name], "config file")
        elif everything:
            yield Value(setting, setting.default, "default")


def _by_current_name(found: dict[str, str]) -> dict[str, str]:
    """Values by their settings' current names: an older name's (BIOMD_WEB) is its
    setting's (BIOMD_WEB_ENABLED) unless the current name is set too, as the settings read it."""
    old = aliases()
    renamed = {old[k]: v for k, v in found.items() if k in old}
    return {**renamed, **{k: v for k, v in found.items() if k not in old}}


def value(key: str, settings_file: ConfigFile | None = None) -> Value:
    """One setting's value as biomd runs with it."""
    name = name_of(key)
    found = next(
        (v for v in values(settings_file, everything=True) if v.setting.name == name), None
    )
    assert found is not None  # name_of only gives names known() has
    return found


def unknown(settings_file: ConfigFile | None = None) -> list[tuple[str, list[str]]]:
    """The keys in the config file that no setting has (a typo is otherwise ignored), each
    with the names that come close."""
    names = known()
    old = aliases()
    return [
        (key, difflib.get_close_matches(key, list(names), n=2, cutoff=0.75))
        for key in (settings_file or ConfigFile()).read()
        if key not in names and key not in old
    ]


MOVED_SUFFIX = ".biomd-moved"


def adopt_dotenv(cwd: Path, settings_file: ConfigFile | None = None) -> str | None:
    """Move the BIOMD_ settings of a `.env` in `cwd` (where biomd read them before it had a
    config file) into the config file, once; what was done, to tell the owner, or None.

    A key the config file already has keeps the file's value, and both are said. The old
    file is kept whole as `.env.biomd-moved`; `.env` keeps its other lines (it may be another
    program's too), and goes if nothing else was in it."""
    dotenv = cwd / ".env"
    target = settings_file or ConfigFile()
    if not dotenv.is_file() or dotenv.resolve() == target.path.resolve():
        return None
    try:
        text = dotenv.read_text(encoding="utf-8")
        found = {
            k.upper(): v or ""
            for k, v in dotenv_values(dotenv, encoding="utf-8").items()
            if k.upper().startswith(PREFIX) and k.upper() != CONFIG_DIR_VARIABLE
        }
    except (OSError, UnicodeDecodeError) as exc:
        return f"Could not read {dotenv} to move its biomd settings into {target.path}: {exc}"
    if not found:
        return None
    secret = secret_names()
    with target.lock():
        kept = target.read()
        new = {k: v for k, v in found.items() if k not in kept}
        both = {k: v for k, v in found.items() if k in kept and kept[k] != v}
        if new:
            target._write(new)
        backup = free_name(dotenv.with_name(dotenv.name + MOVED_SUFFIX))
        write_private(backup, text)
        rest = without(text, found)
        if any(line.strip() and not line.lstrip().startswith("#") for line in rest.splitlines()):
            update_env_file(dotenv, {}, text=rest)
        else:
            dotenv.unlink()
    said = [
        f"biomd now reads its settings from {target.path}, from any folder, and no longer "
        f"from a .env where it runs. Moved {len(new)} of the {len(found)} in {dotenv} there"
        + (f": {', '.join(sorted(new))}." if new else ".")
    ]
    for key, value in sorted(both.items()):
        show = masked if key in secret else repr
        said.append(
            f"{key} was set in both; the config file's value is kept: {show(kept[key])} "
            f"(the .env had {show(value)}). `biomd config set {key} ...` changes it."
        )
    said.append(
        f"The old file is kept as {backup}; delete it once you have checked"
        + (" (it holds keys)." if secret & set(found) else ".")
    )
    return "\n".join(said)


def free_name(path: Path) -> Path:
    """`path`, or `path.2`, `path.3`… the first that is not there: an earlier copy stays."""
    n = 1
    found = path
    while found.exists():
        n += 1
        found = path.with_name(f"{path.name}.{n}")
    return found


def private_folder(folder: Path) -> None:
    """Make `folder` (and each parent it needs) readable by its owner only, if it is new."""
    for missing in reversed([p for p in (folder, *folder.parents) if not p.exists()]):
        missing.mkdir(mode=0o700, exist_ok=True)


def write_private(path: Path, text: str) -> None:
    """A file only its owner can read, written whole."""
    update_env_file(path, {}, text=text)
