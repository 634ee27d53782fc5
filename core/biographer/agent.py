"""The biographer's loop: one turn is a bounded conversation with the model in which it
researches with tools and edits bio.md, then reports.

A turn sees the system prompt with the current bio.md, the tail of the chat, and the new
message; tool calls and their results live only inside the turn, which is what keeps the
context the same size for 10 sources or 10,000."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from core.biographer.prompts import BUDGET_SPENT, system_prompt
from core.biographer.tools import TOOLS, Toolbox
from core.models.llm import Reply, ToolCall
from core.storage.store import Store, utc_now

Mode = Literal["chat", "analysis", "ingest"]
StepFn = Callable[[str, str], Awaitable[None]]
"""Called as (kind, detail) while a turn runs: 'tool', 'edit', 'report'."""


class TurnModel(Protocol):
    turn_id: int | None

    async def complete(
        self, messages: Sequence[dict[str, Any]], tools: Sequence[dict[str, Any]] | None, mode: str
    ) -> Reply: ...

    async def check_budget(self) -> None: ...


@dataclass
class TurnResult:
    turn_id: int
    mode: str
    report: str
    steps: int
    edits: int
    sections_changed: list[str] = field(default_factory=list)
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0
    budget_exhausted: bool = False


def assistant_message(reply: Reply) -> dict[str, Any]:
    """The model's reply as it goes back into the conversation."""
    message: dict[str, Any] = {"role": "assistant", "content": reply.text or None}
    if reply.tool_calls:
        message["tool_calls"] = [
            {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}}
            for c in reply.tool_calls
        ]
    return message


def describe_call(call: ToolCall) -> str:
    """A one-line account of a tool call, for showing the steps as they happen."""
    try:
        args = json.loads(call.arguments or "{}")
    except json.JSONDecodeError:
        return f"{call.name}(<invalid JSON>)"
    if not isinstance(args, dict):
        return f"{call.name}(?)"
    shown = ", ".join(
        f"{k}={json.dumps(v, ensure_ascii=False)[:60]}" for k, v in args.items() if k != "new_text"
    )
    return f"{call.name}({shown})"


class Biographer:
    """Runs turns against a model, with tools over one corpus and one bio.md."""

    def __init__(
        self,
        model: TurnModel,
        toolbox: Callable[[int, str], Toolbox],
        load_bio: Callable[[], Awaitable[str]],
        store: Store,
        bio_budget: int = 30_000,
    ) -> None:
        self.model = model
        self._toolbox = toolbox
        self._load_bio = load_bio
        self.store = store
        self.bio_budget = bio_budget

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
        self.model.turn_id = turn_id
        tools = self._toolbox(turn_id, mode)
        result = TurnResult(turn_id, mode, "", 0, 0)
        try:
            bio = await self._load_bio()
            messages: list[dict[str, Any]] = [
                {"role": "system", "content": system_prompt(mode, bio, self.bio_budget)},
                *({"role": m["role"], "content": m["content"]} for m in chat_tail),
                {"role": "user", "content": message},
            ]
            report = await self._loop(messages, tools, steps, mode, result, on_step)
        except BaseException as exc:
            await self._finish(turn_id, result, "failed", str(exc)[:500])
            raise
        finally:
            self.model.turn_id = None
        if tools.refused:
            report += "\n\n(biomd refused " + "; ".join(tools.refused) + ".)"
        result.report = report
        result.edits = tools.edits
        result.sections_changed = tools.sections_changed
        await self._finish(turn_id, result, "done", None)
        if on_step:
            await on_step("report", report)
        return result

    async def _loop(
        self,
        messages: list[dict[str, Any]],
        tools: Toolbox,
        steps: int,
        mode: str,
        result: TurnResult,
        on_step: StepFn | None,
    ) -> str:
        for _ in range(steps):
            reply = await self.model.complete(messages, TOOLS, mode)
            self._count(result, reply)
            if not reply.tool_calls:
                return reply.text.strip() or "(The biographer ended the turn without a word.)"
            messages.append(assistant_message(reply))
            for call in reply.tool_calls:
                if on_step:
                    await on_step("tool", describe_call(call))
                output = await tools.run(call.name, call.arguments)
                messages.append({"role": "tool", "tool_call_id": call.id, "content": output})
        result.budget_exhausted = True
        messages.append({"role": "user", "content": BUDGET_SPENT})
        reply = await self.model.complete(messages, None, mode)
        self._count(result, reply)
        return reply.text.strip() or (
            f"The research budget ({steps} steps) ran out before a report was written; "
            f"{tools.edits} edit(s) were made to bio.md."
        )

    @staticmethod
    def _count(result: TurnResult, reply: Reply) -> None:
        result.steps += 1
        result.prompt_tokens += reply.usage.prompt_tokens
        result.completion_tokens += reply.usage.completion_tokens
        result.cost_usd += reply.usage.cost_usd

    async def _start(self, mode: str, message: str, document_id: int | None) -> int:
        async with self.store.transaction() as db:
            cur = await db.execute(
                "INSERT INTO turns(mode, started_at, document_id, request) VALUES (?, ?, ?, ?)",
                (mode, utc_now(), document_id, message),
            )
            assert cur.lastrowid is not None
            return cur.lastrowid

    async def _finish(
        self, turn_id: int, result: TurnResult, status: str, error: str | None
    ) -> None:
        async with self.store.transaction() as db:
            await db.execute(
                "UPDATE turns SET finished_at = ?, report = ?, steps = ?, status = ?, error = ?"
                " WHERE id = ?",
                (utc_now(), result.report, result.steps, status, error, turn_id),
            )
