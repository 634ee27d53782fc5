"""The biographer on the Codex CLI: a turn is one `codex exec` run, in which Codex runs the
tool loop itself with biomd's four tools (biomd/app/turn_server.py, bound to this turn and its
budget) as its only tools. Its context is the same as on any endpoint: the rules and mode
with the current bio.md (as Codex's instructions), the chat tail and the new message. What
the turn did is read back from the tool server, so revisions, the reading queue and the
report's honesty work as they do elsewhere; a report is recorded even when Codex dies."""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path
from typing import Any

from biomd.biographer.tool_state import ToolState
from biomd.biographer.tools import Toolbox
from biomd.biographer.turn import Outcome, StepFn, Turn, TurnResult, describe_call
from biomd.errors import LLMError
from biomd.models.codex import CodexCLI, prompt
from biomd.models.llm import ToolCall
from biomd.models.text_calls import visible

STATE = "state.json"  # the turn's record, as the tool server keeps it


class CodexTurn:
    """The runner of a turn on Codex: one `codex exec` run with biomd's tool server."""

    def __init__(self, codex: CodexCLI, settings: dict[str, Any]) -> None:
        """`settings` are the owner's without their secrets (Settings.without_secrets()): the
        tool server opens the same data folder with them."""
        self.codex = codex
        self.settings = settings

    async def __call__(
        self, turn: Turn, toolbox: Toolbox, result: TurnResult, on_step: StepFn | None
    ) -> Outcome:
        """Codex holds the conversation; the tool server (a process of its own) keeps the
        turn's record in state.json, which is read back here."""

        async def on_event(event: dict[str, Any]) -> None:
            """Codex's steps, told as the other backend tells them."""
            item = event.get("item")
            if on_step is None or not isinstance(item, dict):
                return
            kind = (event.get("type"), item.get("type"))
            if kind == ("item.started", "mcp_tool_call"):
                args = json.dumps(item.get("arguments") or {})
                await on_step("tool", describe_call(ToolCall("", str(item["tool"]), args)))
            elif kind == ("item.completed", "agent_message"):
                await on_step("message", visible(str(item.get("text") or ""))[:300])

        with tempfile.TemporaryDirectory(prefix="biomd-turn-") as tmp:
            folder = Path(tmp)  # made private (0700) by tempfile
            self._write_turn(folder, turn)
            run = await self.codex.run(
                prompt(turn.chat_tail, turn.message),
                turn.context.mode,
                instructions=turn.system,
                mcp={"biomd": tool_server(folder)},
                on_event=on_event,
            )
            state = _state(folder)
        result.steps = state.calls
        result.prompt_tokens = run.usage.prompt_tokens
        result.completion_tokens = run.usage.completion_tokens
        result.budget_exhausted = state.calls > turn.context.steps
        result.timed_out = run.timed_out
        report = visible(run.text)
        if run.failure and not report:
            result.report = f"(No report: {run.failure})"
            raise LLMError(run.failure)
        return Outcome(report, state, f"({run.failure})" if run.failure else "")

    def _write_turn(self, folder: Path, turn: Turn) -> None:
        spec = {"settings": self.settings, **turn.context.to_json()}
        path = folder / "turn.json"
        path.write_text(json.dumps(spec), encoding="utf-8")
        path.chmod(0o600)


def tool_server(folder: Path) -> dict[str, Any]:
    """Codex's configuration of biomd's tool server for one turn."""
    return {
        "command": sys.executable,
        "args": ["-m", "biomd.app.turn_server", str(folder)],
        "required": True,  # else a slow start leaves it out of the first request
        "default_tools_approval_mode": "approve",  # edit_profile is not read-only
        "startup_timeout_sec": 60,
        "tool_timeout_sec": 900,
    }


def _state(folder: Path) -> ToolState:
    try:
        return ToolState.from_json((folder / STATE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return ToolState()
