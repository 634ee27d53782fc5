"""The language model: any OpenAI-compatible chat endpoint (OpenRouter by default, or a
local server such as Ollama). Every call is metered in the ledger and held to its limit."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from biomd.endpoints import Endpoint
from biomd.errors import ContextExceeded, LLMError, LLMRequestRefused
from biomd.models import endpoint
from biomd.models.context_window import context_tokens, server_tokens
from biomd.models.ledger import Ledger, Usage
from biomd.models.streaming import assemble, tool_params


@dataclass(frozen=True, slots=True)
class ToolCall:
    id: str
    name: str
    arguments: str  # JSON text, exactly as the model wrote it


@dataclass(frozen=True, slots=True)
class Reply:
    text: str
    tool_calls: list[ToolCall] = field(default_factory=list)
    usage: Usage = field(default_factory=Usage)
    finish_reason: str = "stop"  # "length" when the reply was cut off at max_tokens


class ChatModel(Protocol):
    """What the biographer needs from a model: one completion, with or without tools."""

    async def complete(
        self,
        messages: Sequence[dict[str, Any]],
        tools: Sequence[dict[str, Any]] | None,
        mode: str,
        max_tokens: int | None = None,
    ) -> Reply: ...

    async def context_tokens(self) -> int: ...


class JsonModel(Protocol):
    """What the reader needs: a reply in JSON under a schema (the endpoint's structured
    output where it has one), metered and held to the spend limit."""

    async def complete_json(
        self,
        messages: Sequence[dict[str, Any]],
        schema: dict[str, Any],
        mode: str,
        max_tokens: int | None = None,
        steady: bool = False,
    ) -> Reply: ...

    async def context_tokens(self) -> int: ...

    async def count_tokens(self, text: str) -> int | None:
        """Tokens in `text` for this model, or None where that can't be known."""
        ...

    async def check_budget(self) -> None: ...


@runtime_checkable
class WeighsYes(Protocol):
    """A model whose chance of answering "yes" rather than "no" can be read (the mirror's
    questions: a small model's yes/no is its answers' order, its probabilities are not)."""

    @property
    def weighs(self) -> bool | None:
        """Whether its chances can be read: None until asked once."""
        ...

    async def chance_of_yes(
        self, messages: Sequence[dict[str, Any]], mode: str
    ) -> tuple[float | None, Usage]: ...


class TurnModel(ChatModel, JsonModel, Protocol):
    """A model a turn can run on: one held to the spend limit (its calls are counted against
    the turn they are made in: turn_meter.py), that can reply under a JSON schema (a reading
    turn's edits: reading_turn.py)."""

    async def check_budget(self) -> None: ...


