"""Named, ordered schema migrations. `PRAGMA user_version` records how many have run."""

from __future__ import annotations

import logging
import sqlite3
from dataclasses import dataclass

import aiosqlite

from core.errors import StoreError

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Migration:
    name: str
    sql: str
    reindex_words: bool = False  # then re-index every chunk's words, in the same transaction


FTS_TOKENIZER = "porter unicode61 remove_diacritics 2"  # as chunks_fts is created

MIGRATIONS: tuple[Migration, ...] = (
    Migration(
        "initial",
        """
        CREATE TABLE meta (
            key   TEXT PRIMARY KEY,
            value TEXT NOT NULL
        );

        -- One row per source. Ids are never reused, so a citation [#12] stays unambiguous.
        CREATE TABLE documents (
            id            INTEGER PRIMARY KEY AUTOINCREMENT,
            sha256        TEXT NOT NULL UNIQUE,
            name          TEXT NOT NULL,
            kind          TEXT NOT NULL,
            mime          TEXT,
            size          INTEGER NOT NULL,
            raw_path      TEXT NOT NULL,
            added_at      TEXT NOT NULL,
            content_start TEXT,
            content_end   TEXT,
            text_length   INTEGER NOT NULL DEFAULT 0,
            n_chunks      INTEGER NOT NULL DEFAULT 0,
            status        TEXT NOT NULL CHECK (status IN ('pending', 'ready', 'failed')),
            error         TEXT
        );
        CREATE INDEX documents_status ON documents(status);

        -- chunk.text == document_text[start_char:end_char]
        CREATE TABLE chunks (
            id          INTEGER PRIMARY KEY AUTOINCREMENT,
            document_id INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
            seq         INTEGER NOT NULL,
            start_char  INTEGER NOT NULL,
            end_char    INTEGER NOT NULL,
            text        TEXT NOT NULL,
            ts          TEXT,
            UNIQUE (document_id, seq)
        );
        CREATE INDEX chunks_document_start ON chunks(document_id, start_char);

        CREATE VIRTUAL TABLE chunks_fts USING fts5(
            text,
            content = 'chunks',
            content_rowid = 'id',
            tokenize = 'porter unicode61 remove_diacritics 2'
            -- detail=none was tried: bm25 then re-reads each matching chunk to count terms,
            -- and a common word took 308 ms instead of 42 ms at 100k chunks.
        );
        -- Merge segments less eagerly while indexing (ingest 19 -> 23 MB/s standalone);
        -- queries were no slower.
        INSERT INTO chunks_fts(chunks_fts, rank) VALUES ('automerge', 16);
        INSERT INTO chunks_fts(chunks_fts, rank) VALUES ('crisismerge', 32);
        -- Inserts are indexed by Store.add_chunks in the same transaction, one statement per
        -- batch: an AFTER INSERT trigger did the same work three times slower (8 vs 24 MB/s).
        CREATE TRIGGER chunks_ad AFTER DELETE ON chunks BEGIN
            INSERT INTO chunks_fts(chunks_fts, rowid, text) VALUES ('delete', old.id, old.text);
        END;
        CREATE TRIGGER chunks_au AFTER UPDATE OF text ON chunks BEGIN
            INSERT INTO chunks_fts(chunks_fts, rowid, text) VALUES ('delete', old.id, old.text);
            INSERT INTO chunks_fts(rowid, text) VALUES (new.id, new.text);
        END;

        -- Little-endian float32. `id` grows with every insert, so a reader can load only
        -- what is new; deletions bump meta.vectors_epoch.
        CREATE TABLE vectors (
            id       INTEGER PRIMARY KEY AUTOINCREMENT,
            chunk_id INTEGER NOT NULL UNIQUE REFERENCES chunks(id) ON DELETE CASCADE,
            vector   BLOB NOT NULL
        );
        """,
    ),
    Migration(
        "names",
        """
        -- Who speaks in each source, with how often: proper-noun hints for speech recognition.
        CREATE TABLE document_names (
            document_id INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
            name        TEXT NOT NULL,
            mentions    INTEGER NOT NULL,
            PRIMARY KEY (document_id, name)
        );
        """,
    ),
    Migration(
        "biographer",
        """
        -- One row per model call: tokens and what it cost.
        CREATE TABLE llm_usage (
            id                INTEGER PRIMARY KEY,
            at                TEXT NOT NULL,
            turn_id           INTEGER,
            model             TEXT NOT NULL,
            mode              TEXT NOT NULL,
            prompt_tokens     INTEGER NOT NULL,
            completion_tokens INTEGER NOT NULL,
            cost_usd          REAL NOT NULL,
            cost_source       TEXT NOT NULL
        );
        CREATE INDEX llm_usage_at ON llm_usage(at);

        -- One row per biographer turn (chat, analysis, ingest, consolidate).
        CREATE TABLE turns (
            id          INTEGER PRIMARY KEY AUTOINCREMENT,
            mode        TEXT NOT NULL,
            started_at  TEXT NOT NULL,
            finished_at TEXT,
            document_id INTEGER,
            request     TEXT NOT NULL,
            report      TEXT,
            steps       INTEGER NOT NULL DEFAULT 0,
            status      TEXT NOT NULL DEFAULT 'running',
            error       TEXT
        );

        -- Every state bio.md has been in (zlib-compressed), with the edit that made it.
        CREATE TABLE profile_revisions (
            id          INTEGER PRIMARY KEY AUTOINCREMENT,
            turn_id     INTEGER,
            mode        TEXT NOT NULL,
            reason      TEXT NOT NULL,
            at          TEXT NOT NULL,
            old_text    TEXT NOT NULL DEFAULT '',
            new_text    TEXT NOT NULL DEFAULT '',
            undoes_turn INTEGER,
            content     BLOB NOT NULL
        );

        -- The conversation with the owner: its tail is each chat turn's memory.
        CREATE TABLE chat_messages (
            id      INTEGER PRIMARY KEY AUTOINCREMENT,
            at      TEXT NOT NULL,
            role    TEXT NOT NULL CHECK (role IN ('user', 'assistant')),
            content TEXT NOT NULL,
            turn_id INTEGER
        );

        -- Sources the biographer still has to read, and how far it got.
        CREATE TABLE reading_queue (
            document_id INTEGER PRIMARY KEY REFERENCES documents(id) ON DELETE CASCADE,
            next_offset INTEGER NOT NULL DEFAULT 0,
            added_at    TEXT NOT NULL,
            done_at     TEXT,
            error       TEXT
        );

        -- Open questions by stable id: when they were asked, and what answered them.
        CREATE TABLE questions (
            id                 TEXT PRIMARY KEY,
            text               TEXT NOT NULL,
            created_at         TEXT NOT NULL,
            asked_at           TEXT,
            platform_ref       TEXT,
            answered_at        TEXT,
            answer_document_id INTEGER
        );
        """,
    ),
    Migration(
        "jobs",
        """
        -- Long work from the bot (a forwarded file, an answer), one at a time, surviving
        -- restarts. `payload` is JSON; `running` jobs are queued again at start-up.
        CREATE TABLE jobs (
            id          INTEGER PRIMARY KEY AUTOINCREMENT,
            kind        TEXT NOT NULL,
            payload     TEXT NOT NULL,
            status      TEXT NOT NULL CHECK (status IN ('queued', 'running', 'done', 'failed')),
            attempts    INTEGER NOT NULL DEFAULT 0,
            not_before  TEXT,
            created_at  TEXT NOT NULL,
            started_at  TEXT,
            finished_at TEXT,
            error       TEXT,
            lane        TEXT NOT NULL DEFAULT 'main'
        );
        CREATE INDEX jobs_status ON jobs(status, id);

        -- Which chat message carried which open question, so a reply maps back to it.
        CREATE TABLE question_messages (
            platform    TEXT NOT NULL,
            chat_id     TEXT NOT NULL,
            message_id  TEXT NOT NULL,
            question_id TEXT NOT NULL,
            sent_at     TEXT NOT NULL,
            PRIMARY KEY (platform, chat_id, message_id)
        );
        """,
    ),
    Migration(
        "outbox",
        """
        -- Messages for the owner that could not be sent while the platform was unreachable;
        -- sent in id order once it answers again. `failed` rows were refused outright.
        CREATE TABLE outbox (
            id         INTEGER PRIMARY KEY AUTOINCREMENT,
            platform   TEXT NOT NULL,
            chat_id    TEXT NOT NULL,
            text       TEXT NOT NULL,
            created_at TEXT NOT NULL,
            attempts   INTEGER NOT NULL DEFAULT 0,
            status     TEXT NOT NULL DEFAULT 'waiting' CHECK (status IN ('waiting', 'failed')),
            error      TEXT
        );
        CREATE INDEX outbox_waiting ON outbox(platform, status, id);
        """,
    ),
    Migration(
        "reading_attempts",
        """
        -- A source leaves the reading queue only when a turn really read it. Turns that
        -- did not are counted; past BIOMD_READ_ATTEMPTS the source is set aside
        -- (`gave_up_at`) with the reason in `error`, and the owner is told.
        ALTER TABLE reading_queue ADD COLUMN attempts INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE reading_queue ADD COLUMN gave_up_at TEXT;
        """,
    ),
    Migration(
        "message_counts",
        """
        -- Dated chat messages per month and speaker ('' for lines with no speaker), for the
        -- timeline's picture and each person's appearances by year. Filled at ingest;
        -- sources ingested before this are counted once at start-up.
        CREATE TABLE message_counts (
            document_id INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
            month       TEXT NOT NULL,
            speaker     TEXT NOT NULL,
            messages    INTEGER NOT NULL,
            PRIMARY KEY (document_id, month, speaker)
        );
        CREATE INDEX message_counts_month ON message_counts(month);
        """,
    ),
    Migration(
        "usage_backend",
        """
        -- Which backend made each model call: 'openai' (any OpenAI-compatible endpoint) or
        -- 'codex' (the Codex CLI on a ChatGPT subscription, metered in tokens at $0).
        ALTER TABLE llm_usage ADD COLUMN backend TEXT NOT NULL DEFAULT 'openai';
        """,
    ),
    Migration(
        "vector_inputs",
        """
        -- A hash of what the model was given for each vector (Engine.embed_input), so a chunk
        -- whose text already has a vector (a chat export imported again) gets a copy of it
        -- instead of a model call. Vectors made before this have none.
        ALTER TABLE vectors ADD COLUMN input_hash BLOB;
        CREATE INDEX vectors_input_hash ON vectors(input_hash) WHERE input_hash IS NOT NULL;
        """,
    ),
    Migration(
        "reading_mode",
        """
        -- The biographer's turn that reads a source is called reading; "ingest" is what
        -- turns a file into indexed text.
        UPDATE turns SET mode = 'reading' WHERE mode = 'ingest';
        UPDATE llm_usage SET mode = 'reading' WHERE mode = 'ingest';
        UPDATE profile_revisions SET mode = 'reading' WHERE mode = 'ingest';
        """,
    ),
    Migration(
        "extracts",
        """
        -- The reader's extracts: what a part of a source says, each resting on a verbatim
        -- quote whose exact span in the source's text is kept (quote = text[start:end],
        -- give or take case, spacing and quote marks). Not the MCP server's `remember`
        -- notes, which are sources. `integrated_turn` is the reading turn that took the
        -- extract into bio.md; NULL while it waits.
        CREATE TABLE extracts (
            id              INTEGER PRIMARY KEY AUTOINCREMENT,
            document_id     INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
            kind            TEXT NOT NULL,
            statement       TEXT NOT NULL,
            date            TEXT,
            people          TEXT NOT NULL DEFAULT '',
            quote           TEXT NOT NULL,
            start_char      INTEGER NOT NULL,
            end_char        INTEGER NOT NULL,
            integrated_turn INTEGER,
            created_at      TEXT NOT NULL
        );
        CREATE INDEX extracts_document ON extracts(document_id, start_char);
        CREATE INDEX extracts_waiting ON extracts(document_id, id) WHERE integrated_turn IS NULL;
        CREATE VIRTUAL TABLE extracts_fts USING fts5(
            statement, people, quote,
            content = 'extracts',
            content_rowid = 'id',
            tokenize = 'porter unicode61 remove_diacritics 2'
        );
        CREATE TRIGGER extracts_ai AFTER INSERT ON extracts BEGIN
            INSERT INTO extracts_fts(rowid, statement, people, quote)
            VALUES (new.id, new.statement, new.people, new.quote);
        END;
        CREATE TRIGGER extracts_ad AFTER DELETE ON extracts BEGIN
            INSERT INTO extracts_fts(extracts_fts, rowid, statement, people, quote)
            VALUES ('delete', old.id, old.statement, old.people, old.quote);
        END;
        -- An embedding of each extract's statement (little-endian float32).
        CREATE TABLE extract_vectors (
            extract_id INTEGER PRIMARY KEY REFERENCES extracts(id) ON DELETE CASCADE,
            vector     BLOB NOT NULL
        );
        -- The stretches of a source the reader has taken notes of (a part is noted once,
        -- with its extracts, in one transaction, so a crash leaves no duplicates), and the
        -- parts it could not: `attempts` and the last `error`.
        CREATE TABLE extract_parts (
            document_id INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
            start_char  INTEGER NOT NULL,
            end_char    INTEGER NOT NULL,
            noted_at    TEXT,
            kept        INTEGER NOT NULL DEFAULT 0,
            dropped     INTEGER NOT NULL DEFAULT 0,
            attempts    INTEGER NOT NULL DEFAULT 0,
            error       TEXT,
            PRIMARY KEY (document_id, start_char)
        );
        """,
    ),
    Migration(
        "reading_choice",
        """
        -- What the owner chose for a source whose reading costs more than the threshold
        -- (BIOMD_READ_CONFIRM_USD): `scope` is all, mine (their own messages with some
        -- context) or since:YYYY-MM-DD; `approved_at` when it may be read; `held_at` when
        -- the owner said not now (it waits until asked again).
        ALTER TABLE reading_queue ADD COLUMN scope TEXT NOT NULL DEFAULT 'all';
        ALTER TABLE reading_queue ADD COLUMN approved_at TEXT;
        ALTER TABLE reading_queue ADD COLUMN held_at TEXT;
        """,
    ),
    Migration(
        "reading_rounds",
        """
        -- Each round of reading (the notes pass and the reading turns over what was
        -- waiting): what it was estimated to cost before it began, and the llm_usage rows
        -- it made (ids after `first_call`, up to `last_call`), for estimate against actual.
        CREATE TABLE reading_rounds (
            id               INTEGER PRIMARY KEY AUTOINCREMENT,
            started_at       TEXT NOT NULL,
            sources          INTEGER NOT NULL,
            estimated_tokens INTEGER NOT NULL,
            estimated_usd    REAL,
            first_call       INTEGER NOT NULL,
            last_call        INTEGER
        );
        """,
    ),
    Migration(
        "keyword_words",
        """
        -- CJK runs are also indexed as pairs of letters (biomd_fts_text,
        -- core.storage.fts_text), so a word inside unspaced text can be found. Contentless:
        -- what is indexed is not the chunk's text as stored, and an FTS5 integrity check
        -- must not compare the two. Taking a chunk out gives FTS5 the same text again.
        -- The English stemmer stays: other languages' forms are found at query time
        -- (core.retrieval.query_terms), and English ranking is what it was.
        DROP TRIGGER chunks_ad;
        DROP TRIGGER chunks_au;
        DROP TABLE chunks_fts;
        CREATE VIRTUAL TABLE chunks_fts USING fts5(
            text,
            content = '',
            tokenize = 'porter unicode61 remove_diacritics 2'
        );
        INSERT INTO chunks_fts(chunks_fts, rank) VALUES ('automerge', 16);
        INSERT INTO chunks_fts(chunks_fts, rank) VALUES ('crisismerge', 32);
        CREATE TRIGGER chunks_ad AFTER DELETE ON chunks BEGIN
            INSERT INTO chunks_fts(chunks_fts, rowid, text)
            VALUES ('delete', old.id, biomd_fts_text(old.text));
        END;
        CREATE TRIGGER chunks_au AFTER UPDATE OF text ON chunks BEGIN
            INSERT INTO chunks_fts(chunks_fts, rowid, text)
            VALUES ('delete', old.id, biomd_fts_text(old.text));
            INSERT INTO chunks_fts(rowid, text) VALUES (new.id, biomd_fts_text(new.text));
        END;
        """,
        reindex_words=True,
    ),
    Migration(
        "next_vectors",
        """
        -- A switch of embedding model (`biomd reindex`) fills this with the new model's
        -- vectors while search keeps using `vectors`; the switch ends by moving them over in
        -- one transaction. meta's next_embed_model names the model being filled in.
        CREATE TABLE next_vectors (
            id         INTEGER PRIMARY KEY AUTOINCREMENT,
            chunk_id   INTEGER NOT NULL UNIQUE REFERENCES chunks(id) ON DELETE CASCADE,
            vector     BLOB NOT NULL,
            input_hash BLOB
        );
        CREATE INDEX next_vectors_input_hash ON next_vectors(input_hash)
            WHERE input_hash IS NOT NULL;
        """,
    ),
    Migration(
        "shares",
        """
        -- Every portrait the owner saved (core.storage.shares owns both tables): for whom,
        -- what went in, who was shown by name, the file's hash, and what each sentence rests
        -- on (JSON, kept here and not in the file). The owner's own audiences too.
        CREATE TABLE shares (
            id         INTEGER PRIMARY KEY AUTOINCREMENT,
            created_at TEXT NOT NULL,
            audience   TEXT NOT NULL,
            format     TEXT NOT NULL,
            sections   TEXT NOT NULL,
            shown      TEXT NOT NULL,
            path       TEXT NOT NULL,
            sha256     TEXT NOT NULL,
            size       INTEGER NOT NULL,
            writer     TEXT NOT NULL,
            accepted   TEXT NOT NULL,
            support    TEXT NOT NULL,
            content    BLOB NOT NULL
        );
        CREATE TABLE share_audiences (
            name       TEXT PRIMARY KEY,
            settings   TEXT NOT NULL,
            updated_at TEXT NOT NULL
        );
        """,
    ),
    Migration(
        "share_cards",
        """
        -- A share's one-page PNG card (summary and timeline), where one was made.
        ALTER TABLE shares ADD COLUMN card BLOB;
        """,
    ),
    Migration(
        "source_languages",
        """
        -- The languages each source is in (ISO 639-1 codes, most first; several where it
        -- mixes them), detected line by line over a sample of its chunks when it is added.
        ALTER TABLE documents ADD COLUMN languages TEXT NOT NULL DEFAULT '';
        """,
    ),
    Migration(
        "mirror",
        """
        -- The mirror (core.storage.mirror). Each chat source's messages as parsed once: the
        -- conversations in it (JSON) and every message's time, side, length and place.
        CREATE TABLE mirror_messages (
            document_id INTEGER PRIMARY KEY REFERENCES documents(id) ON DELETE CASCADE,
            version     INTEGER NOT NULL,
            chats       TEXT NOT NULL,
            data        BLOB NOT NULL,
            made_at     TEXT NOT NULL
        );
        -- The owner's word on a finding or a pattern, with the evidence it was given on.
        CREATE TABLE mirror_verdicts (
            item_id   TEXT PRIMARY KEY,
            item      TEXT NOT NULL CHECK (item IN ('finding', 'pattern')),
            kind      TEXT NOT NULL,
            person    TEXT NOT NULL DEFAULT '',
            month     TEXT NOT NULL DEFAULT '',
            direction TEXT NOT NULL DEFAULT '',
            status    TEXT NOT NULL CHECK (status IN ('confirmed', 'dismissed')),
            sources   TEXT NOT NULL DEFAULT '[]',
            notes     TEXT NOT NULL DEFAULT '[]',
            statement TEXT NOT NULL DEFAULT '',
            at        TEXT NOT NULL
        );
        -- The owner's answers to an item ("there's more to it"), each kept as a source.
        CREATE TABLE mirror_answers (
            item_id     TEXT NOT NULL,
            document_id INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
            at          TEXT NOT NULL,
            PRIMARY KEY (item_id, document_id)
        );
        -- The notes pass: each candidate judged once, and the notes it rests on.
        CREATE TABLE mirror_candidates (
            key               TEXT PRIMARY KEY,
            kind              TEXT NOT NULL,
            design            TEXT NOT NULL,
            people            TEXT NOT NULL DEFAULT '',
            verdict           TEXT NOT NULL,
            statement         TEXT NOT NULL DEFAULT '',
            why               TEXT NOT NULL DEFAULT '',
            confidence        TEXT NOT NULL DEFAULT 'low',
            prompt_tokens     INTEGER NOT NULL DEFAULT 0,
            completion_tokens INTEGER NOT NULL DEFAULT 0,
            judged_at         TEXT NOT NULL
        );
        CREATE TABLE mirror_candidate_notes (
            key        TEXT NOT NULL REFERENCES mirror_candidates(key) ON DELETE CASCADE,
            extract_id INTEGER NOT NULL REFERENCES extracts(id) ON DELETE CASCADE,
            role       TEXT NOT NULL CHECK (role IN ('for', 'against')),
            PRIMARY KEY (key, extract_id)
        );
        CREATE INDEX mirror_candidate_notes_extract ON mirror_candidate_notes(extract_id);
        """,
    ),
    Migration(
        "leads",
        """
        -- Open questions and contradictions raised by rules from the notes
        -- (core.biographer.leads), each once: one answered or removed is not raised again.
        CREATE TABLE leads (
            key       TEXT PRIMARY KEY,
            raised_at TEXT NOT NULL
        );
        """,
    ),
)

