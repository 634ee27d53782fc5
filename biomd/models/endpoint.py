"""Calls to one OpenAI-compatible endpoint (a biomd.endpoints.Endpoint): the client, what a
call's usage cost, and its failures as plain messages. Retries are the `openai` client's
own: exponential backoff on 408/409/429/5xx, timeouts and dropped connections, honouring
Retry-After."""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any

from biomd.endpoints import Endpoint
from biomd.errors import ContextExceeded, LLMError, LLMNotConfigured, LLMRequestRefused
from biomd.models.ledger import Usage

if TYPE_CHECKING:
    from openai import AsyncOpenAI

NO_MODEL = (
    "No language model is configured. Set BIOMD_LLM_API_KEY (an OpenRouter key, or your "
    "provider's), or point BIOMD_LLM_BASE_URL at a local server such as Ollama "
    "(http://localhost:11434/v1) and set BIOMD_LLM_MODEL, with `biomd config set`; "
    "`biomd setup` walks you through it."
)


def require_key(endpoint: Endpoint) -> None:
    """A remote endpoint needs a key; LLMNotConfigured says what to set."""
    if not endpoint.configured:
        raise LLMNotConfigured(NO_MODEL)


def client(endpoint: Endpoint) -> AsyncOpenAI:
    from openai import AsyncOpenAI

    return AsyncOpenAI(
        base_url=endpoint.base_url,
        api_key=endpoint.api_key or "local",
        timeout=endpoint.call_timeout,
        max_retries=endpoint.retries,
    )


def extra_body(endpoint: Endpoint) -> dict[str, Any]:
    """OpenRouter reports each call's cost when asked."""
    return {"usage": {"include": True}} if "openrouter.ai" in endpoint.base_url else {}


def takes_cache_markers(model: str) -> bool:
    """Anthropic's models cache a prompt's prefix only where it is marked (OpenRouter passes
    the marks on); other providers cache prefixes on their own."""
    return model.startswith("anthropic/") or "claude" in model.lower()


def cache_marked(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The messages with cache breakpoints after the stable parts: the system message (the
    rules and bio.md) and the turn's opening message (a reading turn's notes), which every
    later call of the turn repeats."""
    out = []
    opening = next((i for i, m in enumerate(messages) if m.get("role") == "user"), None)
    for i, m in enumerate(messages):
        text = m.get("content")
        if (m.get("role") == "system" or i == opening) and isinstance(text, str) and text:
            part = {"type": "text", "text": text, "cache_control": {"type": "ephemeral"}}
            m = {**m, "content": [part]}
        out.append(m)
    return out


def usage_of(usage: Any, endpoint: Endpoint) -> Usage:
    """Tokens and cost: the endpoint's own figure where it gives one, else the set prices."""
    if usage is None:
        return Usage()
    prompt = int(usage.prompt_tokens or 0)
    completion = int(usage.completion_tokens or 0)
    reported = (usage.model_extra or {}).get("cost") if hasattr(usage, "model_extra") else None
    if isinstance(reported, int | float):
        return Usage(prompt, completion, float(reported), "endpoint")
    price = endpoint.usd(prompt, completion)
    return Usage(prompt, completion, price, "price" if price else "none")


def estimated(messages: Any, text: str, endpoint: Endpoint) -> Usage:
    """Tokens guessed from characters (about 3.5 each) where the endpoint gave no count."""
    prompt = int(len(json.dumps(messages, ensure_ascii=False)) / 3.5)
    completion = int(len(text) / 3.5)
    return Usage(prompt, completion, endpoint.usd(prompt, completion), "estimate")


_TOO_LONG = re.compile(
    r"context[ _-]?(?:size|length|window)|exceed_context|maximum (?:context )?length|"
    r"too many tokens|prompt is too long|n_ctx",
    re.I,
)
"""How llama.cpp, OpenAI, vLLM and others say a request is longer than the window."""


@asynccontextmanager
async def plain_errors(endpoint: Endpoint, setting: str = "BIOMD_LLM_MODEL") -> AsyncIterator[None]:
    """The `openai` client's exceptions, after its retries, as messages the owner can act on."""
    import openai

    try:
        yield
    except (openai.AuthenticationError, openai.PermissionDeniedError) as exc:
        raise LLMNotConfigured(
            f"The LLM endpoint {endpoint.base_url} rejected the key "
            f"(BIOMD_LLM_API_KEY): {reason(exc)}"
        ) from exc
    except openai.BadRequestError as exc:
        if _TOO_LONG.search(f"{reason(exc)} {getattr(exc, 'code', '') or ''}"):
            raise ContextExceeded(
                f"The request is longer than the model's context window: {reason(exc)}"
            ) from exc
        raise LLMRequestRefused(
            f"The LLM endpoint refused the request (400): {reason(exc)}"
        ) from exc
    except openai.NotFoundError as exc:
        raise LLMError(
            f"The LLM endpoint does not know the model {endpoint.model!r} ({setting}): "
            f"{reason(exc)}"
        ) from exc
    except openai.APIStatusError as exc:
        raise LLMError(
            f"The LLM endpoint answered {exc.status_code} after retries: {reason(exc)}"
        ) from exc
    except (openai.APITimeoutError, openai.APIConnectionError) as exc:
        raise LLMError(
            f"The LLM endpoint {endpoint.base_url} could not be reached after "
            f"retries ({type(exc).__name__})."
        ) from exc
    except (ValueError, openai.APIResponseValidationError) as exc:  # JSONDecodeError too
        raise LLMError(
            f"The LLM endpoint {endpoint.base_url} sent a reply that is not valid "
            f"JSON (cut off, or not an OpenAI-compatible answer): {str(exc)[:200]}"
        ) from exc


def check_json(response: Any, endpoint: Endpoint) -> None:
    """A proxy or a wrong URL can answer 200 with HTML; say so instead of failing later."""
    if isinstance(response, str | bytes):
        raise LLMError(
            f"The LLM endpoint {endpoint.base_url} sent something that is not "
            f"JSON: {str(response)[:200]!r}. Is BIOMD_LLM_BASE_URL the API's "
            "address (it usually ends in /v1)?"
        )


def reason(exc: Exception) -> str:
    body = getattr(exc, "body", None)
    if isinstance(body, dict):
        detail = body.get("error", body)
        if isinstance(detail, dict):
            return str(detail.get("message") or json.dumps(detail))[:300]
        return str(detail)[:300]
    return str(exc)[:300]
