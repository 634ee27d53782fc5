"""A model endpoint as one value: where it is, its key and model, what its tokens cost, and
how long a call may take. The biographer and the reader each have one (Settings.endpoint(),
Settings.reader_endpoint()); the model layer takes it, not the settings."""

from __future__ import annotations

from dataclasses import dataclass, field
from urllib.parse import urlparse

_LOCAL_HOSTS = {"localhost", "127.0.0.1", "::1", "0.0.0.0", "host.docker.internal"}


def is_local_url(url: str) -> bool:
    """The address of a model on this machine or network (Ollama, llama.cpp, LM Studio,
    vLLM), which needs no key and costs nothing."""
    host = urlparse(url).hostname or ""
    return host in _LOCAL_HOSTS or host.endswith((".local", ".lan", ".internal"))


@dataclass(frozen=True, slots=True)
class Defaults:
    """What the settings leave open, by where the model runs."""

    call_timeout: float  # seconds one model call may take
    turn_timeout: float  # seconds one biographer turn may take
    retries: int  # retries of a failed call; each sends the whole prompt again
    stream: bool  # stream replies, so a tool call written as text ends the reply at once
    context_tokens: int  # the window assumed when the server does not say


LOCAL = Defaults(
    call_timeout=900.0, turn_timeout=3600.0, retries=1, stream=True, context_tokens=8192
)
"""A model on this machine: a CPU writes a long reply slowly, a retry costs it minutes,
streaming saves it running on for minutes after a tool call it wrote as text, and its
window is what a small server is usually started with."""

CLOUD = Defaults(
    call_timeout=120.0, turn_timeout=900.0, retries=4, stream=False, context_tokens=128_000
)
"""A model behind a provider's API: quick, now and then busy (429, 5xx), with a large
window."""


def defaults_for(base_url: str) -> Defaults:
    """LOCAL for a model on this machine or network, else CLOUD."""
    return LOCAL if is_local_url(base_url) else CLOUD


@dataclass(frozen=True, slots=True)
class Endpoint:
    """One OpenAI-compatible endpoint and the model called there. Build it with `at`, which
    fills what is not set from LOCAL or CLOUD."""

    base_url: str
    model: str
    api_key: str | None = field(repr=False)  # kept out of logs and tracebacks
    context_tokens: int | None  # the model's window; None: asked of the server
    price_prompt_per_mtok: float  # USD per million tokens, where the endpoint reports none
    price_completion_per_mtok: float
    max_tokens: int  # the longest reply, where a call names no other
    call_timeout: float
    turn_timeout: float
    retries: int
    stream: bool

    @classmethod
    def at(
        cls,
        base_url: str,
        model: str,
        *,
        api_key: str | None = None,
        context_tokens: int | None = None,
        price_prompt_per_mtok: float = 0.0,
        price_completion_per_mtok: float = 0.0,
        max_tokens: int = 1024,
        call_timeout: float | None = None,
        turn_timeout: float | None = None,
        retries: int | None = None,
        stream: bool | None = None,
    ) -> Endpoint:
        """The endpoint at `base_url`: what is given, and the rest from where it runs."""
        d = defaults_for(base_url)
        return cls(
            base_url=base_url,
            model=model,
            api_key=api_key,
            context_tokens=context_tokens,
            price_prompt_per_mtok=price_prompt_per_mtok,
            price_completion_per_mtok=price_completion_per_mtok,
            max_tokens=max_tokens,
            call_timeout=call_timeout or d.call_timeout,
            turn_timeout=turn_timeout or d.turn_timeout,
            retries=d.retries if retries is None else retries,
            stream=d.stream if stream is None else stream,
        )

    @property
    def is_local(self) -> bool:
        """The model runs on this machine or network."""
        return is_local_url(self.base_url)

    @property
    def defaults(self) -> Defaults:
        """LOCAL or CLOUD, by where it runs."""
        return defaults_for(self.base_url)

    @property
    def configured(self) -> bool:
        """Whether it can be called: a key, or a local server that needs none."""
        return bool(self.api_key) or self.is_local

    @property
    def priced(self) -> bool:
        """Whether the settings give its prices."""
        return bool(self.price_prompt_per_mtok or self.price_completion_per_mtok)

    def usd(self, prompt_tokens: float, completion_tokens: float) -> float:
        """What these tokens cost at the set prices."""
        return (
            prompt_tokens * self.price_prompt_per_mtok
            + completion_tokens * self.price_completion_per_mtok
        ) / 1e6


@dataclass(frozen=True, slots=True)
class Endpoints:
    """What a backend is given (Settings.endpoints()): the biographer's endpoint, the
    reader's, the one for photos, and how many reader calls may run at once."""

    biographer: Endpoint
    reader: Endpoint
    vision: Endpoint | None
    reader_apart: bool  # the reader has an address of its own (BIOMD_READER_BASE_URL)
    concurrency: int  # BIOMD_READER_CONCURRENCY
    concurrency_chosen: bool  # set by the owner (a local server started with --parallel)
    max_tokens: int  # the biographer's longest reply

    @property
    def turn_timeout(self) -> float:
        return self.biographer.turn_timeout

    @property
    def reader_concurrency(self) -> int:
        """Reader calls at once: one on a local server unless the owner chose more."""
        local = self.reader.is_local
        return 1 if local and not self.concurrency_chosen else self.concurrency

    @property
    def turn_concurrency(self) -> int:
        """Biographer turns at once, by the same rule."""
        local = self.biographer.is_local
        return 1 if local and not self.concurrency_chosen else self.concurrency
