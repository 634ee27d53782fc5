"""A period a tool call may ask about, as `since` and `until` (YYYY, YYYY-MM or
YYYY-MM-DD; empty, no bound): the argument's type, and whether a date falls in it. Dates
are compared as text, to the precision the period was given in."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

Day = Annotated[
    str,
    Field(
        pattern=r"^(\d{4}(-\d{2}(-\d{2})?)?)?$",
        description="YYYY, YYYY-MM or YYYY-MM-DD; empty for no bound.",
    ),
]
"""A `since` or `until` argument."""


def within(when: str | None, since: str, until: str) -> bool:
    """Whether the date `when` falls in the period (an undated thing only in no period)."""
    if not since and not until:
        return True
    if when is None:
        return False
    return (not since or when[: len(since)] >= since) and (not until or when[: len(until)] <= until)


def overlaps(start: str, end: str, since: str, until: str) -> bool:
    """Whether the span from `start` to `end` meets the period."""
    return (not since or end[: len(since)] >= since) and (not until or start[: len(until)] <= until)


def phrase(since: str, until: str) -> str:
    """The period in words, to follow a noun: ' from 2019 to 2021', ' since 2019', ''."""
    if since and until:
        return f" from {since} to {until}"
    if since:
        return f" since {since}"
    if until:
        return f" until {until}"
    return ""
