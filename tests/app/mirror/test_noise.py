"""Noise is not a pattern: many generated steady chats, each with its own pace, lengths,
habits and a volume that comes and goes, give no finding at all."""

from __future__ import annotations

import math
from datetime import datetime, timedelta

import numpy as np
import pytest

from biomd.app.mirror.dynamics import measure
from biomd.app.mirror.findings import find
from biomd.app.mirror.messages import parse_text

pytestmark = pytest.mark.slow  # the mirror over many generated chats

CHATS = 80


def steady_chat(seed: int, slower_from: float | None = None) -> str:
    """Two to four years of one 1:1 chat in the transcript format, steady in every way the
    mirror measures, but with its own typical reply times, lengths and share of starts, and
    busy and quiet months. `slower_from` (a share of its span): from there the owner
    answers six times more slowly, the control that shows a real shift is seen."""
    rng = np.random.default_rng(seed)
    reply_owner = float(rng.uniform(60, 3 * 3600))  # each side's typical reply, in seconds
    reply_them = float(rng.uniform(60, 3 * 3600))
    chars_owner, chars_them = float(rng.uniform(8, 120)), float(rng.uniform(8, 120))
    owner_starts = float(rng.uniform(0.2, 0.8))
    late = float(rng.uniform(0.0, 0.15))  # conversations begun after midnight
    when, end = (
        datetime(2020, 1, 1),
        datetime(2020, 1, 1) + timedelta(days=int(rng.integers(730, 1460))),
    )
    change = when + (end - when) * slower_from if slower_from is not None else end
    if slower_from is not None:  # slower, but still an answer (within the 6 h of silence)
        reply_owner = min(reply_owner, 900.0)
    lines: list[str] = []
    while when < end:
        busy = 1.0 + 0.8 * math.sin(when.timetuple().tm_yday / 58.0 + seed)  # comes and goes
        when += timedelta(days=float(rng.exponential(1.6 / max(busy, 0.3))))
        hour = float(rng.uniform(0, 3.5)) if rng.random() < late else float(rng.uniform(8, 23))
        at = when.replace(hour=0, minute=0) + timedelta(hours=hour)
        owner = bool(rng.random() < owner_starts)
        for _ in range(int(rng.integers(2, 14))):
            median = chars_owner if owner else chars_them
            size = max(1, int(rng.lognormal(math.log(median), 0.6)))
            who = "Ana (owner)" if owner else "Maya"
            lines.append(f"[{at:%Y-%m-%d %H:%M}] {who}: {'x' * size}")
            if rng.random() < 0.15:  # a double text now and then
                at += timedelta(seconds=float(rng.lognormal(math.log(90), 0.5)))
                continue
            owner = not owner
            typical = reply_owner * (6 if at >= change else 1) if owner else reply_them
            at += timedelta(seconds=float(rng.lognormal(math.log(typical), 0.9)))
        when = max(when, at)
    return "\n".join(lines) + "\n"


def test_steady_chats_of_every_kind_give_no_finding() -> None:
    found = []
    for seed in range(CHATS):
        parsed = parse_text(steady_chat(seed), ("Ana",))
        dynamics = measure([(seed + 1, parsed)])
        assert dynamics.people and dynamics.people[0].name == "Maya"
        found += [(seed, f.kind, f.before.value, f.after.value) for f in find(dynamics)]
    assert found == []


def test_the_same_chats_with_a_real_shift_in_them_give_it() -> None:
    for seed in range(6):
        parsed = parse_text(steady_chat(seed, slower_from=0.5), ("Ana",))
        kinds = {(f.kind, f.up) for f in find(measure([(1, parsed)]))}
        assert ("reply_delay_owner", True) in kinds, (seed, kinds)
