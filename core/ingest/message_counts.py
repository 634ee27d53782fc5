"""Dated messages per month and speaker, for sources ingested before they were counted at
ingest (the `message_counts` migration). Counted once, from the stored chunks."""

from __future__ import annotations

from collections import Counter

from core.ingest.timestamps import line_months
from core.storage.store import Store

DONE = "message_counts_backfilled"


async def count_earlier_sources(store: Store) -> int:
    """Count the dated sources that have no counts yet; how many were counted."""
    if await store.get_meta(DONE):
        return 0
    rows = await store.fetchall(
        "SELECT id FROM documents WHERE status = 'ready' AND content_start IS NOT NULL"
        " AND id NOT IN (SELECT DISTINCT document_id FROM message_counts)"
    )
    for (doc_id,) in rows:
        months: Counter[tuple[str, str]] = Counter()
        counted_to = 0
        chunks = await store.fetchall(
            "SELECT start_char, end_char, text FROM chunks WHERE document_id = ? ORDER BY seq",
            (doc_id,),
        )
        for start, end, text in chunks:
            months.update(line_months(str(text), max(0, counted_to - int(start))))
            counted_to = max(counted_to, int(end))
        if months:
            await store.set_message_counts(int(doc_id), months)
    await store.set_meta({DONE: "1"})
    return len(rows)
