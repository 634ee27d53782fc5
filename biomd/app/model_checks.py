"""What `biomd setup` and `biomd doctor` ask of the models before biomd relies on them:
whether a language model answers and how it makes tool calls, the model servers on this
computer and Ollama's context window, the Codex CLI's version and login, and whether the
embedding model is downloaded."""

from __future__ import annotations

from dataclasses import dataclass

from biomd.models import local_servers
from biomd.models.codex import TESTED, CodexCLI, binary
from biomd.models.local_servers import WANTED_CONTEXT, LocalServer
from biomd.models.probe import tool_advice, try_language_model, try_tool_call
from biomd.retrieval.embedding import download_size, model_downloaded
from biomd.settings import Settings
from biomd.storage.downloads import Failure, failed_lately

__all__ = [
    "LOCAL_SERVERS",
    "TESTED",
    "WANTED_CONTEXT",
    "Codex",
    "Failure",
    "LocalServer",
    "ToolCalls",
    "answers",
    "codex",
    "embedding_downloaded",
    "embedding_failure",
    "embedding_size",
    "find_local_servers",
    "make_ollama_variant",
    "short_context",
    "speech_failure",
    "tool_calls",
]

LOCAL_SERVERS = local_servers.KNOWN
find_local_servers = local_servers.find
make_ollama_variant = local_servers.make_ollama_variant


async def answers(url: str, key: str, model: str) -> str | None:
    """Why a short test call to the model failed; None if it answered."""
    return await try_language_model(url, key, model)


@dataclass(frozen=True)
class ToolCalls:
    how: str  # native, text (written in its reply) or none
    advice: str  # what that means for biomd, in a sentence


async def tool_calls(url: str, key: str, model: str) -> ToolCalls:
    """How the model makes a tool call and uses its result (a round trip)."""
    support = await try_tool_call(url, key, model)
    return ToolCalls(support.how, tool_advice(support))


async def short_context(url: str, model: str) -> int | None:
    """Ollama's context window for `model`, when it is smaller than a reading turn wants."""
    context = await local_servers.ollama_context(url, model)
    return context if context is not None and context < WANTED_CONTEXT else None


@dataclass(frozen=True)
class Codex:
    path: str
    version: tuple[int, int, int] | None  # None when `codex --version` failed
    logged_in: bool
    said: str  # what `codex login status` said


async def codex(settings: Settings) -> Codex | None:
    """The Codex CLI: where it is, its version and its login; None if it is not installed."""
    if binary(settings.codex) is None:
        return None
    cli = CodexCLI(settings.codex, settings.turn_timeout)
    version = await cli.version()
    logged, said = await cli.logged_in()
    return Codex(cli.path, version, logged, said)


def embedding_downloaded(settings: Settings) -> bool:
    """Whether the embedding model has been downloaded (loaded once) into the models dir."""
    return model_downloaded(settings.embed.model, settings.models_dir)


def embedding_size(settings: Settings) -> str:
    """The embedding model's download size, e.g. "130 MB"."""
    return download_size(settings.embed.model)


def embedding_failure(settings: Settings) -> Failure | None:
    """The embedding model's download, if it failed lately: it waits out the back-off
    (`biomd embed` tries at once); None where the model is a local folder."""
    if settings.embed.model_path:
        return None
    return failed_lately(settings.embed.model, settings.models_dir)


def speech_failure(settings: Settings) -> Failure | None:
    """The speech model's download, if it failed lately: a voice note that failed for it is
    not retried by itself until the back-off ends (sending it again retries it)."""
    return failed_lately(settings.whisper.model, settings.models_dir / "whisper")
