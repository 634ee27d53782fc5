"""The language model: any OpenAI-compatible chat endpoint (OpenRouter by default, or a
local server such as Ollama), with retries, token and cost accounting, and a daily limit.

Retries are the `openai` client's own: exponential backoff on 408/409/429/5xx, timeouts and
dropped connections, honouring Retry-After."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, time, tzinfo
from typing import Any, Protocol
from urllib.parse import urlparse

from core.errors import LLMError, LLMNotConfigured, SpendLimitReached
from core.settings import Settings
from core.storage.store import Store, utc_now

_LOCAL_HOSTS = {"localhost", "127.0.0.1", "::1", "0.0.0.0", "host.docker.internal"}


@dataclass(frozen=True, slots=True)
class ToolCall:
    id: str
    name: str
    arguments: str  # JSON text, exactly as the model wrote it


@dataclass(frozen=True, slots=True)
class Usage:
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0
    cost_source: str = "none"  # "endpoint", "price" or "none"


@dataclass(frozen=True, slots=True)
class Reply:
    text: str
    tool_calls: list[ToolCall] = field(default_factory=list)
    usage: Usage = field(default_factory=Usage)


class ChatModel(Protocol):
    """What the biographer needs from a model: one completion, with or without tools."""

    async def complete(
        self, messages: Sequence[dict[str, Any]], tools: Sequence[dict[str, Any]] | None, mode: str
    ) -> Reply: ...


def is_local(base_url: str) -> bool:
    host = urlparse(base_url).hostname or ""
    return host in _LOCAL_HOSTS or host.endswith(".local")


def day_start_utc(zone: tzinfo, now: datetime | None = None) -> str:
    """Midnight of today in the owner's zone, as a UTC ISO string (usage rows are in UTC)."""
    local = (now or datetime.now(UTC)).astimezone(zone)
    midnight = datetime.combine(local.date(), time(0), tzinfo=zone)
    return midnight.astimezone(UTC).isoformat(timespec="seconds")


class Ledger:
    """Token use and spend, one row per model call."""

    def __init__(self, store: Store, zone: tzinfo) -> None:
        self.store = store
        self.zone = zone

    async def record(self, model: str, mode: str, usage: Usage, turn_id: int | None) -> None:
        async with self.store.transaction() as db:
            await db.execute(
                "INSERT INTO llm_usage(at, turn_id, model, mode, prompt_tokens,"
                " completion_tokens, cost_usd, cost_source) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    utc_now(),
                    turn_id,
                    model,
                    mode,
                    usage.prompt_tokens,
                    usage.completion_tokens,
                    usage.cost_usd,
                    usage.cost_source,
                ),
            )

    async def spent_since(self, since_utc: str) -> float:
        row = await self.store.fetchone(
            "SELECT COALESCE(SUM(cost_usd), 0) FROM llm_usage WHERE at >= ?", (since_utc,)
        )
        return float(row[0]) if row else 0.0

    async def spent_today(self) -> float:
        return await self.spent_since(day_start_utc(self.zone))

    async def summary(self) -> list[tuple[str, int, int, int, float]]:
        """(period, calls, prompt tokens, completion tokens, USD) for today, 30 days, all."""
        out = []
        month = datetime.now(UTC).replace(microsecond=0).timestamp() - 30 * 86400
        periods = (
            ("today", day_start_utc(self.zone)),
            ("last 30 days", datetime.fromtimestamp(month, UTC).isoformat(timespec="seconds")),
            ("all time", ""),
        )
        for label, since in periods:
            row = await self.store.fetchone(
                "SELECT COUNT(*), COALESCE(SUM(prompt_tokens), 0),"
                " COALESCE(SUM(completion_tokens), 0), COALESCE(SUM(cost_usd), 0)"
                " FROM llm_usage WHERE at >= ?",
                (since,),
            )
            assert row is not None
            out.append((label, int(row[0]), int(row[1]), int(row[2]), float(row[3])))
        return out


