"""The model backend, chosen once from the settings, as an object that says what it can do:
whether it is set up (and if not, what to do), what runs a turn (biomd's own tool loop, or
Codex's), the models it gives for a turn, for tool-less work and for photos, and what they
cost. Nothing else asks which backend is configured."""

from __future__ import annotations

import asyncio
import functools
import logging
from collections.abc import Callable
from typing import Any, Protocol

from biomd import plugins
from biomd.biographer.codex_turn import CodexTurn
from biomd.biographer.loop import AgentLoop
from biomd.biographer.reading.estimate import Prices
from biomd.biographer.reading.reading_turn import ReadingTurn
from biomd.biographer.turn import Runner
from biomd.endpoints import Endpoints
from biomd.errors import ConfigError, LLMNotConfigured
from biomd.models.codex import CodexChat, CodexCLI, binary
from biomd.models.endpoint import NO_MODEL
from biomd.models.ledger import Ledger
from biomd.models.llm import JsonModel, OpenAIChat, TurnModel
from biomd.models.pricing import prices
from biomd.models.vision import CodexDescriber, Describer, VisionDescriber
from biomd.plugins import hookimpl
from biomd.settings import Settings
from biomd.settings.groups import CodexSettings

log = logging.getLogger(__name__)


class Backend(Protocol):
    name: str  # as metered in llm_usage: openai or codex
    small_calls: bool  # a call per bio.md line (its wording) costs little: not a CLI run each

    @property
    def configured(self) -> bool:
        """Whether a model can be called at all."""
        ...

    @property
    def missing(self) -> str:
        """What to do to set it up, when it is not configured (safe to show the owner)."""
        ...

    def model(self) -> TurnModel:
        """The model a turn talks to; LLMNotConfigured says what to set when there is none."""
        ...

    def describer(self) -> Describer | None:
        """What describes photos, if anything can; made on the running event loop."""
        ...

    def runner(self) -> Runner:
        """What runs a turn: biomd's own tool loop over `model()`, or the Codex CLI, which
        runs the whole turn itself with biomd's tools over MCP."""
        ...

    def reading_runner(self, writer: asyncio.Lock) -> Runner:
        """What runs a reading turn: one call whose reply is its edits (reading_turn.py),
        applied under `writer`; on Codex, its own run with the tools."""
        ...

    async def prices(self) -> Prices | None:
        """USD per million tokens of `model()` (free on a subscription), None if unknown."""
        ...

    async def reader_prices(self) -> Prices | None:
        """The same of `reader()`."""
        ...

    def reader(self) -> JsonModel:
        """The model that takes notes of new sources (BIOMD_READER_MODEL and its endpoint,
        or the biographer's own)."""
        ...

    @property
    def reader_concurrency(self) -> int:
        """How many reader calls may run at once: one on a local server."""
        ...

    @property
    def turn_concurrency(self) -> int:
        """How many reading turns may run at once (over one bio.md, with one writer): as
        many as reader calls on a cloud endpoint, one on a local server."""
        ...


class OpenAIBackend:
    """Any OpenAI-compatible endpoint: OpenRouter, Ollama, llama.cpp, vLLM…"""

    name = "openai"
    small_calls = True

    def __init__(self, endpoints: Endpoints, ledger: Ledger) -> None:
        self.endpoints = endpoints
        self.ledger = ledger
        self._model: OpenAIChat | None = None
        self._describer: VisionDescriber | None = None
        self._reader: OpenAIChat | None = None

    @classmethod
    def of(cls, settings: Settings, ledger: Ledger) -> OpenAIBackend:
        return cls(settings.endpoints(), ledger)

    @property
    def configured(self) -> bool:
        return self.endpoints.biographer.configured

    @property
    def missing(self) -> str:
        return NO_MODEL

    def model(self) -> OpenAIChat:
        if self._model is None:
            self._model = OpenAIChat(self.endpoints.biographer, self.ledger)
        return self._model

    def describer(self) -> Describer | None:
        vision = self.endpoints.vision
        if self._describer is None and vision:
            self._describer = VisionDescriber(vision, self.ledger)
        return self._describer

    def runner(self) -> AgentLoop:
        e = self.endpoints
        return AgentLoop(self.model(), e.max_tokens, e.turn_timeout)

    def reading_runner(self, writer: asyncio.Lock) -> ReadingTurn:
        e = self.endpoints
        return ReadingTurn(self.model(), writer, e.max_tokens, e.turn_timeout)

    async def prices(self) -> Prices | None:
        return _known(await prices(self.endpoints.biographer))

    async def reader_prices(self) -> Prices | None:
        return _known(await prices(self.endpoints.reader))

    def reader(self) -> OpenAIChat:
        if self._reader is None:
            self._reader = OpenAIChat(self.endpoints.reader, self.ledger)
        return self._reader

    @property
    def reader_concurrency(self) -> int:
        return self.endpoints.reader_concurrency

    @property
    def turn_concurrency(self) -> int:
        return self.endpoints.turn_concurrency