REINDEX_BATCH = 20_000  # chunks per step of a re-index, each step logged


async def reindex_words(db: aiosqlite.Connection) -> None:
    """Put every chunk into the new keyword index, in steps, saying how far it has got; one
    transaction with the migration, so a crash leaves the old index and starts again."""
    async with db.execute("SELECT COALESCE(MIN(id), 0), COALESCE(MAX(id), 0) FROM chunks") as cur:
        row = await cur.fetchone()
    low, high = (int(row[0]), int(row[1])) if row else (0, 0)
    if high == 0:
        return
    at = low
    while at <= high:
        await db.execute(
            "INSERT INTO chunks_fts(rowid, text) SELECT id, biomd_fts_text(text) FROM chunks"
            " WHERE id >= ? AND id < ?",
            (at, at + REINDEX_BATCH),
        )
        at += REINDEX_BATCH
        done = min(1.0, (at - low) / max(1, high - low + 1))
        log.info("Re-indexing words for keyword search in any language: %.0f%%", done * 100)


async def migrate(db: aiosqlite.Connection) -> None:
    """Run the migrations this database has not seen yet, each in its own transaction."""
    async with db.execute("PRAGMA user_version") as cur:
        row = await cur.fetchone()
    version = int(row[0]) if row else 0
    if version > len(MIGRATIONS):
        raise StoreError(
            f"This database was written by a newer biomd (schema {version}, this one knows "
            f"{len(MIGRATIONS)}). Upgrade biomd."
        )
    for number, migration in enumerate(MIGRATIONS[version:], start=version + 1):
        await db.execute("BEGIN IMMEDIATE")
        try:
            for statement in split_sql(migration.sql):
                await db.execute(statement)
            if migration.reindex_words:
                await reindex_words(db)
            await db.execute(f"PRAGMA user_version = {number}")
        except BaseException:
            await db.execute("ROLLBACK")
            raise
        await db.execute("COMMIT")


def split_sql(script: str) -> list[str]:
    """Split a script into complete statements (trigger bodies stay whole)."""
    statements: list[str] = []
    current = ""
    for line in script.splitlines(keepends=True):
        if line.strip().startswith("--"):
            continue
        current += line
        if sqlite3.complete_statement(current):
            if current.strip():
                statements.append(current.strip())
            current = ""
    if current.strip():
        statements.append(current.strip())
    return statements
