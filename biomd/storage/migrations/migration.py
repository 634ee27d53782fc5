"""One named step of the schema."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Migration:
    name: str
    sql: str
    reindex_words: bool = False  # then re-index every chunk's words, in the same transaction


FTS_TOKENIZER = "porter unicode61 remove_diacritics 2"  # as chunks_fts is created
