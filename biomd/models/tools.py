"""A tool a model can call, defined once: one async function, whose name is the tool's, whose
docstring is its description and whose parameters after the first (typed, with a pydantic
`Field` for descriptions, limits and aliases) are its arguments. The first parameter is what
the tool works on (a turn's toolbox, the memory other assistants read).

    @tool
    async def grep(desk: Desk, pattern: Annotated[str, Field(description="A word.")]) -> str:
        ...  # its docstring: what the model is told the tool does

Every surface is made from that one definition: the OpenAI `tools` schemas, the argument
names that tell a tool call written as text which tool it meant, and the tools of an MCP
server (Codex's per-turn server, and the memory other assistants read), all listing the same
JSON schema. A call's outcome is a `ToolResult`: `Done` with the text the caller reads, or
`Failed` with what went wrong; each surface says a failure its own way."""

from __future__ import annotations

import inspect
import json
import typing
from collections.abc import Awaitable, Callable, Mapping, Sequence
from contextvars import ContextVar
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Concatenate, Generic, TypeVar, overload

from pydantic import AliasChoices, BaseModel, ConfigDict, Field, ValidationError, create_model

from biomd.errors import BiomdError

if TYPE_CHECKING:
    from mcp.server.mcpserver.tools import Tool as MCPTool

T = TypeVar("T", contravariant=True)  # what a tool works on: a tool for any desk fits a toolbox
S = TypeVar("S")

caller: ContextVar[str] = ContextVar("caller", default="")
"""Who called the tool now running over MCP, as its client named itself ('' elsewhere)."""


class ToolArgs(BaseModel):
    """A tool's arguments: unknown ones are refused, aliases accepted."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)


def aliased(*names: str, description: str) -> Any:
    """The `Field` of an argument a model may send under any of `names`, its own first."""
    return Field(validation_alias=AliasChoices(*names), description=description)


class BadArguments(ValueError):
    """A call whose arguments don't fit the tool; the message says what to fix."""


@dataclass(frozen=True)
class Done:
    """A call that worked: the text its caller reads."""

    text: str


@dataclass(frozen=True)
class Failed:
    """A call that did not work: what was wrong, for the caller to put right."""

    message: str


ToolResult = Done | Failed

Run = Callable[[T, ToolArgs], Awaitable[str | Done]]


@dataclass(frozen=True)
class Tool(Generic[T]):
    """One tool, as `tool` makes it from a function. `run` is called with the object the
    tool works on and the checked arguments, and returns the text the caller reads (or a
    `Done` that carries more, for a surface that shows it its own way)."""

    name: str
    description: str
    args: type[ToolArgs]
    run: Run[T]
    read_only: bool = True
    destructive: bool = False

    def arguments(self, raw: str | Mapping[str, Any]) -> ToolArgs:
        """The call's arguments (JSON text or an object), checked; BadArguments if they don't
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
            return self.args.model_validate(dict(raw))
        except ValidationError as exc:
            problems = "; ".join(
                f"{'.'.join(str(p) for p in e['loc']) or 'arguments'}: {e['msg']}"
                for e in exc.errors()
            )
            raise BadArguments(f"wrong arguments for {self.name}: {problems}.") from None

    async def call(self, target: T, args: ToolArgs) -> ToolResult:
        """Run with checked arguments; what the tool refuses (BadArguments, a BiomdError) is
        a `Failed`."""
        try:
            out = await self.run(target, args)
        except BadArguments as exc:
            return Failed(str(exc))
        except BiomdError as exc:
            return Failed(exc.user_message)
        return out if isinstance(out, Done) else Done(out)

    async def __call__(self, target: T, raw: str | Mapping[str, Any]) -> ToolResult:
        """One call, from its arguments as sent."""
        try:
            args = self.arguments(raw)
        except BadArguments as exc:
            return Failed(str(exc))
        return await self.call(target, args)


Function = Callable[Concatenate[S, ...], Awaitable[str | Done]]


@overload
def tool(fn: Function[S], /) -> Tool[S]: ...


@overload
def tool(
    *, read_only: bool = True, destructive: bool = False
) -> Callable[[Function[S]], Tool[S]]: ...


def tool(
    fn: Function[S] | None = None, /, *, read_only: bool = True, destructive: bool = False
) -> Tool[S] | Callable[[Function[S]], Tool[S]]:
    """The tool `fn` defines (a decorator): `@tool` for one that only reads, `@tool(
    read_only=False, destructive=…)` for one that writes."""

    def make(fn: Function[S]) -> Tool[S]:
        args = _arguments_model(fn)
        names = list(args.model_fields)

        async def run(target: S, given: ToolArgs) -> str | Done:
            return await fn(target, **{n: getattr(given, n) for n in names})

        description = " ".join(inspect.cleandoc(fn.__doc__ or "").split())
        return Tool(fn.__name__, description, args, run, read_only, destructive)

    return make if fn is None else make(fn)


def _arguments_model(fn: Callable[..., Any]) -> type[ToolArgs]:
    """A model of `fn`'s parameters after the first, with their annotations and defaults."""
    hints = typing.get_type_hints(fn, include_extras=True)
    params = list(inspect.signature(fn).parameters.values())[1:]
    fields: dict[str, Any] = {
        p.name: (hints[p.name], ... if p.default is inspect.Parameter.empty else p.default)
        for p in params
    }
    title = "".join(part.title() for part in fn.__name__.split("_"))
    return create_model(f"{title}Args", __base__=ToolArgs, **fields)


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


def mcp_tools(
    tools: Sequence[Tool[S]],
    call: Callable[[Tool[S], dict[str, Any]], Awaitable[ToolResult]],
) -> list[MCPTool]:
    """`tools` as an MCP server's (the SDK's MCPServer takes them as `tools=`): each listed
    with the schema every surface offers, and answered by `call` with the arguments as sent
    (the tool checks them), while `caller` holds the client's name; a `Failed` is an error
    result."""
    from mcp.server.mcpserver import Context
    from mcp.server.mcpserver.tools import Tool as MCPTool
    from mcp.server.mcpserver.utilities.func_metadata import ArgModelBase, FuncMetadata
    from mcp.types import CallToolResult, TextContent, ToolAnnotations

    class AsSent(ArgModelBase):
        """The arguments as the client sent them, for the tool's own model to check."""

        model_config = ConfigDict(extra="allow")

        def model_dump_one_level(self) -> dict[str, Any]:
            return {"arguments": dict(self.model_extra or {})}

    def endpoint(t: Tool[S]) -> Callable[..., Awaitable[CallToolResult]]:
        async def answer(arguments: dict[str, Any], ctx: Context) -> CallToolResult:
            params = getattr(getattr(ctx, "session", None), "client_params", None)
            token = caller.set((params.client_info.name or "") if params is not None else "")
            try:
                result = await call(t, arguments)
            finally:
                caller.reset(token)
            text = result.text if isinstance(result, Done) else result.message
            return CallToolResult(
                content=[TextContent(type="text", text=text)],
                is_error=isinstance(result, Failed),
            )

        return answer

    return [
        MCPTool(
            fn=endpoint(t),
            name=t.name,
            title=None,
            description=t.description,
            parameters=schema(t.args),
            fn_metadata=FuncMetadata(arg_model=AsSent),
            is_async=True,
            context_kwarg="ctx",
            annotations=ToolAnnotations(
                read_only_hint=t.read_only,
                destructive_hint=None if t.read_only else t.destructive,
                idempotent_hint=None if t.read_only else False,
                open_world_hint=False,
            ),
        )
        for t in tools
    ]