class OpenAIChat:
    """The `openai` client pointed at one endpoint. Every call is recorded."""

    def __init__(self, ep: Endpoint, ledger: Ledger) -> None:
        endpoint.require_key(ep)
        self.endpoint = ep
        self.model = ep.model
        self.ledger = ledger
        self._client = endpoint.client(ep)
        self._context: int | None = None
        self._structured: bool | None = None  # whether the endpoint takes response_format
        self._tokenizes: bool | None = None  # whether the server counts tokens (/tokenize)
        self._logprobs: bool | None = None  # whether it gives log probabilities
        self._chars_per_token: float | None = None  # the fewest its calls have shown

    async def count_tokens(self, text: str) -> int | None:
        """Tokens in `text`: by the server's own tokenizer where it has one (llama.cpp), else
        from the fewest characters per token its calls have been counted at, else None."""
        if self._tokenizes is not False and self.endpoint.is_local:
            n = await server_tokens(self.endpoint, text)
            self._tokenizes = n is not None
            if n is not None:
                return n
        if self._chars_per_token:
            return math.ceil(len(text) / self._chars_per_token)
        return None

    def _learn(self, sent: Sequence[dict[str, Any]], usage: Usage) -> None:
        """Characters per token, from a call the endpoint counted."""
        if usage.cost_source == "estimate" or usage.prompt_tokens <= 0:
            return
        chars = sum(len(str(m.get("content") or "")) for m in sent)
        ratio = chars / usage.prompt_tokens
        if ratio > 0.5 and (self._chars_per_token is None or ratio < self._chars_per_token):
            self._chars_per_token = ratio

    async def context_tokens(self) -> int:
        """The model's context window, asked of the endpoint once."""
        if self._context is None:
            self._context = await context_tokens(self.endpoint)
        return self._context

    async def check_budget(self) -> None:
        """Refuse to start a turn once today's spend has reached the limit."""
        await self.ledger.check_limit()

    async def complete(
        self,
        messages: Sequence[dict[str, Any]],
        tools: Sequence[dict[str, Any]] | None,
        mode: str,
        max_tokens: int | None = None,
        response_format: dict[str, Any] | None = None,
        temperature: float | None = None,
    ) -> Reply:
        sent = list(messages)
        if endpoint.takes_cache_markers(self.model):
            sent = endpoint.cache_marked(sent)
        kwargs: dict[str, Any] = {
            "model": self.model,
            "messages": sent,
            "max_tokens": max_tokens or self.endpoint.max_tokens,
        }
        if tools:
            kwargs["tools"] = list(tools)
        if response_format:
            kwargs["response_format"] = response_format
        if temperature is not None:
            kwargs["temperature"] = temperature
        if extra := endpoint.extra_body(self.endpoint):
            kwargs["extra_body"] = extra
        if self.endpoint.stream:
            reply = await self._streamed(kwargs, tools)
        else:
            async with endpoint.plain_errors(self.endpoint):
                response = await self._client.chat.completions.create(**kwargs)
            reply = self._reply(response)
        if not tools:  # a schema sent beside the messages would skew the count
            self._learn(sent, reply.usage)
        await self.ledger.record(self.model, mode, reply.usage)
        return reply

    async def complete_json(
        self,
        messages: Sequence[dict[str, Any]],
        schema: dict[str, Any],
        mode: str,
        max_tokens: int | None = None,
        steady: bool = False,
    ) -> Reply:
        """A reply under `schema`: OpenAI's json_schema response format, which llama.cpp,
        Ollama and vLLM take too; a server that refuses it is asked again without, and
        remembered, and the reply is parsed tolerantly by the caller. `steady` asks a local
        server for its likeliest answer (temperature 0: the same question, the same answer);
        a cloud model keeps its own setting (some refuse any other)."""
        temperature = 0.0 if steady and self.endpoint.is_local else None
        if self._structured is not False:
            fmt = {
                "type": "json_schema",
                "json_schema": {"name": "reply", "schema": schema, "strict": True},
            }
            try:
                reply = await self.complete(messages, None, mode, max_tokens, fmt, temperature)
            except ContextExceeded:
                raise  # too long with or without a schema: the caller makes it smaller
            except LLMRequestRefused:
                if self._structured:
                    raise
            else:
                self._structured = True
                return reply
        reply = await self.complete(messages, None, mode, max_tokens, None, temperature)
        self._structured = False
        return reply

    @property
    def weighs(self) -> bool | None:
        return self._logprobs

    async def chance_of_yes(
        self, messages: Sequence[dict[str, Any]], mode: str
    ) -> tuple[float | None, Usage]:
        """P(yes) / (P(yes) + P(no)) for the reply's first word, from the endpoint's log
        probabilities (llama.cpp, vLLM, OpenAI give them), at temperature 0 on a local
        model; None where the endpoint gives none (then it is not asked again). Metered."""
        none = Usage(0, 0, 0.0)
        if self._logprobs is False:
            return None, none
        kwargs: dict[str, Any] = {
            "model": self.model,
            "messages": list(messages),
            "max_tokens": 1,
            "logprobs": True,
            "top_logprobs": 10,
        }
        if self.endpoint.is_local:
            kwargs["temperature"] = 0.0
        if extra := endpoint.extra_body(self.endpoint):
            kwargs["extra_body"] = extra
        try:
            async with endpoint.plain_errors(self.endpoint):
                response = await self._client.chat.completions.create(**kwargs)
        except ContextExceeded:
            raise
        except LLMRequestRefused:
            self._logprobs = False
            return None, none
        usage = endpoint.usage_of(getattr(response, "usage", None), self.endpoint)
        await self.ledger.record(self.model, mode, usage)
        chance = _chance_of_yes(response)
        self._logprobs = chance is not None
        return chance, usage

    async def _streamed(
        self, kwargs: dict[str, Any], tools: Sequence[dict[str, Any]] | None
    ) -> Reply:
        """The reply streamed (see biomd.models.streaming), which lets a text tool call end
        the reply as soon as it is complete."""
        kwargs = kwargs | {"stream": True, "stream_options": {"include_usage": True}}
        async with endpoint.plain_errors(self.endpoint):
            stream = await self._client.chat.completions.create(**kwargs)
            try:
                got = await assemble(stream, tool_params(tools))
            finally:
                await stream.close()
        if not got.chunks:
            raise LLMError(
                f"The LLM endpoint {self.endpoint.base_url} returned no answer (no "
                "choices, or a body that is not a stream of JSON events)."
            )
        calls = [
            ToolCall(c["id"] or f"call_{i}", c["name"], c["arguments"])
            for i, c in sorted(got.calls.items())
            if c["name"]
        ]
        usage = endpoint.usage_of(got.usage, self.endpoint)
        if got.usage is None:  # cut short, or a server that does not count
            usage = endpoint.estimated(kwargs["messages"], got.text, self.endpoint)
        return Reply(got.text, calls, usage, got.finish_reason or "stop")

    def _reply(self, response: Any) -> Reply:
        endpoint.check_json(response, self.endpoint)
        choices = getattr(response, "choices", None)
        first = choices[0] if choices else None
        message = getattr(first, "message", None)
        if message is None:
            raise LLMError("The LLM endpoint returned no answer (no choices).")
        calls = [
            ToolCall(c.id or f"call_{i}", c.function.name, c.function.arguments or "")
            for i, c in enumerate(message.tool_calls or [])
            if getattr(c, "function", None) is not None
        ]
        usage = endpoint.usage_of(response.usage, self.endpoint)
        finish = str(getattr(first, "finish_reason", None) or "stop")
        return Reply(message.content or "", calls, usage, finish)


def _chance_of_yes(response: Any) -> float | None:
    """P(yes) / (P(yes) + P(no)) among the first token's likeliest, or None without them."""
    choices = getattr(response, "choices", None) or []
    logprobs = getattr(choices[0], "logprobs", None) if choices else None
    tokens = getattr(logprobs, "content", None) or []
    if not tokens:
        return None
    yes = no = 0.0
    for top in getattr(tokens[0], "top_logprobs", None) or []:
        word = str(getattr(top, "token", "")).strip().strip("\"'{:").lower()
        if word == "yes":
            yes += math.exp(float(top.logprob))
        elif word == "no":
            no += math.exp(float(top.logprob))
    return yes / (yes + no) if yes + no > 0 else None
