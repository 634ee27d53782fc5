"""The biographer's loop: one turn is a bounded conversation with the model in which it
researches with tools and edits bio.md, then reports.

A turn sees the system prompt with the current bio.md, the tail of the chat, and the new
message; tool calls and their results live only inside the turn, which is what keeps the
context the same size for 10 sources or 10,000.

Real models are held to the same loop: tool calls written as text are run like native
ones (and a broken one goes back as an error, never taken as the report), a reply cut off
at its length limit is continued or marked as cut off, the turn is kept inside the
model's context window and its time limit, and the report is checked against what the
turn really did."""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from core.biographer.context import RESULTS_HEAD, fit
from core.biographer.prompts import BUDGET_SPENT, system_prompt
from core.biographer.tools import PARAMS, TOOLS, Toolbox
from core.models.llm import ChatModel, Reply, ToolCall
from core.models.text_calls import parse, visible
from core.storage.store import Store

Mode = Literal["chat", "analysis", "ingest"]
StepFn = Callable[[str, str], Awaitable[None]]
"""Called as (kind, detail) while a turn runs: 'tool', 'edit', 'message' (what the model
says between steps, on Codex), 'report'."""

STUCK = 4  # steps in a row whose every call failed: the turn ends with its report
STUCK_NOTE = (
    "Your last steps all failed, so tools are closed for this turn. Do not call any tools. "
    "Write your report now: what you learned, what you changed in bio.md, and what is left."
)
CUT_OFF_NOTE = (
    "cut off: the reply reached its length limit, BIOMD_LLM_MAX_TOKENS, or began to repeat itself."
)
CONTINUATIONS = 2  # a reply cut off at max_tokens is continued at most this many times
CONTINUE = (
    "Your reply was cut off at the length limit. Continue exactly where it stopped, without "
    "repeating anything."
)
_CLAIM = re.compile(
    r"\b(?:I|I've|we|we've)\b[^.!?\n]{0,40}?\b(?:updated|added|edited|changed|recorded|"
    r"noted|wrote|written|inserted|amended|revised|saved|put|placed|included)\b"
    r"|\bbio\.md\b[^.!?\n]{0,30}?\b(?:has been|was|is now)\s+(?:updated|changed|edited)",
    re.I,
)
_DENIAL = re.compile(r"\b(?:not|n't|no|nothing|never|unable|couldn't)\b", re.I)


def claims_edits(report: str) -> bool:
    """True when a sentence of the report says bio.md was changed."""
    return any(
        _CLAIM.search(s) and not _DENIAL.search(s) for s in re.split(r"(?<=[.!?])\s+|\n", report)
    )


class TurnModel(ChatModel, Protocol):
    """A model a turn can run on: one that also knows its turn and the spend limit."""

    turn_id: int | None

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
    refused: list[str] = field(default_factory=list)
    read: dict[int, list[tuple[int, int]]] = field(default_factory=dict)
    seen: set[int] = field(default_factory=set)
    cut_off: bool = False
    timed_out: bool = False
    text_calls: int = 0
    document_id: int | None = None
    reading: str = ""  # for an ingest turn: whether the source was read, and if not, why

    @property
    def outcome(self) -> str:
        """What the turn did, in one line: "2 edits (Timeline, People), 1 refused"."""
        parts = [f"{self.edits} edit{'' if self.edits == 1 else 's'}"]
        if self.sections_changed:
            parts[0] += f" ({', '.join(self.sections_changed)})"
        if self.refused:
            parts.append(f"{len(self.refused)} refused")
        if self.reading:
            parts.append(self.reading)
        if self.cut_off:
            parts.append("the reply was cut off")
        if self.timed_out:
            parts.append("stopped at the time limit")
        return ", ".join(parts)


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


def honest(report: str, edits: int) -> str:
    """The report, corrected when it claims edits that the turn did not make."""
    if edits == 0 and claims_edits(report):
        return report + "\n\n(biomd: no change was made to bio.md in this turn.)"
    return report


