"""The pipeline and the store: duplicates, forget, failures, crash recovery, permissions."""

from __future__ import annotations

import sqlite3
import stat
from pathlib import Path
from typing import Any

import pytest

from biomd.app.engine import Engine
from biomd.ingest.pipeline import IngestResult
from biomd.retrieval.embedding import FastEmbedder
from biomd.settings import Settings
from biomd.storage.chunks import ChunkRow
from biomd.storage.migrations import MIGRATIONS
from tests.conftest import make_settings
from tests.support import db
from tests.support.samples import SOURDOUGH, zip_bytes


async def ingest(engine: Engine, *paths: Path) -> list[IngestResult]:
    return [r async for r in engine.sources.ingest(list(paths))]


async def test_the_data_dir_is_private_and_the_database_is_in_wal_with_foreign_keys(
    engine: Engine, settings: Settings
) -> None:
    assert stat.S_IMODE(settings.data_dir.stat().st_mode) == 0o700
    assert stat.S_IMODE(settings.db_path.stat().st_mode) == 0o600
    assert stat.S_IMODE((settings.data_dir / "raw").stat().st_mode) == 0o700
    assert db.journal_mode(settings.db_path) == "wal"
    with pytest.raises(sqlite3.IntegrityError, match="FOREIGN KEY"):  # foreign keys are on
        await engine.store.chunks.add(999, [ChunkRow(0, 0, 1, "x")])
    assert {"documents", "chunks", "chunks_fts", "vectors", "meta"} <= db.tables(settings.db_path)


async def test_migrations_run_once_and_reopening_changes_nothing(
    settings: Settings, embedder: FastEmbedder
) -> None:
    for _ in range(2):
        async with await Engine.open(settings, embedder):
            pass
    assert db.user_version(settings.db_path) == len(MIGRATIONS)


async def test_an_identical_file_is_reported_as_a_duplicate_and_stored_once(
    engine: Engine, settings: Settings, tmp_path: Path
) -> None:
    (tmp_path / "a.txt").write_text(SOURDOUGH)
    (tmp_path / "copy-of-a.txt").write_text(SOURDOUGH)
    first, second = await ingest(engine, tmp_path / "a.txt", tmp_path / "copy-of-a.txt")
    assert first.status == "added"
    assert second.status == "duplicate" and second.document_id == first.document_id
    raw_files = [p for p in (settings.data_dir / "raw").rglob("*") if p.is_file()]
    assert len(raw_files) == 1 and raw_files[0].read_text() == SOURDOUGH
    assert [raw_files[0].name] == db.document_hashes(settings.db_path)
    assert len(await engine.sources.all()) == 1


@pytest.mark.slow
async def test_forget_removes_chunks_keyword_rows_vectors_and_the_raw_file(
    engine: Engine, settings: Settings, tmp_path: Path
) -> None:
    (tmp_path / "a.txt").write_text(SOURDOUGH + "\n" + "More words about Brigid. " * 100)
    (tmp_path / "b.txt").write_text("Something else entirely, about kayaks.")
    a, _ = await ingest(engine, tmp_path / "a.txt", tmp_path / "b.txt")
    await engine.sources.embed_pending()
    assert await engine.sources.search("Brigid", mode="keyword")
    assert await engine.sources.search("starter jar", mode="vector")
    doc = await engine.sources.get(a.document_id)  # type: ignore[arg-type]
    raw = settings.data_dir / doc.raw_path
    assert raw.exists()

    await engine.sources.forget(doc.id)

    assert not raw.exists()
    remaining = db.chunks(settings.db_path)
    assert remaining and all(c.document_id != doc.id for c in remaining)
    assert db.word_hits(settings.db_path, "chunks_fts", "brigid") == 0
    assert [v.chunk_id for v in db.vectors(settings.db_path)] == [c.id for c in remaining]
    assert await engine.sources.search("Brigid", mode="keyword") == []
    assert all(
        h.document_id != doc.id for h in await engine.sources.search("starter jar", mode="vector")
    )
    assert db.keyword_index_ok(settings.db_path)


async def test_a_corrupt_file_fails_clearly_and_the_rest_of_the_batch_is_ingested(
    engine: Engine, tmp_path: Path
) -> None:
    (tmp_path / "a.txt").write_text("first good file")
    (tmp_path / "b.pdf").write_bytes(b"%PDF-1.4 this is not really a pdf")
    (tmp_path / "c.txt").write_text("second good file")
    results = await ingest(engine, tmp_path)
    top = tmp_path.name
    assert [(r.name, r.status) for r in results] == [
        (f"{top}/a.txt", "added"),
        (f"{top}/b.pdf", "failed"),
        (f"{top}/c.txt", "added"),
    ]
    assert results[1].error is not None and results[1].error.startswith(f"{top}/b.pdf: ")
    failed = [d for d in await engine.sources.all() if d.status == "failed"]
    assert [(d.name, d.raw_path, d.n_chunks) for d in failed] == [(f"{top}/b.pdf", "", 0)]


