"""The biographer on the Codex CLI: a turn is one `codex exec` run, in which Codex runs the
tool loop itself with biomd's four tools (core/app/turn_server.py, bound to this turn and its
budget) as its only tools. Its context is the same as on any endpoint: the rules and mode
with the current bio.md (as Codex's instructions), the chat tail and the new message. What
the turn did is read back from the tool server, so revisions, the reading queue and the
report's honesty work as they do elsewhere; a report is recorded even when Codex dies."""

from __future__ import annotations

import json
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from core.biographer.agent import Biographer, Mode, StepFn, TurnResult, describe_call, honest
from core.biographer.prompts import system_prompt
from core.errors import LLMError
from core.models.codex import CodexCLI
from core.models.llm import Reply, ToolCall
from core.models.text_calls import visible
from core.settings import Settings

SECRETS = {"llm_api_key", "telegram_token", "discord_token"}


class CodexBiographer(Biographer):
    """Runs turns as Codex runs."""

    def __init__(
        self, codex: CodexCLI, settings: Settings, chat_dates: frozenset[str], **kw: Any
    ) -> None:
        super().__init__(**kw)
        self.codex = codex
        self.settings = settings
        self.chat_dates = chat_dates

    async def run(
        self,
        mode: Mode,
        message: str,
        *,
        steps: int,
        chat_tail: Sequence[dict[str, str]] = (),
        document_id: int | None = None,
        on_step: StepFn | None = None,
    ) -> TurnResult:
        await self.model.check_budget()
        turn_id = await self._start(mode, message, document_id)
        result = TurnResult(turn_id, mode, "", 0, 0, document_id=document_id)
        try:
            with tempfile.TemporaryDirectory(prefix="biomd-turn-") as tmp:
                folder = Path(tmp)  # made private (0700) by tempfile
                self._write_turn(folder, turn_id, mode, steps, document_id)
                bio = await self._load_bio()

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

                run = await self.codex.run(
                    prompt(chat_tail, message),
                    mode,
                    turn_id,
                    instructions=system_prompt(mode, bio, self.bio_budget, self.owner_names),
                    mcp={"biomd": tool_server(folder)},
                    on_event=on_event,
                )
                state = _state(folder)
        except BaseException as exc:
            await self._finish(turn_id, result, "failed", str(exc)[:500])
            raise
        result.steps = int(state.get("steps", 0))
        result.prompt_tokens = run.usage.prompt_tokens
        result.completion_tokens = run.usage.completion_tokens
        result.edits = int(state.get("edits", 0))
        result.refused = list(state.get("refused", []))
        result.sections_changed = list(state.get("sections_changed", []))
        result.seen = {int(i) for i in state.get("seen", [])}
        result.read = {
            int(k): [(int(r[0]), int(r[1])) for r in v] for k, v in state.get("read", {}).items()
        }
        result.budget_exhausted = result.steps > steps
        result.timed_out = run.timed_out
        report = visible(run.text)
        if run.failure and not report:
            result.report = f"(No report: {run.failure})"
            await self._finish(turn_id, result, "failed", run.failure)
            raise LLMError(run.failure)
        report = honest(report or "(The biographer ended the turn without a word.)", result.edits)
        if result.refused:
            n = len(result.refused)
            report += f"\n\n(biomd refused {n} edit{'' if n == 1 else 's'}: "
            report += "; ".join(dict.fromkeys(result.refused)) + ".)"
        if run.failure:
            report += f"\n\n({run.failure})"
        result.report = report
        await self._finish(turn_id, result, "done", None)
        if on_step:
            await on_step("report", report)
        return result

    def _write_turn(
        self, folder: Path, turn_id: int, mode: str, steps: int, document_id: int | None
    ) -> None:
        settings = self.settings.model_dump(mode="json", exclude=SECRETS)
        turn = {
            "settings": settings,
            "turn_id": turn_id,
            "mode": mode,
            "steps": steps,
            "chat_dates": sorted(self.chat_dates),
            "document_id": document_id,
        }
        path = folder / "turn.json"
        path.write_text(json.dumps(turn), encoding="utf-8")
        path.chmod(0o600)


class CodexChat:
    """Codex as a plain model, for work with no tools (consolidation): one run per call."""

    def __init__(self, codex: CodexCLI) -> None:
        self.codex = codex
        self.turn_id: int | None = None

    async def check_budget(self) -> None:
        if self.codex.ledger is not None:
            await self.codex.ledger.check_limit()

    async def context_tokens(self) -> int:
        return self.codex.settings.llm_context_tokens or 200_000

    async def complete(
        self,
        messages: Sequence[dict[str, Any]],
        tools: Sequence[dict[str, Any]] | None,
        mode: str,
        max_tokens: int | None = None,
    ) -> Reply:
        system = "\n\n".join(str(m.get("content") or "") for m in messages if m["role"] == "system")
        rest = [m for m in messages if m["role"] != "system"]
        run = await self.codex.run(
            prompt(rest[:-1], str(rest[-1].get("content") or "") if rest else ""),
            mode,
            self.turn_id,
            instructions=system or None,
        )
        if run.failure and not run.messages:
            raise LLMError(run.failure)
        return Reply(run.text, [], run.usage, "stop")


def tool_server(folder: Path) -> dict[str, Any]:
    """Codex's configuration of biomd's tool server for one turn."""
    return {
        "command": sys.executable,
        "args": ["-m", "core.app.turn_server", str(folder)],
        "required": True,  # else a slow start leaves it out of the first request
        "default_tools_approval_mode": "approve",  # edit_profile is not read-only
        "startup_timeout_sec": 60,
        "tool_timeout_sec": 900,
    }


def prompt(chat_tail: Sequence[dict[str, Any]], message: str) -> str:
    """The chat tail and the new message, as one prompt."""
    if not chat_tail:
        return message
    earlier = "\n\n".join(
        f"{'Owner' if m['role'] == 'user' else 'You'}: {m.get('content') or ''}" for m in chat_tail
    )
    return f"Our conversation so far:\n\n{earlier}\n\nThe owner now says:\n\n{message}"


def _state(folder: Path) -> dict[str, Any]:
    try:
        return dict(json.loads((folder / "state.json").read_text(encoding="utf-8")))
    except (OSError, ValueError):
        return {}
