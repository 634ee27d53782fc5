"""The schema's first nine steps: sources, names, the biographer's tables, jobs, the outbox,
reading attempts, message counts, usage by backend, vector inputs. Never edited: a database
that ran them keeps them."""

from __future__ import annotations

from biomd.storage.migrations.migration import Migration

EARLY: tuple[Migration, ...] = (
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
)
