"""A reading turn as one call: the model replies with its edits to bio.md and a one-line
report, as JSON under a schema (json_reply.py reads it however it was written), and biomd
applies them. It may ask to check doubtful notes first (`check`: a few words of a quote,
grepped in the sources), at the cost of a step; a model that calls tools anyway has them
run. Edits to one section are merged into one before they are applied, and they are applied
by one writer at a time (`writer`), so turns over different notes can run side by side
against the same bio.md: an edit whose old text another turn changed meanwhile goes in as a
new line of its section rather than being lost, and a line bio.md already holds is not
added twice. Every edit is made by the `edit_profile` tool, so it stays a revision."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from biomd.biographer.json_reply import json_values
from biomd.biographer.loop import assistant_message, said
from biomd.biographer.tools import Toolbox
from biomd.biographer.turn import NO_WORD, Outcome, StepFn, Turn, TurnResult, describe_call
from biomd.fold import fold
from biomd.models.llm import JsonModel, Reply, ToolCall
from biomd.models.text_calls import visible
from biomd.models.tools import Failed, ToolResult

CHECKS = 3  # quotes one step may check
CHECK_STEPS = 1  # steps of checking before the edits are due

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "edits": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "section": {"type": "string"},
                    "old_text": {"type": "string"},
                    "new_text": {"type": "string"},
                },
                "required": ["section", "old_text", "new_text"],
                "additionalProperties": False,
            },
        },
        "check": {"type": "array", "items": {"type": "string"}},
        "report": {"type": "string"},
    },
    "required": ["edits", "check", "report"],
    "additionalProperties": False,
}

CHECKED = (
    "What grep found for your checks is below. Now reply with your edits and your one-line "
    "report, as the same JSON object (check: [])."
)


@dataclass(frozen=True, slots=True)
class Edit:
    section: str
    old_text: str
    new_text: str


@dataclass(frozen=True, slots=True)
class Plan:
    """What the model's reply asks for."""

    edits: tuple[Edit, ...] = ()
    check: tuple[str, ...] = ()
    report: str = ""


def parse(text: str) -> Plan:
    """The reply's edits, checks and report, however the JSON was written; a reply with no
    such object is a report with no edits."""
    for value in json_values(text):
        if isinstance(value, dict) and ("edits" in value or "report" in value):
            return Plan(_edits(value.get("edits")), _checks(value.get("check")), _said(value))
        if isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
            return Plan(_edits(value))
    return Plan(report=visible(text).strip())


def _edits(raw: Any) -> tuple[Edit, ...]:
    out = []
    for item in raw if isinstance(raw, list) else []:
        if not isinstance(item, dict):
            continue
        new = item.get("new_text", item.get("new", item.get("text", "")))
        old = item.get("old_text", item.get("old", ""))
        section = item.get("section", item.get("heading", ""))
        if isinstance(new, str) and isinstance(old, str) and (new.strip() or old.strip()):
            out.append(Edit(str(section or "").strip(), old, new))
    return tuple(out)


def _checks(raw: Any) -> tuple[str, ...]:
    items = raw if isinstance(raw, list) else []
    return tuple(str(x).strip() for x in items if str(x).strip())[:CHECKS]


def _said(value: dict[str, Any]) -> str:
    report = value.get("report")
    return report.strip() if isinstance(report, str) else ""


def merged(edits: Sequence[Edit]) -> list[Edit]:
    """The edits with every addition to one section made one addition (where the first
    was), the lines in the order given, repeats once; changes and deletions as they are."""
    out: list[Edit] = []
    where: dict[str, int] = {}
    for edit in edits:
        if edit.old_text.strip():
            out.append(edit)
            continue
        key = fold(edit.section)
        if key not in where:
            where[key] = len(out)
            out.append(Edit(edit.section, "", edit.new_text.strip("\n")))
            continue
        first = out[where[key]]
        lines = first.new_text.split("\n")
        extra = [ln for ln in edit.new_text.strip("\n").split("\n") if ln not in lines]
        out[where[key]] = Edit(first.section, "", "\n".join([*lines, *extra]))
    return out


def new_lines(bio: str, text: str) -> str:
    """The lines of `text` that bio.md does not hold yet (as biomd.fold compares them)."""
    held = {fold(ln).strip() for ln in bio.split("\n")}
    return "\n".join(ln for ln in text.split("\n") if ln.strip() and fold(ln).strip() not in held)


