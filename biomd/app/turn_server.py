"""The biographer's tools (biomd.biographer.tools.REGISTRY) as an MCP server bound to one
turn, for a Codex run: Codex starts it over stdio, and it is the only thing the turn can use.
It enforces the turn's step budget (past it, every tool answers BUDGET_SPENT), answers a call
that failed as an MCP error result, and after each call writes what the turn has done so far
(edits, refusals, what it read and saw) to state.json for the biographer that started the
run.

    python -m biomd.app.turn_server <turn folder>     (turn.json in it says which turn)"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from biomd.app.engine import Engine
from biomd.biographer.codex_turn import STATE
from biomd.biographer.prompts import BUDGET_SPENT
from biomd.biographer.tool_state import ToolState
from biomd.biographer.tools import REGISTRY, Toolbox
from biomd.biographer.turn_context import TurnContext
from biomd.models.tools import Done, Tool, ToolResult, mcp_tools
from biomd.settings import Settings

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer


def spec(folder: Path) -> dict[str, Any]:
    return dict(json.loads((folder / "turn.json").read_text(encoding="utf-8")))


def write_state(folder: Path, state: ToolState) -> None:
    """The turn's record, replaced whole (the biographer may read it at any moment)."""
    tmp = folder / f".state-{os.getpid()}.tmp"
    tmp.write_text(state.to_json(), encoding="utf-8")
    tmp.replace(folder / STATE)


def build(folder: Path, toolbox: Toolbox, budget: int) -> MCPServer:
    """The server: the registry's tools on `toolbox`, within `budget` calls, the record
    written to `folder` after each."""
    from mcp.server.mcpserver import MCPServer

    async def call(tool: Tool[Toolbox], args: dict[str, Any]) -> ToolResult:
        """One call, within the turn's budget; the record is written after each."""
        toolbox.state.calls += 1
        if toolbox.state.calls > budget:
            result: ToolResult = Done(BUDGET_SPENT)
        else:
            result = await toolbox.run(tool.name, args)
        write_state(folder, toolbox.state)
        return result

    return MCPServer(name="biomd", log_level="WARNING", tools=mcp_tools(REGISTRY, call))


async def serve(folder: Path) -> None:
    turn = spec(folder)
    settings = Settings(_env_file=None, **turn["settings"])
    engine = await Engine.open(settings)
    context = TurnContext.from_json(turn)
    toolbox = engine.biographer.toolbox(context)
    server = build(folder, toolbox, context.steps)
    write_state(folder, toolbox.state)
    try:
        await server.run_stdio_async()
    finally:
        await engine.close()


def main(argv: list[str] | None = None) -> None:
    args = argv if argv is not None else sys.argv[1:]
    if len(args) != 1:
        raise SystemExit("usage: python -m biomd.app.turn_server <turn folder>")
    asyncio.run(serve(Path(args[0])))


if __name__ == "__main__":
    main()
