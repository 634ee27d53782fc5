"""A tool a model can call, defined once: its name, what it does, its argument model and its
handler. Every surface is made from that one definition: the OpenAI `tools` schemas, the
argument names that tell a tool call written as text which tool it meant, and the tools of an
MCP server (Codex's per-turn server, and the memory other assistants read)."""

from __future__ import annotations

import inspect
import json
from collections.abc import Awaitable, Callable, Mapping, Sequence
from contextvars import ContextVar
from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated, Any, Generic, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer

T = TypeVar("T")

caller: ContextVar[str] = ContextVar("caller", default="")
"""Who called the tool now running over MCP, as its client named itself ('' elsewhere)."""


class ToolArgs(BaseModel):
    """A tool's arguments: unknown ones are refused, aliases accepted."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)


@dataclass(frozen=True)
class Tool(Generic[T]):
    """One tool. `run` is called with the object the tool works on (a turn's toolbox, the
    memory) and the validated arguments, and returns the text the model reads."""

    name: str
    description: str
    args: type[ToolArgs]
    run: Callable[[T, Any], Awaitable[str]]
    read_only: bool = True
    destructive: bool = False


class BadArguments(ValueError):
    """A call whose arguments don't fit the tool; the message says what to fix."""


def arguments(tool: Tool[Any], raw: str | Mapping[str, Any]) -> ToolArgs:
    """The call's arguments (JSON text or an object), validated; BadArguments if they don't
    fit, with a message a model can act on."""
    if isinstance(raw, str):
        try:
            raw = json.loads(raw or "{}")
        except json.JSONDecodeError as exc:
            raise BadArguments(
                f"the arguments are not valid JSON ({exc.msg}). Send one JSON object."
            ) from None
    if not isinstance(raw, Mapping):
        raise BadArguments("the arguments must be a JSON object.")
    try:
        return tool.args.model_validate(dict(raw))
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in e['loc']) or 'arguments'}: {e['msg']}" for e in exc.errors()
        )
        raise BadArguments(f"wrong arguments for {tool.name}: {problems}.") from None


def schema(args: type[ToolArgs]) -> dict[str, Any]:
    """The JSON schema of an argument model, without pydantic's titles."""
    out = args.model_json_schema()
    out.pop("title", None)
    for prop in out.get("properties", {}).values():
        prop.pop("title", None)
    out["additionalProperties"] = False
    return out


def openai_tools(tools: Sequence[Tool[Any]]) -> list[dict[str, Any]]:
    """The `tools` of a chat completion request."""
    return [
        {
            "type": "function",
            "function": {
                "name": t.name,
                "description": t.description,
                "parameters": schema(t.args),
            },
        }
        for t in tools
    ]


def parameter_names(tools: Sequence[Tool[Any]]) -> dict[str, list[str]]:
    """Each tool's argument names, for telling which tool bare JSON arguments were meant for."""
    return {t.name: list(t.args.model_fields) for t in tools}


def serve(
    server: MCPServer,
    tools: Sequence[Tool[Any]],
    call: Callable[[Tool[Any], dict[str, Any]], Awaitable[str]],
) -> None:
    """Offer `tools` on an MCP server. Each is described by its argument model (names, types,
    defaults and descriptions; the limits are checked by `call`), and `call` answers it with
    the arguments as sent, while `caller` holds the client's name."""
    from mcp.server.mcpserver import Context
    from mcp.types import ToolAnnotations

    for tool in tools:
        annotations = ToolAnnotations(
            read_only_hint=tool.read_only,
            destructive_hint=None if tool.read_only else tool.destructive,
            idempotent_hint=None if tool.read_only else False,
            open_world_hint=False,
        )
        server.add_tool(
            _endpoint(tool, call, Context),
            name=tool.name,
            description=tool.description,
            annotations=annotations,
            structured_output=False,
        )


def _endpoint(
    tool: Tool[Any], call: Callable[[Tool[Any], dict[str, Any]], Awaitable[str]], context: type
) -> Callable[..., Awaitable[str]]:
    """A function whose signature is the tool's arguments (plus the MCP context), as the SDK
    reads a tool's schema from a signature."""
    fields = tool.args.model_fields
    params = [
        inspect.Parameter(
            name,
            inspect.Parameter.KEYWORD_ONLY,
            annotation=Annotated[field.annotation, Field(description=field.description)],
            default=inspect.Parameter.empty if field.is_required() else field.default,
        )
        for name, field in fields.items()
    ]
    params.append(inspect.Parameter("ctx", inspect.Parameter.KEYWORD_ONLY, annotation=context))

    async def endpoint(**kwargs: Any) -> str:
        ctx = kwargs.pop("ctx", None)
        client = ""
        params_of = getattr(getattr(ctx, "session", None), "client_params", None)
        if params_of is not None:
            client = params_of.client_info.name or ""
        token = caller.set(client)
        try:
            return await call(tool, kwargs)
        finally:
            caller.reset(token)

    endpoint.__name__ = tool.name
    endpoint.__signature__ = inspect.Signature(params, return_annotation=str)  # type: ignore[attr-defined]
    endpoint.__annotations__ = {p.name: p.annotation for p in params} | {"return": str}
    return endpoint