class Biographer:
    """Runs turns against a model, with tools over one corpus and one bio.md."""

    def __init__(
        self,
        model: TurnModel,
        toolbox: Callable[[int, str], Toolbox],
        load_bio: Callable[[], Awaitable[str]],
        store: Store,
        bio_budget: int = 30_000,
        owner_names: Sequence[str] = (),
        max_tokens: int = 2048,
        turn_timeout: float = 900.0,
    ) -> None:
        self.model = model
        self._toolbox = toolbox
        self._load_bio = load_bio
        self.store = store
        self.bio_budget = bio_budget
        self.owner_names = tuple(owner_names)
        self.max_tokens = max_tokens
        self.turn_timeout = turn_timeout

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
        tools.document_id = document_id
        result = TurnResult(turn_id, mode, "", 0, 0, document_id=document_id)
        try:
            bio = await self._load_bio()
            messages: list[dict[str, Any]] = [
                {
                    "role": "system",
                    "content": system_prompt(mode, bio, self.bio_budget, self.owner_names),
                },
                *({"role": m["role"], "content": m["content"]} for m in chat_tail),
                {"role": "user", "content": message},
            ]
            try:
                async with asyncio.timeout(self.turn_timeout):
                    report = await self._loop(messages, tools, steps, mode, result, on_step)
            except TimeoutError:
                result.timed_out = True
                report = (
                    f"The turn was stopped after {self.turn_timeout:.0f} s "
                    "(BIOMD_LLM_TURN_TIMEOUT) before a report was written."
                )
        except BaseException as exc:
            await self._finish(turn_id, result, "failed", str(exc)[:500])
            raise
        finally:
            self.model.turn_id = None
        report = honest(report, tools.edits)
        if tools.refused:
            n = len(tools.refused)
            report += f"\n\n(biomd refused {n} edit{'' if n == 1 else 's'}: "
            report += "; ".join(dict.fromkeys(tools.refused)) + ".)"
        result.report = report
        result.edits = tools.edits
        result.sections_changed = tools.sections_changed
        result.refused = list(tools.refused)
        result.read = {k: list(v) for k, v in tools.read.items()}
        result.seen = set(tools.seen)
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
        opening = len(messages) - 1
        budget = await self._budget()
        parts: list[str] = []  # a reply cut off at its length limit, piece by piece
        failed_in_row = 0  # steps whose every call was an error: a model going round in circles
        for _ in range(steps):
            if failed_in_row >= STUCK:
                messages.append({"role": "user", "content": STUCK_NOTE})
                break
            reply = await self._complete(fit(messages, budget, opening), TOOLS, mode, result)
            calls, from_text = reply.tool_calls, False
            if not calls:
                parsed = parse(reply.text, PARAMS | {n: ["text"] for n in _REPORT_TOOLS})
                if parsed.problems and not parsed.calls:
                    messages.append({"role": "assistant", "content": reply.text})
                    messages.append({"role": "user", "content": _broken(parsed.problems)})
                    failed_in_row += 1  # a call that can't be read is a failed step too
                    continue
                calls = [
                    ToolCall(f"text_{result.steps}_{i}", c.name, c.arguments)
                    for i, c in enumerate(parsed.calls)
                ]
                from_text = bool(calls)
                result.text_calls += len(calls)
            if calls and (closing := _closing(calls)) is not None:
                return self._final(closing, result)
            if not calls:
                parts.append(reply.text)
                if reply.finish_reason == "length" and len(parts) <= CONTINUATIONS:
                    messages.append({"role": "assistant", "content": reply.text})
                    messages.append({"role": "user", "content": CONTINUE})
                    continue
                result.cut_off = reply.finish_reason in ("length", "repetition")
                return self._final("".join(parts), result)
            parts.clear()
            outputs = []
            for call in calls:
                if on_step:
                    await on_step("tool", describe_call(call))
                outputs.append(await tools.run(call.name, call.arguments))
            failed = all(out.startswith("Error:") for out in outputs)
            failed_in_row = failed_in_row + 1 if failed else 0
            if from_text:
                messages.append({"role": "assistant", "content": reply.text})
                messages.append({"role": "user", "content": _results(calls, outputs)})
            else:
                messages.append(assistant_message(reply))
                messages.extend(
                    {"role": "tool", "tool_call_id": c.id, "content": out}
                    for c, out in zip(calls, outputs, strict=True)
                )
        else:
            result.budget_exhausted = True
            messages.append({"role": "user", "content": BUDGET_SPENT})
        reply = await self._complete(fit(messages, budget, opening), None, mode, result)
        text = visible(reply.text)
        result.cut_off = reply.finish_reason in ("length", "repetition")
        if text:
            return self._final(text, result)
        why = (
            f"The research budget ({steps} steps) ran out"
            if result.budget_exhausted
            else "The turn was ended after repeated failed tool calls"
        )
        return f"{why} before a report was written; {tools.edits} edit(s) were made to bio.md."

    async def _budget(self) -> int:
        """Tokens the messages may use: the window less the reply and a margin."""
        window = await self.model.context_tokens()
        return max(1024, window - self.max_tokens - 256)

    async def _complete(
        self,
        messages: list[dict[str, Any]],
        tools: Sequence[dict[str, Any]] | None,
        mode: str,
        result: TurnResult,
    ) -> Reply:
        reply = await self.model.complete(messages, tools, mode, self.max_tokens)
        result.steps += 1
        result.prompt_tokens += reply.usage.prompt_tokens
        result.completion_tokens += reply.usage.completion_tokens
        result.cost_usd += reply.usage.cost_usd
        return reply

    @staticmethod
    def _final(text: str, result: TurnResult) -> str:
        shown = visible(text)
        if result.cut_off:
            shown += f"\n\n({CUT_OFF_NOTE})"
        return shown.strip() or "(The biographer ended the turn without a word.)"

    async def _start(self, mode: str, message: str, document_id: int | None) -> int:
        return await self.store.turns.start(mode, message, document_id)

    async def _finish(
        self, turn_id: int, result: TurnResult, status: str, error: str | None
    ) -> None:
        await self.store.turns.finish(
            turn_id, status, report=result.report, steps=result.steps, error=error
        )


