"""The same text in another file, looked for among the stored sources (biomd.ingest.twins
says what counts as the same): the stored source a new one repeats or goes on from."""

from __future__ import annotations

from dataclasses import dataclass

from biomd.ingest.twins import ChatEnd, Fingerprint, Units, Verdict, last_minute, verdict
from biomd.storage.documents import Source
from biomd.storage.store import Store

_TAIL_CHARS = 6000  # of a stored chat, where its last messages are read from


@dataclass(frozen=True)
class Twin:
    verdict: Verdict  # same or longer
    source: Source  # the stored one


async def fingerprint_missing(store: Store) -> None:
    """Fingerprint the ready sources stored before fingerprints were kept."""
    for doc_id in await store.units.missing():
        doc = await store.documents.get(doc_id)
        if doc is None:
            continue
        units = Units()
        units.feed(await store.chunks.text(doc_id, 0, doc.text_length))
        fp = units.finish()
        await store.units.keep(doc_id, fp.count, fp.chat, fp.hashes)


async def find(store: Store, doc_id: int, new: Fingerprint) -> Twin | None:
    """The stored source that source `doc_id` (fingerprinted `new`) repeats, else the latest
    stored chat it goes on from, else None. Sources stored before fingerprints were kept are
    found once `fingerprint_missing` has run."""
    longer: Twin | None = None
    for other in await store.units.sharing(new.hashes, other_than=doc_id):
        kept = await store.units.of(other)
        doc = await store.documents.get(other)
        if kept is None or doc is None:
            continue
        found = verdict(new, Fingerprint(kept.count, kept.chat, kept.hashes))
        if found == "same":
            return Twin("same", doc)
        if found == "longer" and (
            longer is None or (doc.content_end or "") > (longer.source.content_end or "")
        ):
            longer = Twin("longer", doc)
    return longer


async def same_text(store: Store, doc_id: int, new: Fingerprint, length: int) -> Source | None:
    """A stored source whose text is exactly that of source `doc_id` (too short for the
    units to tell: the same three-message chat as a .txt and in the phone's .zip)."""
    mine: str | None = None
    for other in await store.units.sharing(new.hashes, other_than=doc_id):
        doc = await store.documents.get(other)
        if doc is None or doc.status != "ready" or doc.text_length != length:
            continue
        mine = mine if mine is not None else await store.chunks.text(doc_id, 0, length)
        if await store.chunks.text(other, 0, length) == mine:
            return doc
    return None


async def chat_end(store: Store, doc: Source) -> ChatEnd | None:
    """Where a stored chat ends, from its last messages."""
    tail = await store.chunks.text(doc.id, max(0, doc.text_length - _TAIL_CHARS), doc.text_length)
    return last_minute(tail)
