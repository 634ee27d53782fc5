"""Plugins: pluggy hooks under the project name `biomd`, found through the `biomd` entry-point
group. biomd's own converters, backends, front-ends and commands register through the same
hooks, as default plugins (the way simonw/llm ships its OpenAI models).

A plugin is a module with functions marked `@biomd.hookimpl`, named in its package's
`[project.entry-points.biomd]`; the entry point's name is the plugin's, and its settings are
`BIOMD_<NAME>_<FIELD>` in the config file. A plugin that fails to load, or fails in a hook, is
set aside with a warning: biomd goes on without it."""

from __future__ import annotations

import functools
import importlib
import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from importlib.metadata import entry_points
from typing import Any, TypeVar

import pluggy
from pydantic import BaseModel

from biomd.settings import PREFIX, config_file
from biomd.settings import environment as settings_environment

log = logging.getLogger(__name__)

PROJECT = "biomd"
hookspec = pluggy.HookspecMarker(PROJECT)
hookimpl = pluggy.HookimplMarker(PROJECT)

DEFAULT_PLUGINS = (
    "biomd.ingest.convert.builtin",
    "biomd.biographer.backend",
    "biomd.frontends.platforms",
    "biomd.frontends.commands",
)
"""biomd's own plugins, registered before any installed one (so its formats are tried first)."""

M = TypeVar("M", bound=BaseModel)


class Hooks:
    """What a plugin can add. Each hook is given a `register` function (or the CLI's app)."""

    @hookspec
    def register_converters(self, register: Callable[..., None]) -> None:
        """Add converters: `register(converter)` for a format of its own, tried before the
        generic ones; `register(converter, generic=True)` for a fallback (plain text is last)."""

    @hookspec
    def register_backends(self, register: Callable[[str, Callable[..., Any]], None]) -> None:
        """Add model backends: `register(name, factory)`, where `factory(settings, ledger)`
        makes the backend BIOMD_LLM_BACKEND=name chooses."""

    @hookspec
    def register_frontends(self, register: Callable[[Any], None]) -> None:
        """Add chat platforms beside Telegram and Discord: `register(frontend)` with a
        `biomd.frontends.platforms.Frontend`."""

    @hookspec
    def register_commands(self, app: Any) -> None:
        """Add `biomd` commands to the Typer app (`@app.command()`)."""

    @hookspec
    def register_settings(self, register: Callable[[type[BaseModel]], None]) -> None:
        """Declare the plugin's settings: `register(Model)`, a pydantic model whose fields
        are read from BIOMD_<PLUGIN>_<FIELD> (`settings_of`)."""


@dataclass
class Plugin:
    """One plugin: its name, where it comes from, and what it registered."""

    name: str
    builtin: bool
    module: Any
    version: str = ""
    registered: dict[str, list[str]] = field(default_factory=dict)
    error: str = ""

    def record(self, what: str, name: str) -> None:
        self.registered.setdefault(what, []).append(name)


