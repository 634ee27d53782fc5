"""The schema's steps from the tenth on: how sources are read, extracts, the owner's choice,
rounds of reading, keyword words, shares, languages, the mirror, leads. A new step is
appended here, never inserted."""

from __future__ import annotations

from biomd.storage.migrations.migration import Migration

LATER: tuple[Migration, ...] = (
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
        -- biomd.storage.fts_text), so a word inside unspaced text can be found. Contentless:
        -- what is indexed is not the chunk's text as stored, and an FTS5 integrity check
        -- must not compare the two. Taking a chunk out gives FTS5 the same text again.
        -- The English stemmer stays: other languages' forms are found at query time
        -- (biomd.retrieval.query_terms), and English ranking is what it was.
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
        -- Every portrait the owner saved (biomd.storage.shares owns both tables): for whom,
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
        -- The mirror (biomd.storage.mirror). Each chat source's messages as parsed once: the
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
        -- (biomd.biographer.leads), each once: one answered or removed is not raised again.
        CREATE TABLE leads (
            key       TEXT PRIMARY KEY,
            raised_at TEXT NOT NULL
        );
        """,
    ),
    Migration(
        "source_units",
        """
        -- Each source's units (a chat's messages, other text's sentences) by hash, all of a
        -- short source's and a sample of a long one's, to find the same text in another
        -- file (biomd.ingest.twins). documents.units is NULL until a source is fingerprinted.
        CREATE TABLE source_units (
            document_id INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
            hash        INTEGER NOT NULL,
            PRIMARY KEY (document_id, hash)
        ) WITHOUT ROWID;
        CREATE INDEX source_units_hash ON source_units(hash);
        ALTER TABLE documents ADD COLUMN units INTEGER;
        ALTER TABLE documents ADD COLUMN chat INTEGER NOT NULL DEFAULT 0;
        """,
    ),
    Migration(
        "notes",
        """
        -- The reader's extracts are its notes, one word for one thing: the tables, their
        -- index, triggers and columns take the name. The keyword index is made again over
        -- the renamed table (an FTS5 table's content table can't be renamed under it).
        DROP TRIGGER extracts_ai;
        DROP TRIGGER extracts_ad;
        DROP TABLE extracts_fts;
        DROP INDEX extracts_document;
        DROP INDEX extracts_waiting;
        DROP INDEX mirror_candidate_notes_extract;
        ALTER TABLE extracts RENAME TO notes;
        ALTER TABLE extract_vectors RENAME TO note_vectors;
        ALTER TABLE note_vectors RENAME COLUMN extract_id TO note_id;
        ALTER TABLE extract_parts RENAME TO noted_parts;
        ALTER TABLE mirror_candidate_notes RENAME COLUMN extract_id TO note_id;
        CREATE INDEX notes_document ON notes(document_id, start_char);
        CREATE INDEX notes_waiting ON notes(document_id, id) WHERE integrated_turn IS NULL;
        CREATE INDEX mirror_candidate_notes_note ON mirror_candidate_notes(note_id);
        CREATE VIRTUAL TABLE notes_fts USING fts5(
            statement, people, quote,
            content = 'notes',
            content_rowid = 'id',
            tokenize = 'porter unicode61 remove_diacritics 2'
        );
        INSERT INTO notes_fts(notes_fts) VALUES ('rebuild');
        CREATE TRIGGER notes_ai AFTER INSERT ON notes BEGIN
            INSERT INTO notes_fts(rowid, statement, people, quote)
            VALUES (new.id, new.statement, new.people, new.quote);
        END;
        CREATE TRIGGER notes_ad AFTER DELETE ON notes BEGIN
            INSERT INTO notes_fts(notes_fts, rowid, statement, people, quote)
            VALUES ('delete', old.id, old.statement, old.people, old.quote);
        END;
        """,
    ),
    Migration(
        "private_sources",
        """
        -- A source the owner keeps from other assistants (MCP, Hermes, OpenClaw): still
        -- theirs to search and read.
        ALTER TABLE documents ADD COLUMN private INTEGER NOT NULL DEFAULT 0
            CHECK (private IN (0, 1));
        """,
    ),
    Migration(
        "mirror_lines",
        """
        -- The lines a candidate of the mirror's shapes rests on: exact spans of the owner's
        -- own messages and sentences (biomd.app.mirror.shapes), forgotten with their source.
        CREATE TABLE mirror_candidate_lines (
            key         TEXT NOT NULL REFERENCES mirror_candidates(key) ON DELETE CASCADE,
            document_id INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
            start_char  INTEGER NOT NULL,
            end_char    INTEGER NOT NULL,
            role        TEXT NOT NULL CHECK (role IN ('for', 'against')),
            PRIMARY KEY (key, document_id, start_char)
        ) WITHOUT ROWID;
        CREATE INDEX mirror_candidate_lines_document ON mirror_candidate_lines(document_id);
        """,
    ),
)
