"""Planning a keyword query so that its cost stays bounded at a million chunks.

FTS5's bm25 costs about a microsecond for every chunk a query matches, plus a pass over
each term's whole posting list to count it. So:
- Rare terms (few postings) are searched together and ranked by bm25, rarest first while
  their postings fit the budget. Common terms add little to the ranking and are dropped
  from the match; a result that holds a rare query word is never lost to them.
- When every term is common, bm25 would have to score a large share of the corpus for a
  ranking that says little ("what did we do last weekend"). The chunks holding all of the
  (up to three) rarest terms are taken newest first instead, which costs a few
  milliseconds; fewer terms are required only if that finds too little. The vector side of
  hybrid search ranks such queries by meaning. Pure."""

from __future__ import annotations

from dataclasses import dataclass

POSTINGS_BUDGET = 20_000
MAX_TERMS = 12
COMMON_TOGETHER = 3


@dataclass(frozen=True, slots=True)
class KeywordPlan:
    """`match`: FTS5 MATCH expressions of the query's terms, tried in order until enough
    is found (empty: nothing can match). `newest_first`: order by recency, not bm25."""

    match: tuple[str, ...] = ()
    newest_first: bool = False


def plan(tokens: list[str], doc_freq: dict[str, int], budget: int = POSTINGS_BUDGET) -> KeywordPlan:
    """`tokens`: the query's terms, each an FTS5 expression (a quoted word, or its forms
    ORed in brackets); `doc_freq`: chunks holding each (absent: 0)."""
    present = sorted((t for t in tokens if doc_freq.get(t, 0) > 0), key=lambda t: doc_freq[t])
    if not present:
        return KeywordPlan()
    if doc_freq[present[0]] <= budget:
        chosen: list[str] = []
        spent = 0
        for token in present[:MAX_TERMS]:
            if chosen and spent + doc_freq[token] > budget:
                break
            chosen.append(token)
            spent += doc_freq[token]
        return KeywordPlan((" OR ".join(chosen),))
    together = present[:COMMON_TOGETHER]
    tries = [" AND ".join(together[:n]) for n in range(len(together), 0, -1)]
    return KeywordPlan(tuple(tries), newest_first=True)
