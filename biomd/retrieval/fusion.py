"""Reciprocal rank fusion of ranked lists."""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from typing import TypeVar

K = TypeVar("K", bound=Hashable)

RRF_K = 60


def rrf(
    rankings: Sequence[Sequence[K]], weights: Sequence[float] | None = None, k: int = RRF_K
) -> list[tuple[K, float]]:
    """Fuse ranked lists: score(x) = Σ weight / (k + rank), rank from 1. Best first; ties keep
    the order in which items were first seen."""
    weights = weights or [1.0] * len(rankings)
    scores: dict[K, float] = {}
    for ranking, weight in zip(rankings, weights, strict=True):
        for rank, item in enumerate(ranking, start=1):
            scores[item] = scores.get(item, 0.0) + weight / (k + rank)
    return sorted(scores.items(), key=lambda kv: kv[1], reverse=True)


def vector_weight(coverage: float, low: float, high: float, power: float) -> float:
    """How much to trust the vector list, given how well the best keyword hit covers the
    query (0..1). Full coverage: the words are there, keywords lead (`low`). No coverage:
    the words are not, so meaning has to carry the search (`high`)."""
    coverage = min(1.0, max(0.0, coverage))
    return low + (high - low) * math.pow(1.0 - coverage, power)
