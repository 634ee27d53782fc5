"""biomd's own tool loop, the runner of a turn on any OpenAI-compatible endpoint: the model
researches with tools and edits bio.md, one step at a time, then reports.

Real models are held to the same loop: tool calls written as text are run like native ones
(and a broken one goes back as an error, never taken as the report), a reply cut off at its
length limit is continued or marked as cut off, and the turn is kept inside the model's
context window and its time limit."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

from biomd.biographer import answer_check
from biomd.biographer.context import RESULTS_HEAD, fit
from biomd.biographer.prompts import BUDGET_SPENT
from biomd.biographer.steps import Broken, Continue, Final, RunTools, decide
from biomd.biographer.tools import TOOLS, Toolbox
from biomd.biographer.turn import NO_WORD, Outcome, StepFn, Turn, TurnResult, describe_call
from biomd.models.llm import Reply, ToolCall, TurnModel
from biomd.models.text_calls import visible
from biomd.models.tools import Done, Failed, ToolResult

STUCK = 4  # steps in a row whose every call failed: the turn ends with its report
STUCK_NOTE = (
    "Your last steps all failed, so tools are closed for this turn. Do not call any tools. "
    "Write your report now: what you learned, what you changed in bio.md, and what is left."
)
CUT_OFF_NOTE = (
    "cut off: the reply reached its length limit, BIOMD_LLM_MAX_TOKENS, or began to repeat itself."
)
CONTINUE = (
    "Your reply was cut off at the length limit. Continue exactly where it stopped, without "
    "repeating anything."
)


class AgentLoop:
    """Runs a turn as a conversation with the model, step by step. The rules:

    1. Each step sends the conversation, trimmed to fit the model's context window (oldest
       tool results first), with the tools, and `decide`s what the reply is:
       - `RunTools`: native calls, or calls written as text; each is run and its result sent
         back. A step whose every call fails counts towards STUCK.
       - `Broken`: a call written as text that can't be read goes back as an error, and
         counts towards STUCK like a failed step.
       - `Continue`: a report cut off at the length limit is asked to go on, at most
         CONTINUATIONS times; the parts are joined.
       - `Final`: a reply with no call (or only a small model's ways of ending a turn: a
         made-up report tool, an edit that changes nothing) is the report.
    2. After STUCK failed steps in a row, or when the step budget is spent, the tools close:
       the model is told so (STUCK_NOTE, BUDGET_SPENT) and must write its report. If it
       writes nothing, biomd says why the turn ended.
    3. The whole turn has BIOMD_LLM_TURN_TIMEOUT; past it, the turn stops with a note.
    """

    def __init__(self, model: TurnModel, max_tokens: int = 2048, turn_timeout: float = 900.0):
        self.model = model
        self.max_tokens = max_tokens
        self.turn_timeout = turn_timeout

    async def __call__(
        self, turn: Turn, toolbox: Toolbox, result: TurnResult, on_step: StepFn | None
    ) -> Outcome:
        messages: list[dict[str, Any]] = [
            {"role": "system", "content": turn.system},
            *({"role": m["role"], "content": m["content"]} for m in turn.chat_tail),
            {"role": "user", "content": turn.message},
        ]
        try:
            async with asyncio.timeout(self.turn_timeout):
                if turn.answer and not turn.tools:
                    report = await self._answer(messages, turn, result)
                else:
                    report = await self._loop(messages, toolbox, turn, result, on_step)
        except TimeoutError:
            result.timed_out = True
            report = (
                f"The turn was stopped after {self.turn_timeout:.0f} s "
                "(BIOMD_LLM_TURN_TIMEOUT) before a report was written."
            )
        return Outcome(report, toolbox.state)

    async def _loop(
        self,
        messages: list[dict[str, Any]],
        tools: Toolbox,
        turn: Turn,
        result: TurnResult,
        on_step: StepFn | None,
    ) -> str:
        opening = len(messages) - 1
        budget = await self._budget()
        parts: list[str] = []  # a report cut off at its length limit, piece by piece
        failed_in_row = 0  # steps whose every call was an error: a model going round in circles
        for _ in range(turn.context.steps):
            if failed_in_row >= STUCK:
                messages.append({"role": "user", "content": STUCK_NOTE})
                break
            offered = TOOLS if turn.tools else None
            reply = await self._complete(
                fit(messages, budget, opening), offered, turn.context.mode, result
            )
            step = decide(reply, result.steps, parts)
            match step:
                case Broken(problems):
                    messages.append({"role": "assistant", "content": reply.text})
                    messages.append({"role": "user", "content": _broken(problems)})
                    failed_in_row += 1
                case Continue(part):
                    parts.append(part)
                    messages.append({"role": "assistant", "content": reply.text})
                    messages.append({"role": "user", "content": CONTINUE})
                case Final(text, cut_off):
                    result.cut_off = cut_off
                    return _shown(text, cut_off)
                case RunTools(calls, as_text):
                    parts.clear()
                    result.text_calls += len(calls) if as_text else 0
                    results = []
                    for call in calls:
                        if on_step:
                            await on_step("tool", describe_call(call))
                        results.append(await tools.run(call.name, call.arguments))
                    failed = all(isinstance(r, Failed) for r in results)
                    failed_in_row = failed_in_row + 1 if failed else 0
                    outputs = [said(r) for r in results]
                    messages.extend(_answered(reply, calls, outputs, as_text))
        else:
            result.budget_exhausted = True
            messages.append({"role": "user", "content": BUDGET_SPENT})
        reply = await self._complete(
            fit(messages, budget, opening), None, turn.context.mode, result
        )
        text = visible(reply.text)
        result.cut_off = reply.finish_reason in ("length", "repetition")
        if text:
            return _shown(text, result.cut_off)
        why = (
            f"The research budget ({turn.context.steps} steps) ran out"
            if result.budget_exhausted
            else "The turn was ended after repeated failed tool calls"
        )
        return f"{why} before a report was written; edits made to bio.md: {tools.state.edits}."

    async def _answer(self, messages: list[dict[str, Any]], turn: Turn, result: TurnResult) -> str:
        """A question answered from the evidence without tools: one reply under the answer's
        schema (answer_check.SCHEMA), which the turn then checks."""
        budget = await self._budget()
        reply = await self.model.complete_json(
            fit(messages, budget, len(messages) - 1),
            answer_check.SCHEMA,
            turn.context.mode,
            self.max_tokens,
            steady=True,
        )
        result.took(reply)
        result.cut_off = reply.finish_reason in ("length", "repetition")
        return reply.text

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
        result.took(reply)
        return reply


def said(result: ToolResult) -> str:
    """A tool's result as the model reads it: a failure as `Error: …`."""
    return result.text if isinstance(result, Done) else f"Error: {result.message}"


def _shown(text: str, cut_off: bool) -> str:
    shown = visible(text)
    if cut_off:
        shown += f"\n\n({CUT_OFF_NOTE})"
    return shown.strip() or NO_WORD


def assistant_message(reply: Reply) -> dict[str, Any]:
    """The model's reply as it goes back into the conversation."""
    message: dict[str, Any] = {"role": "assistant", "content": reply.text or None}
    if reply.tool_calls:
        message["tool_calls"] = [
            {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}}
            for c in reply.tool_calls
        ]
    return message


def _answered(
    reply: Reply, calls: Sequence[ToolCall], outputs: Sequence[str], as_text: bool
) -> list[dict[str, Any]]:
    """The reply and its calls' results, as they go back into the conversation."""
    if as_text:
        return [
            {"role": "assistant", "content": reply.text},
            {"role": "user", "content": _results(calls, outputs)},
        ]
    return [
        assistant_message(reply),
        *(
            {"role": "tool", "tool_call_id": c.id, "content": out}
            for c, out in zip(calls, outputs, strict=True)
        ),
    ]


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