class Plugins:
    """The plugin manager and the plugins in it, built-ins first."""

    def __init__(self) -> None:
        self.manager = pluggy.PluginManager(PROJECT)
        self.manager.add_hookspecs(Hooks)
        self.plugins: list[Plugin] = []
        for module_name in DEFAULT_PLUGINS:
            module = importlib.import_module(module_name)
            self._add(Plugin(module_name, True, module))
        for entry in sorted(entry_points(group=PROJECT), key=lambda e: e.name):
            version = entry.dist.version if entry.dist else ""
            try:
                module = entry.load()
            except Exception as exc:  # a broken plugin never breaks biomd
                log.warning("plugin %s could not be loaded: %s", entry.name, exc)
                log.debug("plugin %s", entry.name, exc_info=True)
                self.plugins.append(Plugin(entry.name, False, None, version, error=str(exc)))
                continue
            self._add(Plugin(entry.name, False, module, version))

    def _add(self, plugin: Plugin) -> None:
        try:
            self.manager.register(plugin.module, name=plugin.name)
        except Exception as exc:  # not a plugin pluggy accepts (a misspelt hook, say)
            log.warning("plugin %s could not be registered: %s", plugin.name, exc)
            plugin.error = str(exc)
        self.plugins.append(plugin)

    def call(
        self,
        hook: str,
        arguments: Callable[[Plugin], dict[str, Any]],
        after: Callable[[Plugin], None] | None = None,
    ) -> None:
        """Call `hook` on each plugin that has it, in order, with `arguments(plugin)`, then
        `after(plugin)`. A built-in's failure is a bug and raised; another plugin's is logged,
        kept on the plugin, and passed over."""
        order = {p.name: i for i, p in enumerate(self.plugins)}
        by_name = {p.name: p for p in self.plugins}
        impls = getattr(self.manager.hook, hook).get_hookimpls()
        for impl in sorted(impls, key=lambda i: order.get(i.plugin_name, len(order))):
            plugin = by_name[impl.plugin_name]
            kwargs = arguments(plugin)
            try:
                impl.function(*(kwargs[name] for name in impl.argnames))
            except Exception as exc:
                if plugin.builtin:
                    raise
                log.warning("plugin %s failed in %s: %s", plugin.name, hook, exc)
                log.debug("plugin %s", plugin.name, exc_info=True)
                plugin.error = f"{hook}: {exc}"
            if after is not None:
                after(plugin)


_loading = False


@functools.cache
def loaded() -> Plugins:
    """The plugins of this process, loaded once. A default plugin whose import asks for them
    again would make a second set: that is a bug, said at once."""
    global _loading
    if _loading:
        raise RuntimeError("a plugin's import asked for the plugins while they were loading")
    _loading = True
    try:
        return Plugins()
    finally:
        _loading = False


def each(
    hook: str,
    register: Callable[[Plugin], Any] | None = None,
    after: Callable[[Plugin], None] | None = None,
    **kwargs: Any,
) -> None:
    """Call `hook` on every plugin. `register(plugin)` makes the `register` function that
    plugin's hook is given, so that what each adds is known by whom."""

    def arguments(plugin: Plugin) -> dict[str, Any]:
        return {**kwargs, "register": register(plugin)} if register else kwargs

    loaded().call(hook, arguments, after)


@functools.cache
def declared_settings() -> dict[str, type[BaseModel]]:
    """Each plugin's settings model, by the plugin's name."""
    found: dict[str, type[BaseModel]] = {}

    def register(plugin: Plugin) -> Callable[[type[BaseModel]], None]:
        def add(model: type[BaseModel]) -> None:
            found[key_of(plugin.name)] = model
            prefix = f"{PREFIX}{key_of(plugin.name).upper()}_"
            for name in model.model_fields:
                plugin.record("settings", f"{prefix}{name.upper()}")

        return add

    each("register_settings", register)
    return found


def key_of(name: str) -> str:
    """A plugin's name as its settings are prefixed (`line-export`: LINE_EXPORT)."""
    return name.replace("-", "_").replace(".", "_").lower()


def settings_of(
    plugin: str,
    model: type[M],
    values: Mapping[str, str] | None = None,
    environment: bool = True,
) -> M:
    """A plugin's settings: its model's fields from BIOMD_<PLUGIN>_<FIELD> in the config file
    (or `values`), the environment overriding them."""
    prefix = f"{PREFIX}{key_of(plugin).upper()}_"
    if values is None:
        from dotenv import dotenv_values

        path = config_file()
        raw = dotenv_values(path, encoding="utf-8") if path.is_file() else {}
        values = {k.upper(): v or "" for k, v in raw.items()}
    merged = {k.upper(): v for k, v in values.items()}
    if environment:
        merged |= settings_environment()
    data = {
        name: merged[prefix + name.upper()]
        for name in model.model_fields
        if prefix + name.upper() in merged
    }
    return model.model_validate(data)