_REPORT_TOOLS = {"report", "final_answer", "answer", "respond", "reply", "finish", "done"}


def _closing(calls: Sequence[ToolCall]) -> str | None:
    """The report, when a reply's only "calls" are a small model's ways of ending its turn:
    a made-up report tool (report, final_answer…), or an edit that changes nothing."""
    texts = []
    for call in calls:
        try:
            args = json.loads(call.arguments or "{}")
        except json.JSONDecodeError:
            return None
        if not isinstance(args, dict):
            return None
        if call.name in _REPORT_TOOLS:
            texts += [v for v in args.values() if isinstance(v, str) and len(v) > 20]
        elif call.name == "edit_profile" and not any(
            str(v or "").strip() for k, v in args.items() if k not in ("section", "reason")
        ):
            texts.append(str(args.get("reason") or ""))
        else:
            return None
    return "\n\n".join(t for t in texts if t.strip())


def _results(calls: Sequence[ToolCall], outputs: Sequence[str]) -> str:
    """The results of calls written as text, as one message (any server accepts it)."""
    blocks = [
        f'<tool_result name="{c.name}">\n{out}\n</tool_result>'
        for c, out in zip(calls, outputs, strict=True)
    ]
    return RESULTS_HEAD + "\n" + "\n".join(blocks)


def _broken(problems: Sequence[str]) -> str:
    return (
        "Error: " + " ".join(problems) + " Send each tool call as one JSON object, "
        'e.g. {"name": "search", "arguments": {"query": "…"}}, or write your final answer '
        "without tool syntax."
    )
