"""A test's look into a biomd database: a connection of its own, as an auditor would open
the file, so that what a test checks is what is on disk. This is the one place in the tests
that writes SQL against biomd's database (biomd's own code reaches it only through
biomd/storage): each read is a named function returning plain rows, and each write stages a
state behind biomd's back (an older schema, a crash, a corruption) that a test recovers from."""

from __future__ import annotations

import contextlib
import itertools
import sqlite3
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, NamedTuple

from biomd.storage.migrations import MIGRATIONS


def _connect(path: Path) -> sqlite3.Connection:
    db = sqlite3.connect(path, timeout=30, isolation_level=None)
    db.execute("PRAGMA busy_timeout=30000")
    return db


def _rows(path: Path, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
    with contextlib.closing(_connect(path)) as db:
        return [tuple(r) for r in db.execute(sql, params).fetchall()]


def _scalar(path: Path, sql: str, params: Sequence[Any] = ()) -> Any:
    found = _rows(path, sql, params)
    assert found, f"no row for {sql}"
    return found[0][0]


def rows(path: Path, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
    """Any query's rows: for the benchmarks' own reports (bench/), which read what a run
    left (the tests use the named functions below, so that a table changes in one place)."""
    return _rows(path, sql, params)


def one(path: Path, sql: str, params: Sequence[Any] = ()) -> tuple[Any, ...]:
    """The first row of any query (for bench/, as `rows`); fails here if there is none."""
    found = _rows(path, sql, params)
    assert found, f"no row for {sql}"
    return found[0]


@contextlib.contextmanager
def _writing(path: Path) -> Iterator[sqlite3.Connection]:
    with contextlib.closing(_connect(path)) as db:
        db.execute("BEGIN IMMEDIATE")
        yield db
        db.execute("COMMIT")


# -- the file itself -------------------------------------------------------------------------


def _table_names(path: Path) -> set[str]:
    return {str(r[0]) for r in _rows(path, "SELECT name FROM sqlite_master")}


def tables(path: Path) -> set[str]:
    """The names of every table, index and trigger in the file."""
    return _table_names(path)


def _known(path: Path, table: str) -> str:
    """`table`, once it is known to be one (a name is put into SQL only then)."""
    assert table in _table_names(path), f"no table {table}"
    return table


def count(path: Path, table: str) -> int:
    """How many rows `table` holds."""
    return int(_scalar(path, f"SELECT COUNT(*) FROM {_known(path, table)}"))


def dump(path: Path, table: str) -> list[tuple[Any, ...]]:
    """Every row of `table`, every column, in the order of its first column."""
    return _rows(path, f"SELECT * FROM {_known(path, table)} ORDER BY 1")


def user_version(path: Path) -> int:
    """The schema version: how many migrations have run."""
    return int(_scalar(path, "PRAGMA user_version"))


def journal_mode(path: Path) -> str:
    return str(_scalar(path, "PRAGMA journal_mode"))


def integrity_ok(path: Path) -> bool:
    """SQLite's own check of the whole file."""
    return _rows(path, "PRAGMA integrity_check") == [("ok",)]


def keyword_index_ok(path: Path) -> bool:
    """FTS5's check that the keyword index agrees with the chunks it indexes (it raises
    `sqlite3.DatabaseError` where it does not)."""
    return _rows(path, "INSERT INTO chunks_fts(chunks_fts) VALUES('integrity-check')") == []


def word_hits(path: Path, table: str, word: str) -> int:
    """Rows of the full-text index `table` (chunks_fts, notes_fts) that hold `word`."""
    fts = _known(path, table)
    return int(_scalar(path, f"SELECT COUNT(*) FROM {fts} WHERE {fts} MATCH ?", (word,)))


def meta(path: Path, key: str) -> str | None:
    found = _rows(path, "SELECT value FROM meta WHERE key = ?", (key,))
    return str(found[0][0]) if found else None


# -- sources, chunks and vectors -------------------------------------------------------------


class Chunk(NamedTuple):
    id: int
    document_id: int
    seq: int
    start: int
    end: int
    text: str
    ts: str | None


def chunks(path: Path) -> list[Chunk]:
    """Every chunk, in the order they were written."""
    return [
        Chunk(*r)
        for r in _rows(
            path,
            "SELECT id, document_id, seq, start_char, end_char, text, ts FROM chunks ORDER BY id",
        )
    ]


def document_hashes(path: Path) -> list[str]:
    """Each source's sha256 (the name of its raw file), in the order they were added."""
    return [str(r[0]) for r in _rows(path, "SELECT sha256 FROM documents ORDER BY id")]


def document_names(path: Path) -> list[str]:
    return [str(r[0]) for r in _rows(path, "SELECT name FROM documents ORDER BY id")]


class Vector(NamedTuple):
    chunk_id: int
    vector: bytes
    input_hash: bytes | None


def vectors(path: Path) -> list[Vector]:
    return [
        Vector(int(c), bytes(v), None if h is None else bytes(h))
        for c, v, h in _rows(
            path, "SELECT chunk_id, vector, input_hash FROM vectors ORDER BY chunk_id"
        )
    ]


def vectors_by_text(path: Path) -> dict[str, bytes]:
    """Each chunk's vector, by the chunk's text."""
    return {
        str(t): bytes(v)
        for t, v in _rows(
            path, "SELECT c.text, v.vector FROM vectors v JOIN chunks c ON c.id = v.chunk_id"
        )
    }


def chunks_without_vectors(path: Path) -> int:
    return int(
        _scalar(path, "SELECT COUNT(*) FROM chunks WHERE id NOT IN (SELECT chunk_id FROM vectors)")
    )


def message_counts(path: Path) -> list[tuple[str, str, int]]:
    """(month, speaker, messages) summed over the sources, by month then speaker."""
    return [
        (str(m), str(s), int(n))
        for m, s, n in _rows(
            path,
            "SELECT month, speaker, SUM(messages) FROM message_counts GROUP BY month, speaker"
            " ORDER BY month, speaker",
        )
    ]


# -- jobs, turns and model calls -------------------------------------------------------------


class Job(NamedTuple):
    id: int
    kind: str
    status: str
    attempts: int
    error: str | None
    payload: str


def jobs(path: Path) -> list[Job]:
    """Every job, in the order it was queued."""
    return [
        Job(*r)
        for r in _rows(
            path, "SELECT id, kind, status, attempts, error, payload FROM jobs ORDER BY id"
        )
    ]


def job(path: Path, job_id: int) -> Job:
    (found,) = [j for j in jobs(path) if j.id == job_id]
    return found


class Turn(NamedTuple):
    id: int
    mode: str
    status: str
    report: str | None
    error: str | None


def turns(path: Path) -> list[Turn]:
    """Every biographer turn, oldest first."""
    return [
        Turn(*r)
        for r in _rows(path, "SELECT id, mode, status, report, error FROM turns ORDER BY id")
    ]


class Use(NamedTuple):
    """One metered model call."""

    model: str
    mode: str
    backend: str
    turn_id: int | None
    prompt_tokens: int
    completion_tokens: int
    cost_usd: float


def usage(path: Path) -> list[Use]:
    """Every model call, in the order it was made."""
    return [
        Use(*r)
        for r in _rows(
            path,
            "SELECT model, mode, backend, turn_id, prompt_tokens, completion_tokens, cost_usd"
            " FROM llm_usage ORDER BY id",
        )
    ]


def calls(path: Path, mode: str) -> int:
    """How many model calls of `mode` (chat, reading, notes, mirror, ...) were metered."""
    return sum(u.mode == mode for u in usage(path))


# -- the reader's notes ----------------------------------------------------------------------


class DatedNote(NamedTuple):
    id: int
    document_id: int
    start: int
    end: int
    statement: str
    quote: str
    integrated_turn: int | None


def notes(path: Path) -> list[DatedNote]:
    """Every note the reader kept, in the order it was kept."""
    return [
        DatedNote(*r)
        for r in _rows(
            path,
            "SELECT id, document_id, start_char, end_char, statement, quote, integrated_turn"
            " FROM notes ORDER BY id",
        )
    ]


def notes_waiting(path: Path) -> int:
    """Notes not taken into bio.md yet."""
    return sum(n.integrated_turn is None for n in notes(path))


class Part(NamedTuple):
    """A part of a source the reader was given, and what came of it."""

    document_id: int
    start: int
    end: int
    noted: bool
    kept: int
    dropped: int


def parts(path: Path) -> list[Part]:
    """Every part, by source, then by where it starts."""
    return [
        Part(int(d), int(s), int(e), bool(n), int(k), int(x))
        for d, s, e, n, k, x in _rows(
            path,
            "SELECT document_id, start_char, end_char, noted_at IS NOT NULL, kept, dropped"
            " FROM noted_parts ORDER BY document_id, start_char",
        )
    ]


class Queued(NamedTuple):
    """A source's place in the reading queue."""

    document_id: int
    done: bool
    error: str | None


def reading_queue(path: Path) -> list[Queued]:
    return [
        Queued(int(d), bool(done), e)
        for d, done, e in _rows(
            path,
            "SELECT document_id, done_at IS NOT NULL, error FROM reading_queue"
            " ORDER BY document_id",
        )
    ]


# -- the mirror ------------------------------------------------------------------------------


def mirror_parsed(path: Path) -> list[int]:
    """The sources whose messages the mirror has parsed (and cached)."""
    return [int(r[0]) for r in _rows(path, "SELECT document_id FROM mirror_messages ORDER BY 1")]


def mirror_judged(path: Path) -> list[str]:
    """The keys of the candidates the model has judged."""
    return [str(r[0]) for r in _rows(path, "SELECT key FROM mirror_candidates ORDER BY rowid")]


# -- states staged behind biomd's back -------------------------------------------------------


def mark_job_running(path: Path, job_id: int) -> None:
    """As if the process running the job had died."""
    with _writing(path) as db:
        db.execute("UPDATE jobs SET status = 'running' WHERE id = ?", (job_id,))


def set_meta(path: Path, key: str, value: str) -> None:
    with _writing(path) as db:
        db.execute("UPDATE meta SET value = ? WHERE key = ?", (value, key))


def forget_message_counts(path: Path, done_key: str) -> None:
    """As if the sources were ingested before biomd counted messages."""
    with _writing(path) as db:
        db.execute("DELETE FROM message_counts")
        db.execute("DELETE FROM meta WHERE key = ?", (done_key,))


def change_quote(path: Path, note_id: int, quote: str) -> None:
    """A note's quote no longer what its source says (as a hand edit or a bug would leave it)."""
    with _writing(path) as db:
        db.execute("UPDATE notes SET quote = ? WHERE id = ?", (quote, note_id))


def old_database(path: Path, before: str) -> None:
    """A new database as a biomd from before the migration named `before` made it."""
    names = [m.name for m in MIGRATIONS]
    with contextlib.closing(_connect(path)) as db:
        for migration in MIGRATIONS[: names.index(before)]:
            db.executescript(migration.sql)
        db.execute(f"PRAGMA user_version = {names.index(before)}")


def old_source(
    path: Path,
    name: str,
    texts: Sequence[str],
    *,
    vector: bytes | None = None,
    index_words: bool = False,
) -> int:
    """A source of one chunk per text as an older biomd stored it, written straight into
    the file: its first chunk with `vector`, and the keyword index filled where that
    biomd had no trigger to fill it; its id."""
    starts = [0, *itertools.accumulate(map(len, texts))][:-1]
    with _writing(path) as db:
        cur = db.execute(
            "INSERT INTO documents(sha256, name, kind, size, raw_path, added_at, text_length,"
            " n_chunks, status) VALUES (?, ?, 'text', 1, ?, '2020-01-01', ?, ?, 'ready')",
            (f"sha-{name}", name, f"raw/{name}", sum(map(len, texts)), len(texts)),
        )
        doc = cur.lastrowid
        db.executemany(
            "INSERT INTO chunks(document_id, seq, start_char, end_char, text)"
            " VALUES (?, ?, ?, ?, ?)",
            (
                (doc, i, s, s + len(t), t)
                for i, (s, t) in enumerate(zip(starts, texts, strict=True))
            ),
        )
        if vector is not None:
            db.execute(
                "INSERT INTO vectors(chunk_id, vector) SELECT MIN(id), ? FROM chunks"
                " WHERE document_id = ?",
                (vector, doc),
            )
        if index_words:
            db.execute(
                "INSERT INTO chunks_fts(rowid, text) SELECT id, text FROM chunks"
                " WHERE document_id = ?",
                (doc,),
            )
    return int(doc or 0)


def old_note(path: Path, doc_id: int, statement: str, quote: str, vector: bytes) -> int:
    """A note as a biomd from before the `notes` migration kept it: an extract, with its
    vector, its noted part and a judged mirror candidate resting on it; its id."""
    with _writing(path) as db:
        cur = db.execute(
            "INSERT INTO extracts(document_id, kind, statement, people, quote, start_char,"
            " end_char, created_at) VALUES (?, 'fact', ?, 'Mum', ?, 0, ?, '2020-01-01')",
            (doc_id, statement, quote, len(quote)),
        )
        note_id = int(cur.lastrowid or 0)
        db.execute(
            "INSERT INTO extract_vectors(extract_id, vector) VALUES (?, ?)", (note_id, vector)
        )
        db.execute(
            "INSERT INTO extract_parts(document_id, start_char, end_char, noted_at, kept)"
            " VALUES (?, 0, ?, '2020-01-01', 1)",
            (doc_id, len(quote)),
        )
        db.execute(
            "INSERT INTO mirror_candidates(key, kind, design, verdict, judged_at)"
            " VALUES ('k1', 'avoidance', 'judge', 'yes', '2020-01-01')"
        )
        db.execute(
            "INSERT INTO mirror_candidate_notes(key, extract_id, role) VALUES ('k1', ?, 'for')",
            (note_id,),
        )
    return note_id