async def test_a_damaged_zip_is_a_failed_source_like_any_bad_file(
    engine: Engine, tmp_path: Path
) -> None:
    whole = zip_bytes({"a.txt": SOURDOUGH})
    (tmp_path / "truncated.zip").write_bytes(whole[: len(whole) // 2])
    (result,) = await ingest(engine, tmp_path / "truncated.zip")
    assert result.status == "failed" and result.document_id == 1
    assert (result.error or "").startswith("truncated.zip: this ZIP archive is damaged")
    [listed] = await engine.sources.all()
    assert (listed.id, listed.status, listed.name) == (1, "failed", "truncated.zip")
    assert listed.error == result.error


async def test_a_failed_file_is_tried_again_when_sent_again(engine: Engine, tmp_path: Path) -> None:
    path = tmp_path / "x.txt"
    path.write_bytes(b"")
    (first,) = await ingest(engine, path)
    assert first.status == "failed" and "empty" in (first.error or "")
    (again,) = await ingest(engine, path)
    assert again.status == "failed" and again.document_id == first.document_id


async def test_a_source_that_failed_before_is_stored_whole_when_it_reads_now(
    engine: Engine, settings: Settings, tmp_path: Path
) -> None:
    path = tmp_path / "x.txt"
    path.write_text(SOURDOUGH)
    staged = engine.sources.raw.stage(path)
    engine.sources.raw.discard(staged)
    doc_id = await engine.store.documents.add(
        sha256=staged.sha256,
        name="x.txt",
        kind="unknown",
        mime=None,
        size=staged.size,
        raw_path="",
    )
    await engine.store.documents.fail(doc_id, "x.txt: an older biomd could not read it.")
    (result,) = await ingest(engine, path)
    assert (result.status, result.document_id) == ("added", doc_id)
    doc = await engine.sources.get(doc_id)
    assert doc.status == "ready" and doc.error is None
    assert (settings.data_dir / doc.raw_path).read_text() == SOURDOUGH


async def test_a_whitespace_only_file_fails_with_no_text_found(
    engine: Engine, tmp_path: Path
) -> None:
    (tmp_path / "blank.txt").write_text("   \n\n\t  \n")
    (result,) = await ingest(engine, tmp_path / "blank.txt")
    assert result.status == "failed" and result.error == "blank.txt: no text found in it."
    assert db.count(engine.settings.db_path, "chunks") == 0


async def test_zip_members_become_sources_of_their_own_and_nested_zips_open_too(
    engine: Engine, tmp_path: Path
) -> None:
    inner = zip_bytes({"deep.txt": b"the deepest note about lighthouses"})
    (tmp_path / "box.zip").write_bytes(
        zip_bytes({"a.txt": b"note about kites", "inner.zip": inner, "junk.bin": b"\x00\x01" * 99})
    )
    results = await ingest(engine, tmp_path / "box.zip")
    assert [(r.name, r.status) for r in results] == [
        ("box.zip/a.txt", "added"),
        ("box.zip/inner.zip/deep.txt", "added"),
        ("box.zip/junk.bin", "failed"),
    ]
    hits = await engine.sources.search("lighthouses", mode="keyword")
    assert [h.document for h in hits] == ["box.zip/inner.zip/deep.txt"]


async def test_archives_nested_past_the_depth_limit_are_refused(
    tmp_path: Path, minilm_path: Path, embedder: FastEmbedder
) -> None:
    from tests.conftest import make_settings

    settings = make_settings(tmp_path / "d", minilm_path, zip_max_depth=1)
    nested = zip_bytes({"x.txt": b"bottom"})
    for level in range(3):
        nested = zip_bytes({f"level{level}.zip": nested})
    (tmp_path / "russian.zip").write_bytes(nested)
    async with await Engine.open(settings, embedder) as engine:
        results = await ingest(engine, tmp_path / "russian.zip")
    assert [r.status for r in results] == ["failed"]
    assert "nested more than 1 deep" in (results[0].error or "")


async def test_a_document_left_pending_by_a_crash_is_completed_on_the_next_run(
    settings: Settings, embedder: FastEmbedder, tmp_path: Path
) -> None:
    text = "\n".join(
        f"Line {i}: a day in the life, with the word albatross{i}." for i in range(400)
    )
    source = tmp_path / "journal.txt"
    source.write_text(text)
    async with await Engine.open(settings, embedder) as engine:
        staged = engine.sources.raw.stage(source)
        rel = engine.sources.raw.file(staged.sha256, staged)
        doc_id = await engine.store.documents.add(
            sha256=staged.sha256,
            name="journal.txt",
            kind="text",
            mime=None,
            size=staged.size,
            raw_path=rel,
        )
        await engine.store.chunks.add(doc_id, [ChunkRow(0, 0, 10, text[:10])])  # then: crash
        assert await engine.sources.search("albatross3", mode="keyword") == [], (
            "pending is not searchable"
        )

    async with await Engine.open(settings, embedder) as engine:
        results = await ingest(engine)
        assert [(r.document_id, r.status) for r in results] == [(doc_id, "added")]
        doc = await engine.sources.get(doc_id)
        assert doc.status == "ready" and doc.text_length == len(text)
        whole = await engine.sources.read(doc_id, 0, 10**9)
        assert whole.text == text[: settings.biographer.read_max_chars]
        seqs = [c.seq for c in db.chunks(settings.db_path) if c.document_id == doc_id]
        assert seqs == list(range(doc.n_chunks))


async def test_chat_transcript_timestamps_are_kept_on_chunks_and_the_document(
    engine: Engine, settings: Settings, tmp_path: Path
) -> None:
    lines = [
        f"[2021-03-{d:02d} 10:{d:02d}] Ana: day {d} of the trip to Porto" for d in range(1, 29)
    ]
    (tmp_path / "chat.txt").write_text("\n".join(lines) * 3)
    (result,) = await ingest(engine, tmp_path / "chat.txt")
    doc = await engine.sources.get(result.document_id)  # type: ignore[arg-type]
    assert (doc.content_start, doc.content_end) == ("2021-03-01 10:01", "2021-03-28 10:28")
    stamps = [c.ts for c in db.chunks(settings.db_path)]
    assert stamps[0] == "2021-03-01 10:01" and all(stamps)


async def test_a_second_process_cannot_ingest_into_the_same_data_dir_at_once(
    engine: Engine, settings: Settings, embedder: FastEmbedder, tmp_path: Path
) -> None:
    from biomd.errors import Busy

    (tmp_path / "a.txt").write_text("hello")
    await ingest(engine, tmp_path / "a.txt")
    other = await Engine.open(settings, embedder)
    try:
        with pytest.raises(Busy, match=r"Another biomd process .* is writing to this data dir"):
            await ingest(other, tmp_path / "a.txt")
    finally:
        await other.close()


def test_a_date_in_the_file_name_dates_an_undated_source() -> None:
    from biomd.ingest.timestamps import date_in_name

    assert date_in_name("journal/2019-04-07.md") == "2019-04-07"
    assert date_in_name("IMG_20190407_120000.jpg") == "2019-04-07"
    assert date_in_name("2020_02_30 then 2020_03_01.txt") == "2020-03-01"
    assert date_in_name("x-2019-13-01.txt") is None
    assert date_in_name("order 12345678.txt") is None


async def test_dated_messages_are_counted_once_per_month_and_speaker_even_across_chunks(
    tmp_path: Path, minilm_path: Path, embedder: Any
) -> None:
    from biomd.ingest.message_counts import DONE

    lines = []
    for i in range(600):
        month = 1 + i // 200  # 200 messages in each of January, February, March
        who = "Grace (owner)" if i % 3 else "Bo"
        lines.append(f"[2021-{month:02d}-{1 + i % 28:02d} 10:{i % 60:02d}] {who}: message {i}")
    chat = tmp_path / "chat.txt"
    chat.write_text("Chat: Bo\n" + "\n".join(lines) + "\n")
    settings = make_settings(tmp_path / "data", minilm_path)
    counts: dict[tuple[str, str], int] = {}
    for i in range(600):
        key = (f"2021-{1 + i // 200:02d}", "Grace" if i % 3 else "Bo")
        counts[key] = counts.get(key, 0) + 1
    expected = [(m, who, n) for (m, who), n in sorted(counts.items())]
    async with await Engine.open(settings, embedder) as engine:
        [result] = [r async for r in engine.sources.ingest([chat])]
        assert result.chunks > 10, "the lines span many overlapping chunks"
        assert db.message_counts(settings.db_path) == expected
        db.forget_message_counts(settings.db_path, DONE)  # as if ingested before counting
        assert db.message_counts(settings.db_path) == []
    async with await Engine.open(settings, embedder) as engine:
        assert db.message_counts(settings.db_path) == expected
