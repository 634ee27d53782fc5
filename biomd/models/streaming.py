"""A streamed chat completion, put back together, and cut short when a model that writes
its tool calls as text goes on to imagine the results: the call is complete, so the rest
is never generated (on a CPU that saves minutes per step) and never read back to it. A
reply that has begun to repeat itself is cut short the same way (finish_reason
"repetition")."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from biomd.models.text_calls import parse

PARSE_EVERY = 48  # characters of new text between looks for a finished text call
_CLOSER = re.compile(r"[ \t]*\n?[ \t]*(?:```|</[A-Za-z_]+>)")
RUN_ON = 160  # characters past a finished text call that show the model is imagining on
REPEAT_TAIL = 120  # a stretch this long, seen three times, means the model is looping
LOOP_AFTER = 1200  # characters a reply must have before it can be judged a loop
LOOP_WINDOW = 3000  # the newest characters looked at


@dataclass
class Assembled:
    text: str = ""
    calls: dict[int, dict[str, str]] = field(default_factory=dict)
    finish_reason: str | None = None
    usage: Any = None
    chunks: int = 0
    cut_short: bool = False


def tool_params(tools: Sequence[dict[str, Any]] | None) -> dict[str, list[str]]:
    """Each tool's argument names, from its JSON schema."""
    out: dict[str, list[str]] = {}
    for t in tools or []:
        fn = t.get("function") or {}
        props = (fn.get("parameters") or {}).get("properties") or {}
        out[str(fn.get("name"))] = list(props)
    return out


async def assemble(stream: AsyncIterator[Any], tools: Mapping[str, Sequence[str]]) -> Assembled:
    """Read the stream to its end, or until a text tool call is complete and followed by
    more than RUN_ON characters (then the text ends where the calls did)."""
    out = Assembled()
    parts: list[str] = []
    length = parsed_at = looked_at = before = 0
    done_at: int | None = None  # text length when the calls seen so far were complete
    seen = 0
    async for chunk in stream:
        out.chunks += 1
        if getattr(chunk, "usage", None):
            out.usage = chunk.usage
        for choice in getattr(chunk, "choices", None) or []:
            delta = choice.delta
            if delta is not None and delta.content:
                parts.append(delta.content)
                length += len(delta.content)
            for tc in (delta.tool_calls if delta is not None else None) or []:
                slot = out.calls.setdefault(tc.index, {"id": "", "name": "", "arguments": ""})
                if tc.id:
                    slot["id"] = tc.id
                if tc.function is not None:
                    slot["name"] += tc.function.name or ""
                    slot["arguments"] += tc.function.arguments or ""
            if choice.finish_reason:
                out.finish_reason = choice.finish_reason
        if length - looked_at >= PARSE_EVERY:
            looked_at = length
            if _repeating("".join(parts)[-LOOP_WINDOW:]):
                out.cut_short, out.finish_reason = True, "repetition"
                break
        if tools and not out.calls and length - parsed_at >= PARSE_EVERY:
            parsed_at = length
            found = len(parse("".join(parts), tools).calls)
            if found > seen:
                before = done_at or 0
                seen, done_at = found, length
            elif not found:
                before = length
            elif found and done_at is not None and length - done_at > RUN_ON:
                out.cut_short = True
                break
    out.text = "".join(parts)
    if out.finish_reason == "repetition":
        return out
    if out.cut_short and done_at is not None:
        out.text = out.text[: _calls_end(out.text, tools, before, done_at, seen)]
        out.finish_reason = "stop"
    return out


def _repeating(recent: str) -> bool:
    """True when the newest text is a loop: its last stretch already came twice before it
    (a small model writing the same line, or newlines, until its limit). Short replies are
    never judged: a loop shows itself by running long."""
    if len(recent) < LOOP_AFTER:
        return False
    return recent.count(recent[-REPEAT_TAIL:]) >= 3


def _calls_end(text: str, tools: Mapping[str, Sequence[str]], lo: int, hi: int, n: int) -> int:
    """The shortest prefix of `text`, between `lo` and `hi` characters, holding `n` calls."""
    while lo < hi:
        mid = (lo + hi) // 2
        if len(parse(text[:mid], tools).calls) >= n:
            hi = mid
        else:
            lo = mid + 1
    while close := _CLOSER.match(text, hi):  # the fence or tags that close the call
        hi = close.end()
    return hi
