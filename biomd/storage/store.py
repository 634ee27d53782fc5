"""The store: the one SQLite file, with one owner for each table. Open with
`await Store.open(path)`; each attribute is a table's owner, with named, typed functions:

    store.meta        meta                          store.jobs       jobs
    store.documents   documents (the sources)       store.turns      turns
    store.chunks      chunks, chunks_fts            store.chat       chat_messages
    store.keywords    keyword queries (chunks_fts)  store.reading    reading_queue
    store.vectors     vectors                       store.questions  questions, question_messages
    store.next_vectors next_vectors (a model switch)
    store.activity    document_names,               store.revisions  profile_revisions
                      message_counts                store.usage      llm_usage
                                                    store.outbox     outbox
    store.notes   notes, notes_fts, note_vectors, noted_parts (the reader's)
    store.rounds     reading_rounds (estimate against actual)
    store.shares     shares, share_audiences (portraits the owner saved)
    store.leads      leads (questions and contradictions raised by rules, by key)
    store.units      source_units (each source's fingerprint, to find the same text twice)
    store.mirror     mirror_messages, mirror_verdicts, mirror_answers, mirror_candidates,
                     mirror_candidate_notes (the mirror's cache, the owner's word, its pass)
"""

from __future__ import annotations

import uuid
from pathlib import Path

from biomd.storage.activity import Activity
from biomd.storage.chat import ChatLog
from biomd.storage.chunks import Chunks
from biomd.storage.database import Database
from biomd.storage.documents import Documents
from biomd.storage.jobs import Jobs
from biomd.storage.keywords import Keywords
from biomd.storage.leads import Leads
from biomd.storage.meta import Meta
from biomd.storage.mirror import MirrorState
from biomd.storage.notes import Notes
from biomd.storage.outbox import OutboxQueue
from biomd.storage.questions import QuestionTable
from biomd.storage.reading import ReadingQueue
from biomd.storage.revisions import Revisions
from biomd.storage.rounds import Rounds
from biomd.storage.shares import ShareTable
from biomd.storage.turns import Turns
from biomd.storage.units import SourceUnits
from biomd.storage.usage import UsageLog
from biomd.storage.vectors import Vectors


class Store:
    """Typed access to the database, one owner per table."""

    def __init__(self, db: Database) -> None:
        self._db = db
        self.path = db.path
        self.meta = Meta(db)
        self.documents = Documents(db)
        self.chunks = Chunks(db)
        self.keywords = Keywords(db)
        self.vectors = Vectors(db)
        self.next_vectors = Vectors(db, "next_vectors")
        self.activity = Activity(db)
        self.units = SourceUnits(db)
        self.jobs = Jobs(db)
        self.turns = Turns(db)
        self.chat = ChatLog(db)
        self.reading = ReadingQueue(db)
        self.questions = QuestionTable(db)
        self.revisions = Revisions(db)
        self.usage = UsageLog(db)
        self.outbox = OutboxQueue(db)
        self.notes = Notes(db)
        self.shares = ShareTable(db)
        self.rounds = Rounds(db)
        self.leads = Leads(db)
        self.mirror = MirrorState(db)

    @classmethod
    async def open(cls, path: Path) -> Store:
        store = cls(await Database.open(path))
        if await store.meta.get("store_id") is None:
            await store.meta.set({"store_id": uuid.uuid4().hex})
        return store

    async def close(self) -> None:
        await self._db.close()
