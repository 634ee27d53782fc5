"""Which turn a model call belongs to: a context variable, set for the length of a turn in
the task that runs it (and in the tasks that task starts), so that two turns running at once,
a chat and a reading, say, each get their own calls and costs. Nothing about a turn is kept
on a shared model object."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

_CURRENT: ContextVar[int | None] = ContextVar("biomd_turn", default=None)


def current_turn() -> int | None:
    """The id of the turn whose work is running here, or None outside any turn."""
    return _CURRENT.get()


@contextmanager
def in_turn(turn_id: int) -> Iterator[None]:
    """Model calls made inside are the turn's."""
    token = _CURRENT.set(turn_id)
    try:
        yield
    finally:
        _CURRENT.reset(token)
