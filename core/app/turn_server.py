"""The biographer's four tools (search, grep, read_source, edit_profile) as an MCP server
bound to one turn, for a Codex run: Codex starts it over stdio, and it is the only thing the
turn can use. It enforces the turn's step budget (past it, every tool answers "budget spent:
write your report now"), and after each call writes what the turn has done so far (edits,
refusals, what it read and saw) to state.json for the biographer that started the run.

    python -m core.app.turn_server <turn folder>     (turn.json in it says which turn)"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path
from typing import Any

BUDGET_SPENT = "budget spent: write your report now, from what you have found."


def spec(folder: Path) -> dict[str, Any]:
    return dict(json.loads((folder / "turn.json").read_text(encoding="utf-8")))


def write_state(folder: Path, state: dict[str, Any]) -> None:
    """state.json, replaced whole (the biographer may read it at any moment)."""
    tmp = folder / f".state-{os.getpid()}.tmp"
    tmp.write_text(json.dumps(state), encoding="utf-8")
    tmp.replace(folder / "state.json")


async def serve(folder: Path) -> None:
    from mcp.server.mcpserver import MCPServer
    from mcp.types import ToolAnnotations

    from core.app.engine import Engine
    from core.biographer.tools import Toolbox
    from core.settings import Settings

    turn = spec(folder)
    settings = Settings(_env_file=None, **turn["settings"])  # type: ignore[call-arg]
    engine = await Engine.open(settings, check_model=False)
    toolbox = Toolbox(
        engine.searcher,
        engine.profile,
        settings.read_max_chars,
        int(turn["turn_id"]),
        str(turn["mode"]),
        chat_dates=frozenset(turn.get("chat_dates") or []),
        document_id=turn.get("document_id"),
    )
    steps = {"used": 0}
    budget = int(turn["steps"])
    server = MCPServer(name="biomd", log_level="WARNING")
    reads = ToolAnnotations(read_only_hint=True, open_world_hint=False)
    edits = ToolAnnotations(read_only_hint=False, destructive_hint=True, open_world_hint=False)

    async def call(name: str, args: dict[str, Any]) -> str:
        steps["used"] += 1
        if steps["used"] > budget:
            out = BUDGET_SPENT
        else:
            out = await toolbox.run(name, json.dumps(args))
        write_state(
            folder,
            {
                "steps": steps["used"],
                "edits": toolbox.edits,
                "refused": toolbox.refused,
                "sections_changed": toolbox.sections_changed,
                "seen": sorted(toolbox.seen),
                "read": {str(k): v for k, v in toolbox.read.items()},
            },
        )
        return out

    @server.tool(annotations=reads, structured_output=False)
    async def search(query: str, limit: int = 8) -> str:
        """Hybrid search (meaning and keywords) over every source; passages with source id."""
        return await call("search", {"query": query, "limit": limit})

    @server.tool(annotations=reads, structured_output=False)
    async def grep(pattern: str, offset: int = 0) -> str:
        """Every mention of a word or phrase across all sources, with the total count."""
        return await call("grep", {"pattern": pattern, "offset": offset})

    @server.tool(annotations=reads, structured_output=False)
    async def read_source(document_id: int, offset: int = 0, length: int = 4000) -> str:
        """Read an exact slice of one source's text by id; says where to continue."""
        return await call(
            "read_source", {"document_id": document_id, "offset": offset, "length": length}
        )

    @server.tool(annotations=edits, structured_output=False)
    async def edit_profile(
        new_text: str, old_text: str = "", section: str = "", reason: str = ""
    ) -> str:
        """Edit bio.md: replace old_text (copied from bio.md, matching once) with new_text;
        empty old_text appends to the end of the section; empty new_text deletes. Cite the
        sources you read, e.g. [#3]."""
        args = {"new_text": new_text, "old_text": old_text, "section": section, "reason": reason}
        return await call("edit_profile", args)

    write_state(
        folder,
        {"steps": 0, "edits": 0, "refused": [], "sections_changed": [], "seen": [], "read": {}},
    )
    try:
        await server.run_stdio_async()
    finally:
        await engine.close()


def main(argv: list[str] | None = None) -> None:
    args = argv if argv is not None else sys.argv[1:]
    if len(args) != 1:
        raise SystemExit("usage: python -m core.app.turn_server <turn folder>")
    asyncio.run(serve(Path(args[0])))


if __name__ == "__main__":
    main()
