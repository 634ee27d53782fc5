"""Sustained shifts in a series of events (reply delays, lengths, who starts, late nights),
found by a hand-written exhaustive search rather than a change-point library: the series are
short (a few hundred months at most), months can be empty, and what is compared is every
event on each side, not one number a month, so each month boundary is tried, exactly.

A shift is kept only when all of these hold (the thresholds are each rule's):
- at least `min_months` months with events on each side, and `min_events` events;
- a large change: the median moves by `ratio` times or more (delays 3×, lengths 2×), or a
  share moves by `points` or more (who starts: 25 points; late night: 10 points and 2×);
- it is no accident: a Mann-Whitney rank test between the two sides gives |z| ≥ `min_z`
  (4, since every boundary of every series of every person is tried). The test ranks days,
  not messages (each day's median, or share): the messages of one evening are one piece of
  evidence, not forty;
- it is sustained: at least 2/3 of the months on each side (those with `month_events`
  events or more) lie on their own side of the midpoint between the two values.

Binary segmentation proposes the boundaries (the strongest by the rank test, then again on
each side of it); each is then measured between its neighbours, and one that does not hold
there is dropped, until every one left holds. A steady
series yields none: noise is not a pattern."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

IntArray = npt.NDArray[np.signedinteger[Any]]
FloatArray = npt.NDArray[np.floating[Any]]


@dataclass(frozen=True, slots=True)
class Rule:
    """When a change in one series is large enough to show. `ratio` rules compare medians
    (delays, lengths); `share` rules compare the share of events that are 1 (who starts)."""

    ratio: float = 0.0  # the median moves by this factor or more
    points: float = 0.0  # the share moves by this much or more (0.25 = 25 points)
    share_ratio: float = 0.0  # and by this factor (where set)
    floor: float = 1.0  # a median below this counts as this in a ratio (60 s: the stamps' minute)
    min_events: int = 12
    min_months: int = 3
    month_events: int = 2
    min_z: float = 4.0
    sustained: float = 2 / 3

    @property
    def is_share(self) -> bool:
        return self.points > 0


@dataclass(frozen=True, slots=True)
class Side:
    first: int  # month index
    last: int
    value: float  # the median, or the share
    events: int


@dataclass(frozen=True, slots=True)
class Shift:
    before: Side
    after: Side
    z: float

    @property
    def up(self) -> bool:
        return self.after.value > self.before.value


def midranks(values: FloatArray) -> tuple[FloatArray, float]:
    """Ranks (ties share their mean rank) and the ties' correction term sum(t^3 - t)."""
    order = np.argsort(values, kind="stable")
    ranks = np.empty(values.size, np.float64)
    sorted_values = values[order]
    _, first, counts = np.unique(sorted_values, return_index=True, return_counts=True)
    mean_rank = first + (counts + 1) / 2.0
    ranks[order] = np.repeat(mean_rank, counts)
    ties = float(np.sum(counts.astype(np.float64) ** 3 - counts))
    return ranks, ties


def _value(values: FloatArray, rule: Rule) -> float:
    return float(values.mean()) if rule.is_share else float(np.median(values))


def _large(before: float, after: float, rule: Rule) -> bool:
    if rule.is_share:
        if abs(after - before) < rule.points:
            return False
        if rule.share_ratio:
            low, high = sorted((before, after))
            return high >= rule.share_ratio * low
        return True
    low, high = sorted((max(before, rule.floor), max(after, rule.floor)))
    return high / low >= rule.ratio


def _sustained(
    month_values: dict[int, float], split: int, before: float, after: float, rule: Rule
) -> bool:
    """Most months on each side are on their own side of the midpoint."""
    if rule.is_share:
        mid = (before + after) / 2
    else:
        mid = math.sqrt(max(before, rule.floor) * max(after, rule.floor))
    up = after > before
    sides: tuple[list[bool], list[bool]] = ([], [])
    for month, value in month_values.items():
        if month < split:
            sides[0].append((value < mid) if up else (value > mid))
        else:
            sides[1].append((value > mid) if up else (value < mid))
    return all(side and sum(side) >= rule.sustained * len(side) for side in sides)


def _z(rank_sum: float, n1: int, n2: int, ties: float) -> float:
    n = n1 + n2
    u = rank_sum - n1 * (n1 + 1) / 2.0
    variance = n1 * n2 / 12.0 * ((n + 1) - ties / (n * (n - 1)))
    return 0.0 if variance <= 0 else (u - n1 * n2 / 2.0) / math.sqrt(variance)