class CodexBackend:
    """The Codex CLI on a ChatGPT subscription: a turn is one `codex exec` run."""

    name = "codex"
    small_calls = False  # each call is a `codex exec` run: lines are worded by rules

    def __init__(
        self, codex: CodexSettings, endpoints: Endpoints, ledger: Ledger, spec: dict[str, Any]
    ) -> None:
        """`spec` is the settings without their secrets, for the Codex turn's tool server."""
        self.codex = codex
        self.endpoints = endpoints
        self.ledger = ledger
        self.spec = spec
        self._cli: CodexCLI | None = None
        self._model: CodexChat | None = None
        self._describer: Describer | None = None
        self._reader: JsonModel | None = None

    @classmethod
    def of(cls, settings: Settings, ledger: Ledger) -> CodexBackend:
        return cls(settings.codex, settings.endpoints(), ledger, settings.without_secrets())

    @property
    def configured(self) -> bool:
        return binary(self.codex) is not None

    @property
    def missing(self) -> str:
        return (
            f"BIOMD_LLM_BACKEND is codex, but the Codex CLI ({self.codex.bin}) was not "
            "found. Install it with `npm i -g @openai/codex`, then sign in with `codex login`; "
            "or set BIOMD_CODEX_BIN to where it is."
        )

    def cli(self) -> CodexCLI:
        if self._cli is None:
            if not self.configured:
                raise LLMNotConfigured(self.missing)
            e = self.endpoints
            self._cli = CodexCLI(
                self.codex, e.turn_timeout, e.biographer.context_tokens, self.ledger
            )
        return self._cli

    def model(self) -> CodexChat:
        if self._model is None:
            self._model = CodexChat(self.cli())
        return self._model

    def describer(self) -> Describer | None:
        if self._describer is None:
            if vision := self.endpoints.vision:
                self._describer = VisionDescriber(vision, self.ledger)
            elif self.configured:
                self._describer = CodexDescriber(self.cli())
        return self._describer

    def runner(self) -> CodexTurn:
        return CodexTurn(self.cli(), self.spec)

    def reading_runner(self, writer: asyncio.Lock) -> CodexTurn:
        return self.runner()  # Codex edits through its tool server; one turn at a time

    async def prices(self) -> Prices:
        return FREE

    async def reader_prices(self) -> Prices | None:
        if self.endpoints.reader_apart:  # an endpoint of its own, priced as any
            return _known(await prices(self.endpoints.reader))
        return FREE

    def reader(self) -> JsonModel:
        """An endpoint of its own where BIOMD_READER_BASE_URL names one, else Codex."""
        if self._reader is None:
            if self.endpoints.reader_apart:
                self._reader = OpenAIChat(self.endpoints.reader, self.ledger)
            else:
                self._reader = self.model()
        return self._reader

    @property
    def reader_concurrency(self) -> int:
        e = self.endpoints
        return e.concurrency if e.reader_apart and not e.reader.is_local else 1

    @property
    def turn_concurrency(self) -> int:
        return 1  # a `codex exec` each: one at a time on the owner's plan


FREE = Prices(0.0, 0.0)
"""What a call costs on the owner's ChatGPT plan."""


def _known(price: tuple[float, float] | None) -> Prices | None:
    return Prices(*price) if price else None


Factory = Callable[[Settings, Ledger], Backend]
"""What a backend is registered as: given the settings and the ledger, the backend."""


@hookimpl(tryfirst=True)
def register_backends(register: Callable[[str, Factory], None]) -> None:
    """biomd's own backends, registered as a default plugin."""
    register("openai", OpenAIBackend.of)
    register("codex", CodexBackend.of)


@functools.cache
def backends() -> dict[str, Factory]:
    """Every backend of biomd and its plugins, by the name BIOMD_LLM_BACKEND gives it (the
    first to register a name keeps it)."""
    found: dict[str, Factory] = {}

    def register(plugin: plugins.Plugin) -> Callable[[str, Factory], None]:
        def add(name: str, factory: Factory) -> None:
            if name in found:
                log.warning("plugin %s: backend %r is taken; not replaced", plugin.name, name)
                return
            found[name] = factory
            plugin.record("backends", name)

        return add

    plugins.each("register_backends", register)
    return found


def choose(settings: Settings, ledger: Ledger) -> Backend:
    """The backend BIOMD_LLM_BACKEND names, or a ConfigError listing those there are."""
    known = backends()
    if settings.llm.backend not in known:
        raise ConfigError(
            f"BIOMD_LLM_BACKEND is {settings.llm.backend!r}, which no backend is called: "
            f"{', '.join(sorted(known))} (`biomd plugins` lists what plugins add)."
        )
    return known[settings.llm.backend](settings, ledger)
