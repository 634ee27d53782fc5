"""Keeping a turn inside the model's context window. Pure functions over the messages.

A turn's messages are the system prompt (rules and bio.md), the chat tail, the new message,
then the turn's own calls and results. When they outgrow the window, the oldest tool
results go first (the model can ask again), then the chat tail, oldest first; the newest
results are cut last, from the end."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

CHARS_PER_TOKEN = 3.2  # cautious: prose is nearer 4, JSON and names fewer
RESULTS_HEAD = "Results of your tool calls:"
ELIDED = (
    "[This earlier result was removed to keep within the model's context window. Call the "
    "tool again if you need it.]"
)
KEEP_RESULTS = 2  # the newest results are kept whole as long as possible


def estimate(messages: Sequence[dict[str, Any]]) -> int:
    """Roughly how many tokens these messages cost."""
    chars = 0
    for m in messages:
        chars += len(str(m.get("content") or "")) + 16
        if m.get("tool_calls"):
            chars += len(json.dumps(m["tool_calls"]))
    return int(chars / CHARS_PER_TOKEN) + 1


def is_result(message: dict[str, Any]) -> bool:
    return message.get("role") == "tool" or (
        message.get("role") == "user" and str(message.get("content", "")).startswith(RESULTS_HEAD)
    )


def fit(messages: list[dict[str, Any]], budget: int, opening: int) -> list[dict[str, Any]]:
    """A copy of `messages` that fits in `budget` tokens where it can. `opening` is the
    index of the turn's new message: before it come the system prompt and the chat tail."""
    out = [dict(m) for m in messages]
    if estimate(out) <= budget:
        return out
    results = [i for i, m in enumerate(out) if i > opening and is_result(m)]
    for i in results[:-KEEP_RESULTS]:
        if out[i]["content"] != ELIDED:
            out[i]["content"] = _elided(out[i])
            if estimate(out) <= budget:
                return out
    while opening > 1 and estimate(out) > budget:
        del out[1]
        opening -= 1
    for i in reversed([i for i, m in enumerate(out) if i > opening and is_result(m)]):
        over = estimate(out) - budget
        if over <= 0:
            break
        text = str(out[i]["content"])
        keep = max(200, len(text) - int(over * CHARS_PER_TOKEN) - 200)
        if keep < len(text):
            out[i]["content"] = (
                text[:keep] + f"\n[… cut here to fit the context window; {len(text) - keep:,} "
                "characters left out. Read on with a smaller length if you need them.]"
            )
    return out


def _elided(message: dict[str, Any]) -> str:
    if message.get("role") == "user":
        return f"{RESULTS_HEAD}\n{ELIDED}"
    return ELIDED