class Series:
    """One series: its events (month and value of each, in time order) and the same by day
    (each day's median or share), which the rank test uses."""

    def __init__(self, months: IntArray, days: IntArray, values: FloatArray, rule: Rule) -> None:
        keep = ~np.isnan(values)
        self.rule = rule
        self.months, self.values = months[keep], values[keep].astype(np.float64)
        days = days[keep]
        order = np.argsort(days, kind="stable")
        self.months, self.values, days = self.months[order], self.values[order], days[order]
        _, first, counts = np.unique(days, return_index=True, return_counts=True)
        self.day_months = self.months[first]
        self.day_values = np.array(
            [_value(self.values[f : f + c], rule) for f, c in zip(first, counts, strict=True)]
        )

    def _events(self, lo: int, hi: int) -> tuple[IntArray, FloatArray]:
        a, b = np.searchsorted(self.months, [lo, hi])
        return self.months[a:b], self.values[a:b]

    def measure(self, lo: int, split: int, hi: int) -> Shift | None:
        """The shift between months [lo, split) and [split, hi), if it holds by every test."""
        rule = self.rule
        months, values = self._events(lo, hi)
        at = int(np.searchsorted(months, split))
        n1, n2 = at, values.size - at
        if n1 < rule.min_events or n2 < rule.min_events:
            return None
        if np.unique(months[:at]).size < rule.min_months or (
            np.unique(months[at:]).size < rule.min_months
        ):
            return None
        before, after = _value(values[:at], rule), _value(values[at:], rule)
        if not _large(before, after, rule):
            return None
        a, b = np.searchsorted(self.day_months, [lo, hi])
        d_months, d_values = self.day_months[a:b], self.day_values[a:b]
        d_at = int(np.searchsorted(d_months, split))
        ranks, ties = midranks(d_values)
        z = _z(float(ranks[:d_at].sum()), d_at, d_values.size - d_at, ties)
        if abs(z) < rule.min_z:
            return None
        if not _sustained(_month_values(months, values, rule), split, before, after, rule):
            return None
        return Shift(
            Side(int(months[0]), int(months[at - 1]), before, n1),
            Side(split, int(months[-1]), after, n2),
            z,
        )

    def best(self, lo: int, hi: int) -> int | None:
        """The month in [lo, hi) where the two sides' days differ most by the rank test, if
        they differ enough; whether the shift holds is judged afterwards, between its
        neighbours (a period that comes and goes only shows between its two ends)."""
        rule = self.rule
        months, _ = self._events(lo, hi)
        if months.size < 2 * rule.min_events:
            return None
        a, b = np.searchsorted(self.day_months, [lo, hi])
        d_months, d_values = self.day_months[a:b], self.day_values[a:b]
        boundaries = np.flatnonzero(np.diff(d_months)) + 1
        if not boundaries.size:
            return None
        ranks, ties = midranks(d_values)
        prefix = np.concatenate([[0.0], np.cumsum(ranks)])
        n = d_values.size
        best, best_z = None, rule.min_z
        for b_ in boundaries:
            split = int(d_months[b_])
            events_before = int(np.searchsorted(months, split))
            if events_before < rule.min_events or months.size - events_before < rule.min_events:
                continue
            z = abs(_z(float(prefix[b_]), int(b_), n - int(b_), ties))
            if z >= best_z:
                best, best_z = split, z
        return best


def _month_values(months: IntArray, values: FloatArray, rule: Rule) -> dict[int, float]:
    found: dict[int, float] = {}
    uniq, first, counts = np.unique(months, return_index=True, return_counts=True)
    for m, f, c in zip(uniq, first, counts, strict=True):
        if c >= rule.month_events:
            found[int(m)] = _value(values[f : f + c], rule)
    return found


def shifts(
    months: IntArray, days: IntArray, values: FloatArray, rule: Rule, depth: int = 4
) -> list[Shift]:
    """Every sustained shift in a series of events (the month, day and value of each),
    oldest first, each measured between its neighbouring shifts."""
    series = Series(months, days, values, rule)
    if not series.values.size:
        return []
    first, end = int(series.months[0]), int(series.months[-1]) + 1
    splits: list[int] = []

    def search(lo: int, hi: int, level: int) -> None:
        if level > depth:
            return
        split = series.best(lo, hi)
        if split is None:
            return
        splits.append(split)
        search(lo, split, level + 1)
        search(split, hi, level + 1)

    search(first, end, 0)
    splits.sort()
    while True:
        found: list[Shift] = []
        failed = None
        for i, split in enumerate(splits):
            lo = splits[i - 1] if i else first
            hi = splits[i + 1] if i + 1 < len(splits) else end
            shift = series.measure(lo, split, hi)
            if shift is None:
                failed = i
                break
            found.append(shift)
        if failed is None:
            return found
        del splits[failed]
