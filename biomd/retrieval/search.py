"""Retrieval: keyword (FTS5 bm25), vector (in-RAM matrix), hybrid (RRF), grep and read_source."""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, date, tzinfo
from typing import Literal

import numpy as np

from biomd.errors import NotFound
from biomd.fold import fold, fold_mapped
from biomd.retrieval import language, neighbours, subqueries, when
from biomd.retrieval.embedding import Embedder, Matrix, from_blobs
from biomd.retrieval.fusion import RRF_K, rrf, vector_weight
from biomd.retrieval.keyword_plan import POSTINGS_BUDGET, plan
from biomd.retrieval.notes import NoteSearch
from biomd.retrieval.query_terms import QueryTerms
from biomd.retrieval.vector_index import LoadingFn, VectorIndex
from biomd.storage.documents import Source
from biomd.storage.store import Store

Mode = Literal["hybrid", "keyword", "vector"]
MODES: tuple[Mode, ...] = ("hybrid", "keyword", "vector")


@dataclass(frozen=True, slots=True)
class Hit:
    chunk_id: int
    document_id: int
    document: str
    start: int
    end: int
    text: str
    score: float
    before: str = ""  # in a chat, the message before the chunk (and the part it cut off)
    after: str = ""  # and the one after

    @property
    def passage(self) -> str:
        """The chunk with its neighbouring messages: what a reader is shown."""
        return self.before + self.text + self.after

    @property
    def span(self) -> tuple[int, int]:
        """Where `passage` stands in its source."""
        return self.start - len(self.before), self.end + len(self.after)


Reranker = Callable[[str, list[Hit]], Awaitable[list[Hit]]]
"""A last stage that may reorder the fused hits (a cross-encoder scoring each against the
query). None is set by default: no cross-encoder weights can be had here to measure one."""


@dataclass(frozen=True, slots=True)
class FusionConfig:
    """How hybrid search fuses its two lists (tuned on LoCoMo; see bench/RESULTS.md).

    The vector list's RRF weight adapts to each query: it is `vector_weight_low` when the
    best keyword hit holds every content word of the query, and rises towards
    `vector_weight_high` as fewer of them are there (a paraphrase, another vocabulary)."""

    keyword_weight: float = 1.0
    vector_weight_low: float = 0.02
    vector_weight_high: float = 2.0
    coverage_power: float = 3.0
    keyword_depth: int = 20
    vector_depth: int = 10
    k: int = RRF_K


@dataclass(frozen=True, slots=True)
class Mention:
    document_id: int
    document: str
    position: int
    line: str


@dataclass(frozen=True, slots=True)
class GrepPage:
    pattern: str
    total: int
    offset: int
    mentions: list[Mention]


@dataclass(frozen=True, slots=True)
class Slice:
    document_id: int
    document: str
    offset: int
    end: int
    total: int
    text: str

    @property
    def next_offset(self) -> int | None:
        return self.end if self.end < self.total else None


_LINE_CONTEXT = 160
EXACT_POOL = 30  # int8-ranked candidates scored exactly in float32 (30 lose none of 60's, at 1M)
TIME_DEPTH = 30  # candidates looked through for those dated in the period a question names
HIDDEN_DEPTH = 4  # with sources hidden from an assistant, this many times the hits are ranked


