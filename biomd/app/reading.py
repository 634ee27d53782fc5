"""The owner's say in what is read, and reading what is new. One implementation for every
front-end: `biomd ingest` and `biomd analyse --pending`, /scope in a chat app, and the job
that reads a file the owner sent."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from biomd.biographer.reading import scope as scopes
from biomd.biographer.reading.reading_cost import ReadingChoice
from biomd.biographer.turn import StepFn, TurnResult
from biomd.errors import BiomdError
from biomd.storage.reading import SetAside

if TYPE_CHECKING:
    from biomd.biographer.biographer import Biographer

__all__ = [
    "LATER",
    "Decide",
    "NewReading",
    "ReadingChoice",
    "SetAside",
    "decide",
    "read_new",
    "scope",
]

LATER = "later"
"""Not now: the source waits until the owner chooses."""

Decide = Callable[[ReadingChoice], Awaitable[str | None]]
"""What to read of a source that waits for the owner's choice: a scope, LATER, or None to
leave it waiting as it is."""


def scope(how: str, since: str | None = None) -> str:
    """The owner's choice as it is kept: `all`, `mine`, `since:DATE` (YYYY, YYYY-MM or
    YYYY-MM-DD) or `later`; BiomdError for anything else."""
    how = how.strip().lower()
    chosen = f"since:{since.strip()}" if how == "since" and since else how
    if chosen == LATER:
        return chosen
    try:
        scopes.parse(chosen)
    except ValueError:
        raise BiomdError(
            "Read it how? All of it, only your own messages, since a date (YYYY-MM-DD), or later."
        ) from None
    return chosen


async def decide(biographer: Biographer, document_id: int, chosen: str) -> None:
    """The owner's choice for one source (a `scope`): read all of it, only their own
    messages, or since a date, at the next round; or later, and it waits."""
    chosen = scope(chosen)
    if chosen == LATER:
        await biographer.cost.hold(document_id)
    else:
        await biographer.cost.choose(document_id, chosen)


@dataclass(frozen=True)
class NewReading:
    """What a round of reading what is new came to."""

    pending: int  # sources that were waiting to be read
    results: list[TurnResult] = field(default_factory=list)  # the reading turns
    set_aside: list[SetAside] = field(default_factory=list)  # given up on, and why
    missing: str | None = None  # no language model: nothing was read, and what to set


async def read_new(
    biographer: Biographer,
    *,
    only: set[int] | None = None,
    decide_each: Decide | None = None,
    retry: bool = False,
    on_start: Callable[[int], Awaitable[None]] | None = None,
    on_step: StepFn | None = None,
) -> NewReading:
    """Read what has not been read yet (only the sources in `only`, if given). Each source
    whose reading waits for the owner's choice is first put to `decide_each`; one left
    undecided waits (`biographer.cost.choices()` lists it). `on_start` hears how many
    sources were waiting as the reading starts, `on_step` each step of its turns. `retry`
    gives the sources set aside another round. With no language model nothing is read, and
    `missing` says what to set."""
    waiting = await biographer.reading.pending()
    pending = len([r for r in waiting if only is None or r.document_id in only])
    if not biographer.configured:
        return NewReading(pending, missing=biographer.missing)
    if decide_each is not None:
        for choice in await biographer.cost.choices(only):
            chosen = await decide_each(choice)
            if chosen is not None:
                await decide(biographer, choice.reading.document_id, chosen)
    if on_start is not None:
        await on_start(pending)
    results = await biographer.reading.read_pending(on_step, only=only, retry=retry)
    return NewReading(pending, results, await biographer.reading.set_aside())
