"""Keyword queries over `chunks_fts` (which core.storage.chunks writes): bm25 or newest-first
matches of ready sources' chunks, how many chunks hold each term, the indexed words that
start alike, and which of a query's terms one chunk holds. The temporary tables that fold
query words the index's way are this module's own, on the reader connection."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from core.storage.chunks import Located
from core.storage.database import Database
from core.storage.migrations import FTS_TOKENIZER

_DF_CACHE_MAX = 50_000


class Keywords:
    def __init__(self, db: Database) -> None:
        self._db = db
        self._terms_lock = asyncio.Lock()
        self._terms_ready = False
        self._df_cache: dict[str, tuple[int, int]] = {}
        self._range_cache: dict[str, tuple[list[tuple[str, int]], int]] = {}

    async def match(
        self, expression: str, inner: int, limit: int, newest_first: bool
    ) -> list[tuple[int, float]]:
        """(chunk id, score) of ready sources' chunks matching an FTS5 expression: among the
        `inner` best by bm25 (lower is better), or the `inner` newest, at most `limit`."""
        inner_select, inner_order, outer_order = (
            ("0", "rowid DESC", "f.rowid DESC") if newest_first else ("rank", "rank", "f.score")
        )
        rows = await self._db.fetchall(
            f"SELECT f.rowid, f.score FROM (SELECT rowid, {inner_select} AS score FROM chunks_fts"
            f" WHERE chunks_fts MATCH ? ORDER BY {inner_order} LIMIT ?) f"
            " JOIN chunks c ON c.id = f.rowid"
            " JOIN documents d ON d.id = c.document_id AND d.status = 'ready'"
            f" ORDER BY {outer_order} LIMIT ?",
            (expression, inner, limit),
        )
        return [(int(r[0]), float(r[1])) for r in rows]

    async def in_source(self, expression: str, doc_id: int, limit: int) -> list[tuple[int, str]]:
        """(start, text) of one source's chunks matching an FTS5 expression, best first."""
        rows = await self._db.fetchall(
            "SELECT c.start_char, c.text FROM chunks_fts JOIN chunks c ON c.id = chunks_fts.rowid"
            " WHERE chunks_fts MATCH ? AND c.document_id = ? ORDER BY bm25(chunks_fts) LIMIT ?",
            (expression, doc_id, limit),
        )
        return [(int(s), str(t)) for s, t in rows]

    async def located(self, expression: str) -> list[Located]:
        """Chunks of ready sources matching an FTS5 expression, by source and position."""
        rows = await self._db.fetchall(
            "SELECT c.document_id, d.name, c.start_char, c.text FROM chunks_fts"
            " JOIN chunks c ON c.id = chunks_fts.rowid"
            " JOIN documents d ON d.id = c.document_id AND d.status = 'ready'"
            " WHERE chunks_fts MATCH ? ORDER BY c.document_id, c.start_char",
            (expression,),
        )
        return [Located(int(d), str(n), int(s), str(t)) for d, n, s, t in rows]

    async def held(self, terms: Sequence[str], chunk_id: int) -> int:
        """How many of `terms` (each an FTS5 phrase) the chunk holds."""
        if not terms:
            return 0
        probe = "EXISTS(SELECT 1 FROM chunks_fts WHERE chunks_fts MATCH ? AND rowid = ?)"
        params: list[object] = []
        for term in terms:
            params += [term, chunk_id]
        return int(await self._db.scalar("SELECT " + " + ".join([probe] * len(terms)), params))

    async def doc_freq(self, tokens: Sequence[str], total: int = 0) -> dict[str, int]:
        """How many chunks hold each token, as the FTS index stems it (0 if none). Counting
        a common word reads its whole posting list (20 ms for 400k chunks), so counts are
        cached until the corpus has grown by a tenth."""
        fresh = {
            t: hit[0]
            for t in tokens
            if (hit := self._df_cache.get(t)) is not None and _fresh(hit[1], total)
        }
        missing = [t for t in dict.fromkeys(tokens) if t not in fresh]
        if missing:
            counted = await self._count_terms(missing)
            for token, count in counted.items():
                self._df_cache[token] = (count, total)
            if len(self._df_cache) > _DF_CACHE_MAX:
                self._df_cache.clear()
            fresh.update(counted)
        return {t: fresh.get(t, 0) for t in tokens}

    async def words_from(self, prefix: str, total: int = 0) -> list[tuple[str, int]]:
        """Every indexed word that starts with `prefix` (as the index folds words), with how
        many chunks hold it. Reading a range costs what counting its words does, so it is
        cached like `doc_freq`."""
        hit = self._range_cache.get(prefix)
        if hit is not None and _fresh(hit[1], total):
            return hit[0]
        upper = prefix[:-1] + chr(ord(prefix[-1]) + 1)
        async with self._terms_lock:
            await self._ensure_terms()
            async with self._db.reader.execute(
                "SELECT term, doc FROM temp.biomd_vocab WHERE term >= ? AND term < ?",
                (prefix, upper),
            ) as cur:
                rows = [(str(t), int(d)) for t, d in await cur.fetchall()]
        if len(self._range_cache) > _DF_CACHE_MAX // 10:
            self._range_cache.clear()
        self._range_cache[prefix] = (rows, total)
        return rows

    async def _ensure_terms(self) -> None:
        reader = self._db.reader
        if not self._terms_ready:
            await reader.execute(
                "CREATE VIRTUAL TABLE IF NOT EXISTS temp.biomd_query USING fts5(x,"
                f" tokenize = '{FTS_TOKENIZER}')"
            )
            await reader.execute(
                "CREATE VIRTUAL TABLE IF NOT EXISTS temp.biomd_query_terms"
                " USING fts5vocab(temp, biomd_query, instance)"
            )
            await reader.execute(
                "CREATE VIRTUAL TABLE IF NOT EXISTS temp.biomd_vocab"
                " USING fts5vocab(main, chunks_fts, row)"
            )
            self._terms_ready = True

    async def index_tokens(self, words: Sequence[str]) -> dict[str, str]:
        """Each word as the index holds it (folded and stemmed); "" for no token."""
        rows = await self._tokenized(
            words, "SELECT doc, term FROM temp.biomd_query_terms ORDER BY doc, offset"
        )
        found: dict[str, str] = {}
        for doc, term in rows:
            found.setdefault(words[int(doc) - 1], str(term))
        return {w: found.get(w, "") for w in words}

    async def _count_terms(self, tokens: list[str]) -> dict[str, int]:
        rows = await self._tokenized(
            tokens,
            "SELECT q.doc, MIN(COALESCE(v.doc, 0)) FROM temp.biomd_query_terms q"
            " LEFT JOIN temp.biomd_vocab v ON v.term = q.term GROUP BY q.doc",
        )
        found = {tokens[doc - 1]: int(str(count)) for doc, count in rows}
        return {t: found.get(t, 0) for t in tokens}

    async def _tokenized(self, texts: Sequence[str], select: str) -> list[tuple[int, object]]:
        """Put `texts` through the index's tokenizer (temp.biomd_query, one row each, rowid
        from 1) and run `select` over their tokens."""
        reader = self._db.reader
        async with self._terms_lock:
            await self._ensure_terms()
            await reader.execute("DELETE FROM temp.biomd_query")
            await reader.executemany(
                "INSERT INTO temp.biomd_query(rowid, x) VALUES (?, ?)",
                [(i + 1, t) for i, t in enumerate(texts)],
            )
            async with reader.execute(select) as cur:
                return [(int(a), b) for a, b in await cur.fetchall()]


def _fresh(counted_at: int, total: int) -> bool:
    """Whether a count made when the corpus was `counted_at` chunks still holds at `total`:
    until it has grown by a tenth."""
    return total <= counted_at * 1.1 + 100