class Searcher:
    """Every way of finding things in the corpus. Needs the embedder only for vector search."""

    def __init__(
        self,
        store: Store,
        embedder: Callable[[], Awaitable[Embedder]],
        index: VectorIndex,
        fusion: FusionConfig | None = None,
        keyword_budget: int = POSTINGS_BUDGET,
        languages: Sequence[str] = (),
        zone: tzinfo = UTC,
        timeline: Callable[[], Awaitable[list[str]]] | None = None,
    ) -> None:
        self.store = store
        self._embedder = embedder
        self.index = index
        self.fusion = fusion or FusionConfig()
        self.keyword_budget = keyword_budget
        self._size: tuple[float, int] | None = None
        self._span: tuple[float, date | None, date | None] | None = None
        self.notes = NoteSearch(store, embedder)
        self.terms = QueryTerms(store, languages)
        self.zone = zone  # the owner's, for "yesterday" and "last summer"
        self.timeline = timeline  # bio.md's Timeline items, for "after I moved to Lisbon"
        self.reranker: Reranker | None = None  # a cross-encoder would go here (none by default)

    async def prepare(self, on_loading: LoadingFn | None = None) -> None:
        """Bring the vector index up to date now, reporting a long build to `on_loading`, so
        that the first search need not wait for it."""
        if await self._any_vectors():
            await self.index.refresh(self.store, on_loading)

    async def _any_vectors(self) -> bool:
        return len(self.index) > 0 or (await self.store.vectors.state()).newest > 0

    async def source(self, document_id: int) -> Source | None:
        """The source a hit comes from (its name and dates), or None if it is gone."""
        return await self.store.documents.get(document_id)

    # -- ranked search ------------------------------------------------------------------

    async def search(
        self,
        query: str,
        limit: int = 10,
        mode: Mode = "hybrid",
        vector: Matrix | None = None,
        hidden: frozenset[int] = frozenset(),
    ) -> list[Hit]:
        """Ranked hits, a chat's with their neighbouring messages, none from the sources in
        `hidden` (what another assistant may not see: a deeper list is ranked, then they are
        left out). `vector` is the query's embedding when the caller already has it."""
        depth = limit * HIDDEN_DEPTH + 20 if hidden else limit
        found, seqs = await self._loaded(await self.ranked_ids(query, depth, mode, vector))
        if hidden:
            found = [h for h in found if h.document_id not in hidden][:limit]
        if self.reranker is not None:
            found = await self.reranker(query, found)
        return await self.with_neighbours(found, seqs)

    async def with_neighbours(self, hits: list[Hit], seqs: Mapping[int, int]) -> list[Hit]:
        """Chat hits with the message before and after each (neighbours.py), read from the
        chunks either side of each in one query; `seqs` is each chunk's place in its source."""
        chat = [h for h in hits if neighbours.is_chat(h.text)]
        if not chat:
            return hits
        wanted = [(h.document_id, seqs[h.chunk_id] + step) for h in chat for step in (-1, 1)]
        near = await self.store.chunks.at(wanted)
        out = []
        for h in hits:
            seq = seqs.get(h.chunk_id)
            if seq is None:
                out.append(h)
                continue
            prev, nxt = near.get((h.document_id, seq - 1)), near.get((h.document_id, seq + 1))
            prefix = prev.text[: max(0, h.start - prev.start)] if prev else ""
            suffix = nxt.text[max(0, h.end - nxt.start) :] if nxt else ""
            before = neighbours.before(prefix[-neighbours.REACH :]) if prefix else ""
            after = neighbours.after(suffix[: neighbours.REACH]) if suffix else ""
            out.append(replace(h, before=before, after=after))
        return out

    async def ranked_ids(
        self, query: str, limit: int, mode: Mode = "hybrid", vector: Matrix | None = None
    ) -> list[tuple[int, float]]:
        """(chunk id, score) best first, without loading the hits' text. A question about a
        time ("in 2019", "last summer", "after I moved to Lisbon") puts what is dated then
        first, among a deeper list."""
        period = await self.period(query)
        if period is None or not await self._dated_within(period):
            return await self._ranked(query, limit, mode, vector)
        ranked = await self._ranked(query, max(limit * 3, TIME_DEPTH), mode, vector)
        dates = await self.store.chunks.dates([cid for cid, _ in ranked])
        inside = [r for r in ranked if (d := when.day_of(dates.get(r[0]))) and period.holds(d)]
        held = {cid for cid, _ in inside}
        return (inside + [r for r in ranked if r[0] not in held])[:limit]

    async def _dated_within(self, period: when.Period) -> bool:
        """Whether the corpus has anything dated in the period (its sources' first and last
        dates, re-read at most every 30 s): "yesterday" in a corpus that ends years ago
        changes nothing, so it costs nothing."""
        now = time.monotonic()
        if self._span is None or now - self._span[0] > 30:
            span = await self.store.documents.date_span()
            self._span = (now, when.day_of(span[0]), when.day_of(span[1]))
        _, first_day, last_day = self._span
        if first_day is None or last_day is None:
            return False
        return period.overlaps(first_day, last_day)

    async def period(self, query: str) -> when.Period | None:
        """The days a question is about, in the owner's time zone, if it names a time."""
        today = when.today_in(self.zone)
        found = when.period(query, today)
        if found is None and self.timeline is not None and when.names_an_event(query):
            found = when.period(query, today, when.timeline_events(await self.timeline()))
        return found

    async def _ranked(
        self, query: str, limit: int, mode: Mode, vector: Matrix | None
    ) -> list[tuple[int, float]]:
        if mode == "keyword":
            return [(cid, -score) for cid, score in await self.keyword_ids(query, limit)]
        if mode == "vector":
            return await self.vector_ids(query, limit, vector)
        return await self.hybrid_ids(query, limit, vector)

    async def keyword_ids(self, query: str, limit: int) -> list[tuple[int, float]]:
        """(chunk id, bm25) best first. bm25 is lower-is-better, as FTS5 gives it. The query is
        planned (biomd.retrieval.keyword_plan) so that its cost stays bounded on a large corpus;
        when it has only common words, the newest chunks holding them come first, with a
        score that falls with age."""
        if limit <= 0:
            return []
        total = await self._corpus_size()
        terms = await self.terms.terms(query, total)
        if not terms:
            return []
        df = {t.expression: t.chunks for t in terms}
        planned = plan([t.expression for t in terms], df, self.keyword_budget)
        found: dict[int, float] = {}
        for match in planned.match:
            for cid, score in await self._matching(match, limit, planned.newest_first):
                if cid not in found:
                    found[cid] = float(len(found)) if planned.newest_first else score
            if len(found) >= limit:
                break
        return sorted(found.items(), key=lambda x: x[1])[:limit]

    async def _matching(
        self, match: str, limit: int, newest_first: bool
    ) -> list[tuple[int, float]]:
        """Ready chunks matching an FTS5 expression: the best `limit` by bm25, or the newest."""
        inner = max(limit * 4, 50)
        while True:
            found = await self.store.keywords.match(match, inner, limit, newest_first)
            if len(found.rows) >= limit or not found.more:
                return found.rows
            # Pending documents (one being indexed holds the newest chunks) crowded the top:
            # look further, in steps when the order is by age, which costs nothing to page.
            inner = inner * 8 if newest_first and inner < 100_000 else -1

    async def _corpus_size(self) -> int:
        """About how many chunks there are, re-counted at most every 30 s."""
        now = time.monotonic()
        if self._size is None or now - self._size[0] > 30:
            self._size = (now, await self.store.chunks.id_span())
        return self._size[1]

    async def vector_ids(
        self, query: str, limit: int, vector: Matrix | None = None
    ) -> list[tuple[int, float]]:
        """(chunk id, cosine) best first, over whatever vectors exist now: a shortlist from
        the compact index, scored exactly with the store's float32 vectors."""
        if limit <= 0 or not await self._any_vectors():
            return []
        embedding = None
        if vector is None:  # the model loads while the index does, on a first search
            embedding = asyncio.ensure_future(self._embed_query(query))
        try:
            await self.index.refresh(self.store)
        finally:
            if embedding is not None:
                vector = await embedding
        q = np.asarray(vector, dtype=np.float32)
        if len(self.index) == 0 or self.index.dim != len(q):
            return []  # (a switch of model ended between the index's refresh and the query)
        ids = await asyncio.to_thread(self.index.shortlist, q, max(limit * 3, EXACT_POOL))
        blobs = await self.store.vectors.of(ids)
        if not blobs:
            return []
        found = [cid for cid in ids if cid in blobs]
        scores = from_blobs([blobs[c] for c in found], len(q)) @ q
        order = np.argsort(-scores, kind="stable")[:limit]
        return [(found[i], float(scores[i])) for i in order]

    async def _embed_query(self, query: str) -> Matrix:
        embedder = await self._embedder()  # the serving model: the stored vectors' own
        return await asyncio.to_thread(embedder.embed_query, query)

    async def hybrid_ids(
        self, query: str, limit: int, query_vector: Matrix | None = None
    ) -> list[tuple[int, float]]:
        cfg = self.fusion
        keyword, vector = await asyncio.gather(
            self.keyword_ids(query, max(cfg.keyword_depth, limit)),
            self.vector_ids(query, max(cfg.vector_depth, limit), query_vector),
        )
        coverage = await self.coverage(query, keyword[0][0]) if keyword else 0.0
        weight = vector_weight(
            coverage, cfg.vector_weight_low, cfg.vector_weight_high, cfg.coverage_power
        )
        fused = rrf(
            [[cid for cid, _ in keyword], [cid for cid, _ in vector]],
            [cfg.keyword_weight, weight],
            k=cfg.k,
        )
        pieces = subqueries.parts(query)
        if not pieces:
            return fused[:limit]
        return await self._with_parts(query, pieces, fused, limit)

    async def _with_parts(
        self, query: str, pieces: list[str], fused: list[tuple[int, float]], limit: int
    ) -> list[tuple[int, float]]:
        """A question about two things: each part searched alone, its best passage given one
        of the first five places (subqueries.py)."""
        bests = [
            [cid for cid, _ in await self.hybrid_ids(piece, subqueries.TOP)] for piece in pieces
        ]
        shown = [cid for cid, _ in fused[: max(limit, subqueries.TOP)]]
        chunks = await self.store.chunks.by_id(shown[: subqueries.TOP])
        words = subqueries.phrases(query)
        exact = {
            cid
            for cid, c in chunks.items()
            if any(p in " ".join(re.findall(r"\w+", c.text.casefold())) for p in words)
        }
        scores = dict(fused)
        placed = subqueries.place(shown, bests, exact)
        return [(cid, scores.get(cid, 0.0)) for cid in placed][:limit]

    async def coverage(self, query: str, chunk_id: int) -> float:
        """Share of the query's content words that a chunk contains, in any of their forms."""
        terms = await self.terms.terms(query, await self._corpus_size())
        if not terms:
            return 0.0
        held = await self.store.keywords.held([t.expression for t in terms], chunk_id)
        return held / len(terms)

    async def hits(self, ranked: list[tuple[int, float]]) -> list[Hit]:
        """Full hits for ranked chunk ids, in the same order; vanished chunks are skipped."""
        return (await self._loaded(ranked))[0]

    async def _loaded(self, ranked: list[tuple[int, float]]) -> tuple[list[Hit], dict[int, int]]:
        """The hits, and each chunk's place in its source (for its neighbours)."""
        chunks = await self.store.chunks.by_id([cid for cid, _ in ranked])
        names = await self.store.documents.names([c.document_id for c in chunks.values()])
        hits = [
            Hit(cid, c.document_id, names.get(c.document_id, "?"), c.start, c.end, c.text, score)
            for cid, score in ranked
            if (c := chunks.get(cid)) is not None
        ]
        return hits, {cid: c.seq for cid, c in chunks.items()}

    # -- grep ---------------------------------------------------------------------------

    async def grep(
        self,
        pattern: str,
        offset: int = 0,
        limit: int = 50,
        exact: bool = False,
        hidden: frozenset[int] = frozenset(),
        within: int | None = None,
    ) -> GrepPage:
        """Every mention of `pattern`, by document and position: ignoring case and accents
        ("Sofia" finds "Sofía"), or as written when `exact`; none in the sources in
        `hidden`; in source `within` only, if given."""
        if not pattern.strip():
            return GrepPage(pattern, 0, offset, [])
        spellings = [pattern] if exact else _spellings(pattern)
        candidates = []
        for like in dict.fromkeys(_like_prefilter(p) for p in spellings):
            candidates += await self.store.chunks.containing(like, within)
        for spelling in [] if exact else spellings:
            if words := language.words(spelling):
                # The index folds accents: its words find "Sofía" where LIKE can't.
                phrase = " ".join(words)
                tail = " *" if spelling.rstrip()[-1:].isalnum() else ""
                candidates += await self.store.keywords.located(f'"{phrase}"{tail}')
        seen: set[tuple[int, int]] = set()
        mentions: list[Mention] = []
        for found in candidates:
            doc_id, name, start, text = found.document_id, found.name, found.start, found.text
            if doc_id in hidden or within not in (None, doc_id):
                continue
            for lo, hi in _spans(text, pattern, exact):
                key = (int(doc_id), int(start) + lo)
                if key not in seen:
                    seen.add(key)
                    mentions.append(Mention(key[0], str(name), key[1], _line_around(text, lo, hi)))
        mentions.sort(key=lambda x: (x.document_id, x.position))
        return GrepPage(pattern, len(mentions), offset, mentions[offset : offset + limit])

    # -- read_source --------------------------------------------------------------------

    async def read_source(self, doc_id: int, offset: int = 0, length: int = 4000) -> Slice:
        """An exact slice of a document's text, stitched from its chunks."""
        doc = await self.store.documents.get(doc_id)
        if doc is None:
            raise NotFound(f"There is no source #{doc_id}.")
        if doc.status == "failed":
            why = (doc.error or "no reason was kept").removeprefix(f"{doc.name}: ").rstrip(". ")
            raise NotFound(
                f"Source #{doc_id} ({doc.name}) failed when it was added, so it has no text to "
                f"read: {why}. Add the file again once it is fixed, or forget #{doc_id}."
            )
        if doc.status != "ready":
            raise NotFound(
                f"Source #{doc_id} ({doc.name}) is still being added; its text can be read "
                "once it is ready."
            )
        offset = max(0, min(offset, doc.text_length))
        end = min(doc.text_length, offset + max(0, length))
        text = await self.store.chunks.text(doc_id, offset, end)
        return Slice(doc_id, doc.name, offset, offset + len(text), doc.text_length, text)


