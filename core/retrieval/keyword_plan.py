"""Planning a keyword query so that its cost stays bounded at a million chunks.

FTS5 scores every chunk a query matches, so a query's cost is the number of postings of its
terms. Terms are taken rarest first while their postings fit the budget; common terms add
little to the ranking and are dropped. When even the rarest term is common, the query asks
for all of its (up to three) rarest terms together, and if that could still match too much,
only the most recent chunks are searched. Pure."""

from __future__ import annotations

from dataclasses import dataclass

POSTINGS_BUDGET = 40_000
MAX_TERMS = 12
COMMON_TOGETHER = 3


@dataclass(frozen=True, slots=True)
class KeywordPlan:
    match: str | None  # an FTS5 MATCH expression of quoted tokens, or None: nothing can match
    min_rowid: int = 0  # search only chunks with rowid >= this (0: all)


def plan(
    tokens: list[str],
    doc_freq: dict[str, int],
    total: int,
    max_rowid: int,
    budget: int = POSTINGS_BUDGET,
) -> KeywordPlan:
    """`tokens`: the query's content words; `doc_freq`: chunks holding each (absent: 0)."""
    present = sorted((t for t in tokens if doc_freq.get(t, 0) > 0), key=lambda t: doc_freq[t])
    if not present:
        return KeywordPlan(None)
    chosen: list[str] = []
    spent = 0
    for token in present[:MAX_TERMS]:
        if chosen and spent + doc_freq[token] > budget:
            break
        chosen.append(token)
        spent += doc_freq[token]
    if doc_freq[chosen[0]] <= budget:
        return KeywordPlan(" OR ".join(f'"{t}"' for t in chosen))
    together = present[:COMMON_TOGETHER]
    expected = total
    for token in together:
        expected = expected * doc_freq[token] // max(total, 1)
    min_rowid = 0
    if expected > budget and total > 0:
        window = max(budget * total // max(expected, 1), budget)
        min_rowid = max(0, max_rowid - window)
    return KeywordPlan(" AND ".join(f'"{t}"' for t in together), min_rowid)
