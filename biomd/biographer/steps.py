"""What biomd's tool loop does with each reply of the model: end the turn with it as the
report, run the calls in it (native, or written as text), ask for the rest of a reply cut
off at its length limit, or say what is wrong with a call it can't read. Pure."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass

from biomd.biographer.tools import PARAMS
from biomd.models.llm import Reply, ToolCall
from biomd.models.text_calls import parse

CONTINUATIONS = 2  # a reply cut off at max_tokens is continued at most this many times


@dataclass(frozen=True)
class Final:
    """The turn ends with this report."""

    text: str
    cut_off: bool = False


@dataclass(frozen=True)
class RunTools:
    """Run these calls and send the results back; `as_text` when the model wrote them in its
    text (their results then go back as one message, which any server accepts)."""

    calls: list[ToolCall]
    as_text: bool = False


@dataclass(frozen=True)
class Continue:
    """The report was cut off at the length limit: ask for the rest."""

    part: str


@dataclass(frozen=True)
class Broken:
    """The model tried to call a tool in its text, and it can't be read: say what is wrong."""

    problems: list[str]


Step = Final | RunTools | Continue | Broken


def decide(reply: Reply, step: int, parts: Sequence[str] = ()) -> Step:
    """What to do with a reply, the `step`-th of the turn, when `parts` of a report cut off
    at its length limit came before it."""
    calls, as_text = reply.tool_calls, False
    if not calls:
        parsed = parse(reply.text, PARAMS | {n: ["text"] for n in _REPORT_TOOLS})
        if parsed.problems and not parsed.calls:
            return Broken(list(parsed.problems))
        calls = [
            ToolCall(f"text_{step}_{i}", c.name, c.arguments) for i, c in enumerate(parsed.calls)
        ]
        as_text = bool(calls)
    if calls and (closing := _closing(calls)) is not None:
        return Final(closing)
    if calls:
        return RunTools(calls, as_text)
    if reply.finish_reason == "length" and len(parts) < CONTINUATIONS:
        return Continue(reply.text)
    cut_off = reply.finish_reason in ("length", "repetition")
    return Final("".join([*parts, reply.text]), cut_off)


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