_UNFOLDED = {"ss": "ß", "ae": "æ", "oe": "œ"}
"""Letters the fold writes as two, which neither LIKE nor the keyword index folds."""


def _spellings(pattern: str) -> list[str]:
    """`pattern`, and as it may be written with the letters the fold expands ("strasse" is
    also "straße"), so grep's candidates hold every text that folds to it."""
    out = [pattern]
    low = pattern.lower()
    for pair, letter in _UNFOLDED.items():
        if pair in low:
            out += [x for x in (low.replace(pair, letter),) if x not in out]
    return out


def _like_prefilter(pattern: str) -> str:
    """A LIKE pattern that every true match satisfies. LIKE folds only ASCII case, so the
    longest run of the pattern without other letters is what we ask SQLite for."""
    runs = re.findall(r"[\x00-\x7f]+", pattern)
    run = max(runs, key=len) if runs else ""
    escaped = run.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"


def _spans(text: str, pattern: str, exact: bool) -> list[tuple[int, int]]:
    """Every [start, end) of `text` where `pattern` stands: as written when `exact`, else as
    biomd.fold folds both ("istanbul" is "İstanbul", "strasse" is "Straße")."""
    needle, haystack = (pattern, text) if exact else (fold(pattern), fold(text))
    if not needle or needle not in haystack:
        return []
    starts = [m.start() for m in re.finditer(f"(?={re.escape(needle)})", haystack)]
    if exact:
        return [(at, at + len(needle)) for at in starts]
    folded = fold_mapped(text)  # only for a text that holds it: the map costs more
    return [folded.span(at, at + len(needle)) for at in starts]


def _line_around(text: str, lo: int, hi: int) -> str:
    """The line holding text[lo:hi], trimmed to a readable width around it."""
    start = text.rfind("\n", 0, lo) + 1
    end = text.find("\n", hi)
    end = len(text) if end < 0 else end
    start = max(start, lo - _LINE_CONTEXT)
    end = min(end, hi + _LINE_CONTEXT)
    return text[start:end].strip()
