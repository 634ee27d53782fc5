"""JSON in a model's reply, however it was written: the whole reply, fenced blocks, or the
first object or list inside text. Pure."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

_FENCE = re.compile(r"```(?:json)?\s*(.*?)```", re.S)


class Unreadable(ValueError):
    """A model's reply held no JSON of the shape asked for."""


def json_values(reply: str) -> Iterator[Any]:
    """The JSON values in a model's reply, best candidate first: fenced blocks, the whole,
    then the first object or list inside text."""
    for candidate in candidates(reply):
        try:
            yield json.loads(candidate)
        except json.JSONDecodeError:
            yield first_json(candidate)


def candidates(reply: str) -> list[str]:
    fenced = [m.group(1) for m in _FENCE.finditer(reply)]
    return [*fenced, reply.strip()]


def first_json(text: str) -> Any:
    decoder = json.JSONDecoder()
    for i, ch in enumerate(text):
        if ch in "{[":
            try:
                return decoder.raw_decode(text, i)[0]
            except json.JSONDecodeError:
                continue
    return None