class ReadingTurn:
    """Runs a reading turn as one call under SCHEMA (a Runner, as the tool loop is)."""

    def __init__(
        self,
        model: JsonModel,
        writer: asyncio.Lock,
        max_tokens: int = 2048,
        turn_timeout: float = 900.0,
    ) -> None:
        self.model = model
        self.writer = writer
        self.max_tokens = max_tokens
        self.turn_timeout = turn_timeout

    async def __call__(
        self, turn: Turn, toolbox: Toolbox, result: TurnResult, on_step: StepFn | None
    ) -> Outcome:
        try:
            async with asyncio.timeout(self.turn_timeout):
                plan = await self._plan(turn, toolbox, result, on_step)
        except TimeoutError:
            result.timed_out = True
            return Outcome(
                f"The turn was stopped after {self.turn_timeout:.0f} s "
                "(BIOMD_LLM_TURN_TIMEOUT) before its edits came.",
                toolbox.state,
            )
        await self.apply(plan.edits, toolbox)
        return Outcome(plan.report or NO_WORD, toolbox.state)

    async def _plan(
        self, turn: Turn, toolbox: Toolbox, result: TurnResult, on_step: StepFn | None
    ) -> Plan:
        """The model's edits and report: after at most CHECK_STEPS steps of checking, and
        the tool calls of a model that calls tools anyway (a step each, within the turn's
        budget)."""
        messages: list[dict[str, Any]] = [
            {"role": "system", "content": turn.system},
            {"role": "user", "content": turn.message},
        ]
        checks = CHECK_STEPS
        for step in range(max(1, turn.context.steps)):
            last = step == turn.context.steps - 1
            reply = await self._complete(messages, turn, result)
            if reply.tool_calls and not last:
                messages.append(assistant_message(reply))
                for call in reply.tool_calls:
                    out = await self._run(toolbox, call.name, call.arguments, on_step)
                    messages.append({"role": "tool", "tool_call_id": call.id, "content": said(out)})
                continue
            plan = parse(reply.text)
            if not plan.check or plan.edits or not checks or last:
                return plan
            checks -= 1
            found = []
            for words in plan.check:
                out = await self._run(toolbox, "grep", {"pattern": words}, on_step)
                found.append(f'<tool_result name="grep">\n{said(out)}\n</tool_result>')
            messages.append({"role": "assistant", "content": reply.text})
            messages.append({"role": "user", "content": CHECKED + "\n\n" + "\n".join(found)})
        return Plan()

    async def apply(self, edits: Sequence[Edit], toolbox: Toolbox) -> None:
        """The edits, merged per section, by one writer: a line bio.md holds already is not
        added again, and a change whose old text is gone goes in as new lines."""
        async with self.writer:
            for edit in merged(edits):
                if not edit.old_text.strip():
                    fresh = new_lines(await toolbox.profile.load(), edit.new_text)
                    if fresh and isinstance(
                        await self._edit(toolbox, edit.section, "", fresh), Failed
                    ):
                        await self._one_by_one(toolbox, edit.section, fresh)
                    continue
                out = await self._edit(toolbox, edit.section, edit.old_text, edit.new_text)
                if isinstance(out, Failed) and edit.new_text.strip() and edit.section:
                    bio = await toolbox.profile.load()
                    if edit.old_text not in bio and (fresh := new_lines(bio, edit.new_text)):
                        toolbox.state.refused.pop()  # it goes in after all
                        await self._edit(toolbox, edit.section, "", fresh)

    async def _one_by_one(self, toolbox: Toolbox, section: str, lines: str) -> None:
        """A merged addition that was refused, line by line: one bad line (a citation the
        turn has not seen, say) does not cost the others."""
        rows = lines.split("\n")
        if len(rows) < 2:
            return
        toolbox.state.refused.pop()  # each line is judged on its own now
        for row in rows:
            await self._edit(toolbox, section, "", row)

    async def _edit(self, toolbox: Toolbox, section: str, old: str, new: str) -> ToolResult:
        args = {"section": section, "old_text": old, "new_text": new, "reason": "reading"}
        return await toolbox.run("edit_profile", args)

    async def _run(
        self,
        toolbox: Toolbox,
        name: str,
        arguments: str | dict[str, Any],
        on_step: StepFn | None,
    ) -> ToolResult:
        """A tool call; an edit waits for the writer."""
        if on_step:
            text = arguments if isinstance(arguments, str) else json.dumps(arguments)
            await on_step("tool", describe_call(ToolCall("", name, text)))
        if name != "edit_profile":
            return await toolbox.run(name, arguments)
        async with self.writer:
            return await toolbox.run(name, arguments)

    async def _complete(
        self, messages: list[dict[str, Any]], turn: Turn, result: TurnResult
    ) -> Reply:
        reply = await self.model.complete_json(messages, SCHEMA, turn.context.mode, self.max_tokens)
        result.took(reply)
        result.cut_off = reply.finish_reason in ("length", "repetition")
        return reply