class OpenAIChat:
    """The `openai` client pointed at the configured endpoint. Every call is recorded."""

    def __init__(self, settings: Settings, ledger: Ledger) -> None:
        if not settings.llm_api_key and not is_local(settings.llm_base_url):
            raise LLMNotConfigured(
                "No language model is configured. Set BIOMD_LLM_API_KEY (an OpenRouter key, "
                "or your provider's) in .env, or point BIOMD_LLM_BASE_URL at a local server "
                "such as Ollama (http://localhost:11434/v1) and set BIOMD_LLM_MODEL."
            )
        from openai import AsyncOpenAI

        self.settings = settings
        self.model = settings.llm_model
        self.ledger = ledger
        self.turn_id: int | None = None
        self._openrouter = "openrouter.ai" in settings.llm_base_url
        self._client = AsyncOpenAI(
            base_url=settings.llm_base_url,
            api_key=settings.llm_api_key or "local",
            timeout=settings.llm_timeout,
            max_retries=settings.llm_max_retries,
        )

    async def check_budget(self) -> None:
        """Refuse to start a turn once today's spend has reached the limit."""
        limit = self.settings.daily_spend_limit_usd
        if limit is None:
            return
        spent = await self.ledger.spent_today()
        if spent >= limit:
            raise SpendLimitReached(
                f"Today's LLM spend is ${spent:.2f}, which has reached the daily limit of "
                f"${limit:.2f} (BIOMD_DAILY_SPEND_LIMIT_USD). New turns start again tomorrow, "
                "or raise the limit."
            )

    async def complete(
        self, messages: Sequence[dict[str, Any]], tools: Sequence[dict[str, Any]] | None, mode: str
    ) -> Reply:
        import openai

        kwargs: dict[str, Any] = {"model": self.model, "messages": list(messages)}
        if tools:
            kwargs["tools"] = list(tools)
        if self._openrouter:
            kwargs["extra_body"] = {"usage": {"include": True}}
        try:
            response = await self._client.chat.completions.create(**kwargs)
        except (openai.AuthenticationError, openai.PermissionDeniedError) as exc:
            raise LLMNotConfigured(
                f"The LLM endpoint {self.settings.llm_base_url} rejected the key "
                f"(BIOMD_LLM_API_KEY): {_reason(exc)}"
            ) from exc
        except openai.NotFoundError as exc:
            raise LLMError(
                f"The LLM endpoint does not know the model {self.model!r} (BIOMD_LLM_MODEL): "
                f"{_reason(exc)}"
            ) from exc
        except openai.APIStatusError as exc:
            raise LLMError(
                f"The LLM endpoint answered {exc.status_code} after retries: {_reason(exc)}"
            ) from exc
        except (openai.APITimeoutError, openai.APIConnectionError) as exc:
            raise LLMError(
                f"The LLM endpoint {self.settings.llm_base_url} could not be reached after "
                f"retries ({type(exc).__name__})."
            ) from exc
        except (ValueError, openai.APIResponseValidationError) as exc:  # JSONDecodeError too
            raise LLMError(
                f"The LLM endpoint {self.settings.llm_base_url} sent a reply that is not valid "
                f"JSON (cut off, or not an OpenAI-compatible answer): {str(exc)[:200]}"
            ) from exc
        reply = self._reply(response)
        await self.ledger.record(self.model, mode, reply.usage, self.turn_id)
        return reply

    def _reply(self, response: Any) -> Reply:
        if isinstance(response, str | bytes):
            raise LLMError(
                f"The LLM endpoint {self.settings.llm_base_url} sent something that is not "
                f"JSON: {str(response)[:200]!r}. Is BIOMD_LLM_BASE_URL the API's "
                "address (it usually ends in /v1)?"
            )
        choices = getattr(response, "choices", None)
        message = getattr(choices[0], "message", None) if choices else None
        if message is None:
            raise LLMError("The LLM endpoint returned no answer (no choices).")
        calls = [
            ToolCall(c.id or f"call_{i}", c.function.name, c.function.arguments or "")
            for i, c in enumerate(message.tool_calls or [])
            if getattr(c, "function", None) is not None
        ]
        return Reply(message.content or "", calls, self._usage(response.usage))

    def _usage(self, usage: Any) -> Usage:
        if usage is None:
            return Usage()
        prompt = int(usage.prompt_tokens or 0)
        completion = int(usage.completion_tokens or 0)
        reported = (usage.model_extra or {}).get("cost") if hasattr(usage, "model_extra") else None
        if isinstance(reported, int | float):
            return Usage(prompt, completion, float(reported), "endpoint")
        s = self.settings
        price = (
            prompt * s.llm_price_prompt_per_mtok + completion * s.llm_price_completion_per_mtok
        ) / 1e6
        return Usage(prompt, completion, price, "price" if price else "none")


def _reason(exc: Exception) -> str:
    body = getattr(exc, "body", None)
    if isinstance(body, dict):
        detail = body.get("error", body)
        if isinstance(detail, dict):
            return str(detail.get("message") or json.dumps(detail))[:300]
        return str(detail)[:300]
    return str(exc)[:300]
