"""The composition root: opens the store and wires every service, once. It holds no logic of
its own. Open with `async with await Engine.open(settings) as engine:`.

The app's API, what the front-ends call, is these services:

    engine.sources     the owner's sources: add, list, read, search, forget, vectors
    engine.biographer  the biographer's turns: ask, read what is new, analyse, consolidate
    engine.profile     bio.md: its text, history, undo, the owner's own edits
    engine.questions   the open questions: which to push, the message that asked each
    engine.answers     answers to questions, and notes from assistants, kept as sources
    engine.usage       what the models cost
    engine.pictures    the timeline's and the people's data
    engine.outbox      messages kept while a platform is unreachable
    engine.shares      portraits for an audience: drafted, scanned, saved, listed, deleted
    engine.mirror      the mirror: figures per person, findings and patterns, the owner's word
    engine.told        what each chat has heard this session (why there is no model, once)
    engine.assistants  what the owner's other assistants keep of them (OpenClaw's USER.md)
    engine.settings
    engine.job_queue(channels)  the queue of long work, reporting on those channels

The rest (the store, the searcher, the model backend) is wiring for the app layer; a
front-end never reaches into it."""

from __future__ import annotations

from types import TracebackType

from biomd import redact
from biomd.app.answers import Answers
from biomd.app.assistants.service import Assistants
from biomd.app.channels import Channel
from biomd.app.jobs.deps import JobDeps
from biomd.app.jobs.queue import JobQueue
from biomd.app.mirror.service import Mirror
from biomd.app.outbox import Outbox
from biomd.app.pictures.service import Pictures
from biomd.app.share.service import Shares
from biomd.app.sources import Sources
from biomd.app.told import Told
from biomd.app.usage import Spending
from biomd.biographer.backend import choose
from biomd.biographer.biographer import Biographer
from biomd.biographer.profile import Profile
from biomd.biographer.questions import Questions
from biomd.ingest.message_counts import count_earlier_sources
from biomd.ingest.timestamps import owner_speaks, strip_line_stamps
from biomd.models.ledger import Ledger
from biomd.retrieval.embed_pipeline import Embeddings
from biomd.retrieval.embedding import Embedder
from biomd.retrieval.search import FusionConfig, Searcher
from biomd.retrieval.vector_index import VectorIndex
from biomd.settings import Settings
from biomd.storage.database import ensure_private_dir
from biomd.storage.rawfiles import RawFiles
from biomd.storage.store import Store

__all__ = ["Embedder", "Engine", "embed_input"]  # an Embedder can be handed to Engine.open


def embed_input(text: str) -> str:
    """What the embedding model sees for a chunk: its text without the timestamp that opens
    each chat line. The stamps cost a model with a 256-token window a third of it and say
    nothing about meaning (LoCoMo vector R@5c 0.569 with them, 0.584 without; adding the
    title and date instead measured 0.577, so it is not done)."""
    return strip_line_stamps(text)


class Engine:
    """Every service, wired once over one data dir."""

    def __init__(self, settings: Settings, store: Store, embedder: Embedder | None) -> None:
        redact.register(settings.secrets())
        self.settings = settings
        self.store = store
        owners = settings.owner.names
        self.embeddings = Embeddings(
            settings.embed,
            settings.models_dir,
            store,
            embedder,
            input_of=embed_input,
            first=(lambda text: owner_speaks(text, owners)) if owners else None,
        )
        self.searcher = Searcher(
            store,
            self.embeddings.serving,
            VectorIndex(settings.data_dir / "cache"),
            FusionConfig(),
            languages=settings.owner.languages,
            zone=settings.zone,
            timeline=lambda: self.profile.timeline(),
        )
        self.ledger = Ledger(store, settings.zone, settings.costs.daily_limit_usd)
        self.backend = choose(settings, self.ledger)
        self.profile = Profile(store, settings.data_dir / "bio.md", settings.owner.language)
        self.biographer = Biographer(settings, store, self.searcher, self.profile, self.backend)
        self.sources = Sources(
            settings,
            store,
            RawFiles(settings.data_dir),
            self.searcher,
            self.embeddings,
            self.backend,
            self.biographer,
        )
        self.questions = Questions(store, self.profile)
        self.answers = Answers(settings.owner, self.sources, self.biographer, self.questions)
        self.usage = Spending(store, self.ledger)
        self.pictures = Pictures(settings.owner.names, store, self.profile)
        self.outbox = Outbox(store)
        self.told = Told(self.biographer)
        self.shares = Shares(
            settings.owner,
            settings.reader_endpoint(),
            settings.data_dir / "shares",
            store,
            self.profile,
            self.backend,
        )
        self.mirror = Mirror(
            settings.mirror,
            settings.owner,
            settings.reader_endpoint(),
            store,
            self.profile,
            self.sources,
            self.backend,
        )

        self.assistants = Assistants(settings.data_dir, store, self.profile)
        self.sources.on_private.append(self.assistants.changed)

    def job_queue(self, channels: dict[str, Channel]) -> JobQueue:
        """The queue of long work, reporting on these channels (by platform)."""
        deps = JobDeps(
            jobs=self.store.jobs,
            inbox=self.settings.data_dir / "inbox",
            sources=self.sources,
            biographer=self.biographer,
            answers=self.answers,
            outbox=self.outbox,
            mirror=self.mirror,
            told=self.told,
        )
        return JobQueue(deps, channels)

    @classmethod
    async def open(cls, settings: Settings, embedder: Embedder | None = None) -> Engine:
        """The engine over `settings.data_dir`."""
        ensure_private_dir(settings.data_dir)
        store = await Store.open(settings.db_path)
        engine = cls(settings, store, embedder)
        await count_earlier_sources(store)
        return engine

    async def close(self) -> None:
        await self.assistants.settle()
        self.sources.release()
        await self.searcher.terms.stop()
        await self.store.close()

    async def __aenter__(self) -> Engine:
        return self

    async def __aexit__(
        self, t: type[BaseException] | None, e: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.close()
