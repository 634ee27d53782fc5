"""Which chunks get vectors first, and which need no model call at all.

Newest sources go first (the one just added is the one its owner will ask about), and
within a source the chunks where the owner speaks. A chunk whose model input was embedded
before, e.g. the old messages of a chat export imported again, gets a copy of that vector.
"""

from __future__ import annotations

import hashlib
from collections.abc import AsyncGenerator, Callable, Sequence

from biomd.storage.vectors import Vectors

Pending = list[tuple[int, str]]
"""(chunk id, text) of chunks to give vectors, one round."""


def input_key(text: str) -> bytes:
    """A 128-bit hash of what the model is given for a chunk."""
    return hashlib.blake2b(text.encode("utf-8"), digest_size=16).digest()


def unique_inputs(
    keys: Sequence[bytes], inputs: Sequence[str], known: set[bytes]
) -> dict[bytes, str]:
    """The inputs the model still has to see: each new key once, in order."""
    todo: dict[bytes, str] = {}
    for key, text in zip(keys, inputs, strict=True):
        if key not in known and key not in todo:
            todo[key] = text
    return todo


async def pending_rounds(
    table: Vectors, size: int, first: Callable[[str], bool] | None = None
) -> AsyncGenerator[Pending]:
    """Chunks without vectors in rounds of `size`: newest document first (one added while
    this runs goes next), and within one the chunks `first` picks (the owner's), then the
    rest. Each pass walks a document's chunks once, so the whole is linear; it resumes
    wherever vectors stop."""
    queue = await table.sources_missing()
    newest = max(queue, default=0)
    passes: tuple[bool | None, ...] = (True, False) if first else (None,)
    batch: Pending = []  # rounds stay full across small documents
    while queue:
        doc = queue.pop(0)
        for owners_first in passes:
            after = -1
            while rows := await table.missing_in_source(doc, after, size):
                after = rows[-1].seq
                batch += [
                    (r.chunk_id, r.text)
                    for r in rows
                    if first is None or owners_first is None or first(r.text) == owners_first
                ]
                while len(batch) >= size:
                    yield batch[:size]
                    batch = batch[size:]
        if newer := await table.sources_missing(newest):
            queue = newer + queue
            newest = newer[0]
    if batch:
        yield batch
