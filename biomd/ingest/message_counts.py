"""Dated messages per month and speaker, for sources ingested before they were counted at
ingest (the `message_counts` migration). Counted once, from the stored chunks."""

from __future__ import annotations

from collections import Counter

from biomd.ingest.timestamps import line_months
from biomd.storage.store import Store

DONE = "message_counts_backfilled"


async def count_earlier_sources(store: Store) -> int:
    """Count the dated sources that have no counts yet; how many were counted."""
    if await store.meta.get(DONE):
        return 0
    ids = await store.activity.uncounted_sources()
    for doc_id in ids:
        months: Counter[tuple[str, str]] = Counter()
        counted_to = 0
        for chunk in await store.chunks.of_source(doc_id):
            months.update(line_months(chunk.text, max(0, counted_to - chunk.start)))
            counted_to = max(counted_to, chunk.end)
        if months:
            await store.activity.set_months(doc_id, months)
    await store.meta.set({DONE: "1"})
    return len(ids)
