"""Retrieval: hybrid, keyword and vector search, grep, read_source, hostile queries."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from biomd.app.engine import Engine
from biomd.errors import NotFound
from biomd.retrieval.fts_query import keyword_query
from biomd.retrieval.fusion import rrf
from biomd.storage.chunks import ChunkRow
from tests.support.samples import write_corpus


async def ingest_corpus(engine: Engine, folder: Path) -> None:
    write_corpus(folder)
    results = [r async for r in engine.sources.ingest([folder])]
    assert sum(r.status == "added" for r in results) == 6
    await engine.sources.embed_pending()


@pytest.mark.slow
async def test_end_to_end_every_format_is_searchable_and_the_corrupt_file_fails_clearly(
    engine: Engine, tmp_path: Path
) -> None:
    corpus = write_corpus(tmp_path / "corpus")
    results = {r.name: r async for r in engine.sources.ingest([tmp_path / "corpus"])}
    assert results["corpus/broken.pdf"].status == "failed"
    assert results["corpus/broken.pdf"].error == (
        "corpus/broken.pdf: this PDF is damaged and cannot be read (Stream has ended unexpectedly)."
    )
    await engine.sources.embed_pending()
    for name, sentence in corpus.items():
        assert results[name].status == "added", name
        words = sentence.split()
        query = " ".join(words[3:9])
        hits = await engine.sources.search(query, limit=3)
        assert hits and hits[0].document == name, (name, [h.document for h in hits])
        assert (
            hits[0].text
            == (await engine.sources.read(hits[0].document_id)).text[hits[0].start : hits[0].end]
        )


@pytest.mark.slow
async def test_a_paraphrase_is_found_through_the_vector_side(
    engine: Engine, tmp_path: Path
) -> None:
    await ingest_corpus(engine, tmp_path / "corpus")
    query = "lessons from an elderly relative about making loaves"
    assert all(
        h.document != "corpus/grandmother.txt"
        for h in await engine.sources.search(query, mode="keyword")
    )
    vector = await engine.sources.search(query, limit=1, mode="vector")
    assert vector[0].document == "corpus/grandmother.txt"
    hybrid = await engine.sources.search(query, limit=3)
    assert hybrid[0].document == "corpus/grandmother.txt"


@pytest.mark.slow
async def test_an_exact_rare_word_is_found_through_the_keyword_side(
    engine: Engine, tmp_path: Path
) -> None:
    await ingest_corpus(engine, tmp_path / "corpus")
    keyword = await engine.sources.search("Vestmannaeyjar", mode="keyword")
    assert [h.document for h in keyword] == ["corpus/saoirse.md"]
    hybrid = await engine.sources.search("Vestmannaeyjar", limit=1)
    assert hybrid[0].document == "corpus/saoirse.md"


HOSTILE = [
    '"',
    '""',
    '"unbalanced',
    "*",
    "**",
    "-",
    "- -",
    "NEAR",
    "NEAR(a b)",
    "AND",
    "OR OR OR",
    "NOT",
    "a AND",
    "(",
    ")",
    "{a b}:c",
    "col:value",
    "^start",
    "text:foo",
    "chunks_fts",
    "'; DROP TABLE chunks; --",
    "😀",
    "🏳️‍🌈 pride",
    "\x00",
    "",
    "   ",
    "a" * 5000,
    "über-straße",
]


SOURCE = "NEAR the AND gate, a pride flag 🏳️‍🌈 over the über-straße"
FINDS = {"NEAR", "🏳️‍🌈 pride", "über-straße"}  # words of the source: keyword search finds it


@pytest.mark.parametrize("query", HOSTILE)
async def test_any_user_text_is_a_valid_query(engine: Engine, tmp_path: Path, query: str) -> None:
    """Operators, quotes, SQL and control characters are searched as text: no error, and a
    hit only where the source holds the words; grep finds exactly the lines that hold it."""
    (tmp_path / "x.txt").write_text(SOURCE)
    (result,) = [r async for r in engine.sources.ingest([tmp_path / "x.txt"])]
    for mode in ("keyword", "hybrid"):
        hits = await engine.sources.search(query, mode=mode)  # type: ignore[arg-type]
        assert all(h.document_id == result.document_id for h in hits)
        if mode == "keyword" and query in FINDS:
            assert hits, f"{query!r} is in the source"
        if not query.strip("\x00 "):
            assert hits == [], "nothing asked, nothing found"
    found = await engine.sources.grep(query)
    holds = bool(query.strip()) and query.casefold() in SOURCE.casefold()
    assert (found.total > 0) == holds, query
    assert all(m.document_id == result.document_id for m in found.mentions)


@given(st.text(max_size=200))
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_keyword_queries_are_only_quoted_words(text: str) -> None:
    import sqlite3

    query = keyword_query(text)
    if query is None:
        return
    assert re.fullmatch(r'"[^"]+"(?: OR "[^"]+")*', query), query  # no operator survives
    db = sqlite3.connect(":memory:")
    db.execute("CREATE VIRTUAL TABLE t USING fts5(x, tokenize='porter unicode61')")
    db.execute("SELECT * FROM t WHERE t MATCH ?", (query,)).fetchall()  # valid FTS5


def test_common_words_are_dropped_unless_nothing_else_is_left() -> None:
    assert keyword_query("When did I move to Lisbon?") == '"move" OR "lisbon"'
    assert keyword_query("who is it") == '"who" OR "is" OR "it"'
    assert keyword_query("?!") is None


def test_rrf_rewards_items_found_by_both_lists() -> None:
    fused = rrf([[1, 2, 3], [3, 4, 1]])
    assert [item for item, _ in fused][:2] == [1, 3]
    assert fused[0][1] == pytest.approx(1 / 61 + 1 / 63)
    weighted = rrf([[1], [2]], weights=[1.0, 2.0])
    assert [item for item, _ in weighted] == [2, 1]


def test_the_vector_list_counts_for_more_the_less_the_keywords_cover_the_query() -> None:
    from biomd.retrieval.fusion import vector_weight

    weights = [vector_weight(c, 0.02, 2.0, 3.0) for c in (1.0, 0.75, 0.5, 0.0)]
    assert weights[0] == pytest.approx(0.02) and weights[-1] == pytest.approx(2.0)
    assert weights == sorted(weights)
    assert vector_weight(7.0, 0.02, 2.0, 3.0) == pytest.approx(0.02), "clamped"


async def test_coverage_counts_the_query_words_a_chunk_holds(
    engine: Engine, tmp_path: Path
) -> None:
    (tmp_path / "a.txt").write_text("We walked the dogs along the river at dawn.")
    _ = [r async for r in engine.sources.ingest([tmp_path / "a.txt"])]
    (chunk_id, _), *_ = await engine.searcher.keyword_ids("dogs", 1)
    assert await engine.searcher.coverage("walking dogs by the river", chunk_id) == 1.0
    assert await engine.searcher.coverage("dogs and cats", chunk_id) == 0.5
    assert await engine.searcher.coverage("?!", chunk_id) == 0.0


@pytest.mark.slow
async def test_search_uses_whatever_vectors_exist(engine: Engine, tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("Our cat Miso likes to sleep on the warm radiator.")
    _ = [r async for r in engine.sources.ingest([tmp_path / "a.txt"])]
    assert await engine.sources.search("a pet napping somewhere cosy", mode="vector") == []
    hits = await engine.sources.search("Miso", mode="hybrid")
    assert [h.document for h in hits] == ["a.txt"], "keyword side works before any vector"
    await engine.sources.embed_pending()
    assert (await engine.sources.search("a pet napping somewhere cosy", mode="vector"))[
        0
    ].document == ("a.txt")


# -- grep -----------------------------------------------------------------------------------


async def test_grep_finds_every_mention_once_with_positions_and_a_total(
    engine: Engine, tmp_path: Path
) -> None:
    text = "".join(
        f"Paragraph {i} of my diary. " + ("I saw Saoirse today. " if i % 3 == 0 else "") + "\n"
        for i in range(300)
    )
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "diary.txt").write_text(text)
    (notes / "other.txt").write_text("SAOIRSE in capitals, and saoirse in lower case.")
    _ = [r async for r in engine.sources.ingest([notes])]
    page = await engine.sources.grep("saoirse", limit=1000)
    expected_in_diary = text.count("Saoirse")
    assert page.total == expected_in_diary + 2
    diary = [m for m in page.mentions if m.document == "notes/diary.txt"]
    assert [m.position for m in diary] == [
        i for i in range(len(text)) if text.startswith("Saoirse", i)
    ]
    assert all("Saoirse" in m.line for m in diary)

    first = await engine.sources.grep("saoirse", offset=0, limit=10)
    second = await engine.sources.grep("saoirse", offset=10, limit=10)
    assert first.total == second.total == page.total
    assert first.mentions + second.mentions == page.mentions[:20]


async def test_grep_matches_phrases_and_non_ascii_ignoring_case(
    engine: Engine, tmp_path: Path
) -> None:
    (tmp_path / "a.txt").write_text("Dinner with ÉMILE at the Café Procope.\nÉmile paid.")
    _ = [r async for r in engine.sources.ingest([tmp_path / "a.txt"])]
    assert (await engine.sources.grep("émile")).total == 2
    assert (await engine.sources.grep("café procope")).total == 1
    assert (await engine.sources.grep("100%")).total == 0
    assert (await engine.sources.grep("_")).total == 0


# -- read_source ----------------------------------------------------------------------------


@pytest.fixture
async def long_doc(engine: Engine, tmp_path: Path) -> tuple[int, str]:
    text = "".join(
        f"Entry {i}: the weather was {'fine' if i % 2 else 'wet'}.\n" for i in range(900)
    )
    (tmp_path / "long.txt").write_text(text)
    (result,) = [r async for r in engine.sources.ingest([tmp_path / "long.txt"])]
    assert result.document_id is not None
    return result.document_id, text


async def test_read_source_returns_exact_slices_across_chunk_boundaries(
    engine: Engine, long_doc: tuple[int, str]
) -> None:
    doc_id, text = long_doc
    for offset, length in [(0, 10), (850, 200), (1000, 3000), (len(text) - 5, 100), (0, 8000)]:
        part = await engine.sources.read(doc_id, offset, length)
        assert part.text == text[offset : offset + length]
        assert (part.offset, part.end, part.total) == (
            offset,
            min(offset + length, len(text)),
            len(text),
        )


async def test_read_source_is_capped_and_paginates(
    engine: Engine, long_doc: tuple[int, str]
) -> None:
    doc_id, text = long_doc
    cap = engine.settings.biographer.read_max_chars
    pieces, offset = [], 0
    while offset is not None:
        part = await engine.sources.read(doc_id, offset, 10**9)
        assert len(part.text) <= cap
        pieces.append(part.text)
        offset = part.next_offset  # type: ignore[assignment]
    assert "".join(pieces) == text


async def test_read_source_of_an_unknown_id_is_not_found(engine: Engine) -> None:
    with pytest.raises(NotFound, match="There is no source #999"):
        await engine.sources.read(999)


def test_a_keyword_plan_keeps_every_rare_word_and_bounds_common_ones() -> None:
    from biomd.retrieval.keyword_plan import plan

    words = {"lisbon": 40, "move": 900, "love": 5000, "time": 7000, "home": 6000, "dinner": 3000}
    df = {f'"{w}"': n for w, n in words.items()}

    def q(*ws: str) -> list[str]:
        return [f'"{w}"' for w in ws]

    assert plan(q("move", "lisbon", "love"), df, budget=1000).match == ('"lisbon" OR "move"',)
    rare = plan(q("love", "lisbon"), df, budget=1000)
    assert rare.match == ('"lisbon"',) and not rare.newest_first
    common = plan(q("time", "love", "home", "dinner"), df, budget=1000)
    assert common.newest_first
    assert common.match == (
        '"dinner" AND "love" AND "home"',
        '"dinner" AND "love"',
        '"dinner"',
    )
    assert plan(q("nowhere"), df).match == ()


async def test_a_query_of_only_common_words_finds_the_newest_chunks_holding_them(
    engine: Engine, tmp_path: Path
) -> None:
    """On a corpus where every word is common (a budget of one posting stands in for a
    million chunks), chunks holding all the words come newest first, then fewer words."""
    notes = tmp_path / "notes"
    notes.mkdir()
    lines = {
        "f": "dinner party soon",
        "a": "dinner with mum at home",
        "b": "dinner at home again",
        "c": "mum called about dinner",
        "d": "home early tonight",
        "e": "the zeppelin flew over the house",
    }
    for name, text in lines.items():
        (notes / f"{name}.txt").write_text(text + "\n")
        _ = [r async for r in engine.sources.ingest([notes / f"{name}.txt"])]
    searcher = engine.searcher
    searcher.keyword_budget = 1
    docs = {
        h.document: h for h in await engine.sources.search("home dinner", limit=3, mode="keyword")
    }
    assert list(docs) == ["b.txt", "a.txt", "d.txt"]  # both words newest first, then the rarer
    only = await engine.sources.search("zeppelin dinner", limit=5, mode="keyword")
    assert [h.document for h in only] == ["e.txt"]  # the rare word's result is never lost
    hybrid = await engine.sources.search("dinner mum home", limit=5, mode="hybrid")
    assert hybrid[0].document == "a.txt"


async def add_chunks(engine: Engine, name: str, texts: list[str], ready: bool = True) -> None:
    store = engine.store
    doc = await store.documents.add(
        sha256=name.ljust(64, "0"), name=name, kind="text", mime=None, size=1, raw_path=""
    )
    await store.chunks.add(doc, [ChunkRow(i, i, i + 1, t) for i, t in enumerate(texts)])
    if ready:
        await store.documents.finish(
            doc, text_length=len(texts), n_chunks=len(texts), content_start=None, content_end=None
        )


async def test_chunk_counts_are_exact_up_to_a_bound_and_estimated_above_it(engine: Engine) -> None:
    """Counting every chunk that holds a common word reads its whole posting list; above the
    bound the newest chunks holding it stand in for the rest."""
    texts = [
        ("apple pie" if i % 2 else "plain") + (" pear" if i % 40 == 0 else "") for i in range(2000)
    ]
    await add_chunks(engine, "fruit", texts)
    keywords = engine.store.keywords
    bounded = await keywords.doc_freq(["apple", "pear", "kiwi"], 1, exact_upto=100)
    assert bounded["pear"] == 50 and bounded["kiwi"] == 0
    assert 950 <= bounded["apple"] <= 1050 and bounded["apple"] != 1000, "an estimate"
    grown = 10_000  # a count is kept until the corpus grows by a tenth
    assert (await keywords.doc_freq(["apple"], grown, exact_upto=2000))["apple"] == 1000


async def test_a_source_being_indexed_does_not_hide_older_matches(engine: Engine) -> None:
    """The newest chunks holding a word belong to a source not ready yet: search looks
    past them, as deep as it must, to the ready ones."""
    await add_chunks(engine, "old", ["we had dinner at home"] * 3)
    await add_chunks(engine, "new", ["dinner again"] * 500, ready=False)
    engine.searcher.keyword_budget = 1  # every word common: newest first
    hits = await engine.sources.search("dinner", limit=3, mode="keyword")
    assert [h.document for h in hits] == ["old"] * 3
