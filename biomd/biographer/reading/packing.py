"""Packing items in order into batches under a size budget. A pure function."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

T = TypeVar("T")


def pack(items: Sequence[T], size: Callable[[T], int], budget: int) -> list[list[T]]:
    """`items` in order, in batches whose sizes add up to at most `budget`; an item that is
    bigger alone goes alone."""
    out: list[list[T]] = []
    current: list[T] = []
    used = 0
    for item in items:
        n = size(item)
        if current and used + n > budget:
            out.append(current)
            current, used = [], 0
        current.append(item)
        used += n
    if current:
        out.append(current)
    return out
