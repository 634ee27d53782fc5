"""Driving the biographer's reading from a test: one round of reading, the sources still
waiting, those set aside. The one place the tests know where a round starts, so a test says
what it checks and a change to the reading's wiring is made here once."""

from __future__ import annotations

from biomd.app.engine import Engine
from biomd.biographer.turn import StepFn, TurnResult
from biomd.storage.reading import Reading, SetAside


async def read_round(
    engine: Engine,
    on_step: StepFn | None = None,
    *,
    only: set[int] | None = None,
    retry: bool = False,
    approve: bool = False,
) -> list[TurnResult]:
    """One round of reading, as the scheduler starts it: every source waiting (or those in
    `only`) is noted by the reader and taken into bio.md; the reading turns it took.
    `retry` gives the sources set aside another round; `approve` reads even those whose
    estimate would wait for the owner's choice."""
    return await engine.biographer.reading.read_pending(
        on_step, only=only, retry=retry, approve=approve
    )


async def unread(engine: Engine, *, include_set_aside: bool = False) -> list[Reading]:
    """The sources waiting to be read, in the order they will be (with those given up on,
    where asked)."""
    return await engine.biographer.reading.pending(include_set_aside)


async def given_up(engine: Engine) -> list[SetAside]:
    """The sources the reader gave up on, with why."""
    return await engine.biographer.reading.set_aside()
