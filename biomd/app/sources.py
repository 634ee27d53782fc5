"""The owner's sources, as the front-ends see them: add them (files, folders, text biomd was
given), list and read them, find things in them, forget them, and give them vectors. Ingest
takes the process lock first, so only one biomd writes sources at a time."""

from __future__ import annotations

import asyncio
import secrets
import threading
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import asdict, dataclass, replace
from pathlib import Path

from biomd.biographer.backend import Backend
from biomd.biographer.biographer import Biographer
from biomd.biographer.profile_text import section
from biomd.biographer.reading.estimate import Estimate
from biomd.errors import BiomdError, NotFound
from biomd.ingest import twins
from biomd.ingest.convert import ConvertContext, chat_kinds
from biomd.ingest.hints import capitalised_names, fit, people_names, rank
from biomd.ingest.pipeline import Ingestor, ProgressFn, walk_files
from biomd.ingest.pipeline import IngestResult as IngestResult  # a front-end shows each
from biomd.ingest.transcribe import PROMPT_TOKENS, WhisperTranscriber
from biomd.plural import counted
from biomd.retrieval import language
from biomd.retrieval.embed_pipeline import Embeddings, EmbedProgress
from biomd.retrieval.embedding import download_failed
from biomd.retrieval.passages import Passage, passage
from biomd.retrieval.search import MODES as MODES  # the search modes a front-end offers
from biomd.retrieval.search import GrepPage, Mention, Mode, Searcher, Slice
from biomd.retrieval.search import Hit as Hit
from biomd.retrieval.vector_index import Loading as Loading  # a front-end shows it
from biomd.retrieval.vector_index import LoadingFn
from biomd.settings import Settings
from biomd.storage.activity import speaker_names
from biomd.storage.documents import Counts, Source, SourceState
from biomd.storage.lock import ProcessLock
from biomd.storage.notes import Note
from biomd.storage.rawfiles import RawFiles
from biomd.storage.store import Store

LANGUAGE_SAMPLE = 40  # chunks of a new source read to tell its languages


@dataclass(frozen=True, slots=True)
class Stats(Counts):
    """The corpus in numbers, with the database's size and the embedding models."""

    db_bytes: int = 0
    embed_model: str | None = None  # the stored vectors'
    configured_model: str = ""
    switching: bool = False  # the configured model's vectors are being made (`reindex`)
    next_vectors: int = 0  # how many of them are made so far

    @property
    def vectors_missing(self) -> int:
        return self.chunks - self.vectors


@dataclass(frozen=True, slots=True)
class ReadingState:
    """How far the biographer is with a source: `read`, `reading` (parts_done of parts),
    `waiting`, or `set_aside` (with why)."""

    state: str
    parts_done: int
    parts: int
    why: str | None = None

    def describe(self) -> str:
        if self.state == "reading":
            text = f"{self.parts_done} of {counted(self.parts, 'part')}"
        else:
            text = self.state.replace("_", " ")
        return f"{text} ({self.why})" if self.why and self.state != "read" else text


@dataclass(frozen=True, slots=True)
class SourceRow:
    """A source in the list: its vectors, its reading state (None: not to be read) and,
    while it waits, what reading the rest of it will cost."""

    source: Source
    vectors: int
    reading: ReadingState | None
    estimate: Estimate | None = None
    continues: int | None = None  # the stored chat this one goes on from (a longer export)


def reading_state(s: SourceState, part_chars: int) -> ReadingState | None:
    """Where a source stands in the reading queue, in parts of `part_chars` characters."""
    if s.next_offset is None:
        return None
    total = s.source.text_length
    parts = max(1, -(-total // part_chars))
    if s.read_at:
        return ReadingState("read", parts, parts)
    done = min(parts - 1, s.next_offset * parts // total) if total else 0
    if s.set_aside_at:
        return ReadingState("set_aside", done, parts, s.reading_error)
    if s.next_offset > 0:
        return ReadingState("reading", done, parts, s.reading_error)
    return ReadingState("waiting", 0, parts, s.reading_error)


NO_READER = "no language model is set up to read it"


def ingest_lock(settings: Settings) -> ProcessLock:
    """The lock the one process that writes sources holds (the bot, while it runs)."""
    return ProcessLock(settings.data_dir / "ingest.lock")


class Sources:
    def __init__(
        self,
        settings: Settings,
        store: Store,
        raw: RawFiles,
        searcher: Searcher,
        embeddings: Embeddings,
        backend: Backend,
        biographer: Biographer,
    ) -> None:
        self.settings = settings
        self.store = store
        self.raw = raw
        self.searcher = searcher
        self.embeddings = embeddings
        self.backend = backend
        self.biographer = biographer
        self._lock = ingest_lock(settings)
        self.on_private: list[Callable[[], Awaitable[None]]] = []  # told when one changes
        self._transcriber: WhisperTranscriber | None = None

    def release(self) -> None:
        self._lock.release()

    # -- adding ---------------------------------------------------------------------------

    async def ingest(
        self, paths: list[Path], on_progress: ProgressFn | None = None
    ) -> AsyncIterator[IngestResult]:
        """Ingest files and folders; first finish anything an earlier run left half-done."""
        ingestor = self._ingestor(on_progress)
        async for result in ingestor.resume_pending():
            yield await self._languages(result)
        async for result in ingestor.ingest_paths(paths):
            yield await self._languages(result)

    async def ingest_file(
        self, path: Path, name: str, on_progress: ProgressFn | None = None
    ) -> list[IngestResult]:
        """Ingest one file under the name the owner knows it by (a forwarded file)."""
        ingestor = self._ingestor(on_progress)
        resumed = [await self._languages(r) async for r in ingestor.resume_pending()]
        return resumed + [await self._languages(r) async for r in ingestor.ingest_file(path, name)]

    async def resume(self, on_progress: ProgressFn | None = None) -> list[IngestResult]:
        """Finish sources an earlier run left half-indexed."""
        return [
            await self._languages(r) async for r in self._ingestor(on_progress).resume_pending()
        ]

    async def keep_text(self, body: str, name: str) -> int:
        """Text biomd itself was given (an answer, a note), ingested as a source; its id."""
        ingestor = self._ingestor(None)  # takes the lock (and clears tmp) first
        ingestor.given = True
        staging = self.raw.tmp / f"kept-{secrets.token_hex(8)}.txt"
        await asyncio.to_thread(staging.write_text, body, "utf-8")
        try:
            results = [await self._languages(r) async for r in ingestor.ingest_file(staging, name)]
        finally:
            staging.unlink(missing_ok=True)
        doc_id = results[0].document_id if results else None
        if doc_id is None:
            raise NotFound(f"{name} could not be stored: {results[0].error if results else ''}")
        return doc_id

    async def _languages(self, result: IngestResult) -> IngestResult:
        """Note the languages a source just added is in (line by line over a sample of its
        chunks, so a chat in two languages gets both)."""
        if result.status == "added" and result.document_id is not None:
            texts = await self.store.chunks.sample_of(result.document_id, LANGUAGE_SAMPLE)
            codes = await asyncio.to_thread(language.languages_of, texts, 0.1, 300)
            await self.store.documents.set_languages(result.document_id, codes)
        return result

    def take_ingest_lock(self) -> None:
        """Become the one process that writes sources (the bot holds it while it runs)."""
        if not self._lock.held:
            self._lock.acquire()
            self.raw.sweep_tmp()

    def _ingestor(self, on_progress: ProgressFn | None) -> Ingestor:
        self.take_ingest_lock()
        return Ingestor(
            self.store, self.raw, self.settings.data_dir, self.convert_context(), on_progress
        )

    def convert_context(self) -> ConvertContext:
        """What converters need: the owner, the time zone, speech and vision models."""
        s = self.settings
        return ConvertContext(
            owner_names=s.owner.names,
            timezone=s.zone,
            transcriber=self.transcriber(),
            describer=self.backend.describer(),
            hints=self._hints_from_thread(),
            scratch_dir=self.raw.tmp,
            zip_limits=s.zip,
            date_order=s.owner.chat_date_order,
        )

    def transcriber(self) -> WhisperTranscriber:
        """The speech model, loaded the first time something is transcribed."""
        if self._transcriber is None:
            s = self.settings
            self._transcriber = WhisperTranscriber(
                s.whisper.model,
                device=s.whisper.device,
                compute_type=s.whisper.compute_type,
                cache_dir=s.models_dir / "whisper",
                language=s.whisper.language,
                likely=s.owner.languages,
            )
        return self._transcriber

    def _hints_from_thread(self) -> Callable[[], str]:
        """`speech_hints` for a converter's worker thread: bio.md is loaded through the
        Profile on this event loop, which waits on the thread meanwhile."""
        loop = asyncio.get_running_loop()
        loop_thread = threading.get_ident()

        def hints() -> str:
            if threading.get_ident() == loop_thread:  # waiting here would stop the loop
                raise RuntimeError("speech hints are asked for from a worker thread")
            bio = asyncio.run_coroutine_threadsafe(self.biographer.profile.load(), loop).result()
            return self.speech_hints(bio)

        return hints

    def speech_hints(self, bio: str) -> str:
        """Names to prime speech recognition with: bio.md's and the corpus's, most frequent
        first, as many as fit in Whisper's prompt. Synchronous (a worker thread's)."""
        bio_names = people_names(section(bio, "people"))
        written_in = language.detect(bio)
        if not written_in or written_in[0] != "de":  # German capitalises every noun
            bio_names += capitalised_names(bio)
        names = rank(bio_names, speaker_names(self.settings.db_path))
        return fit(names, self.transcriber().count_tokens, PROMPT_TOKENS)

    # -- reading and finding ----------------------------------------------------------------

    async def all(self) -> list[Source]:
        return await self.store.documents.all()

    async def states(self) -> list[SourceRow]:
        """Every source, newest first, with its vectors, how far the biographer read it,
        and for those waiting what the rest will cost and whether it waits for the owner."""
        part = self.settings.reading.part_chars
        waiting = {r.document_id: r for r in await self.biographer.reading.pending()}
        rows = []
        chats = chat_kinds()
        for s in await self.store.documents.states():
            goes_on = None
            if s.source.kind in chats and s.source.status == "ready":
                goes_on = twins.continued(await self.store.chunks.text(s.source.id, 0, 400))
            state = reading_state(s, part)
            r = waiting.get(s.source.id)
            if state is not None and state.state != "read" and not state.why:
                if not self.biographer.configured:
                    state = replace(state, why=NO_READER)
                elif r is not None and state.state == "waiting":
                    state = replace(state, why="in line: the biographer reads it next")
            if state is None or r is None or not self.biographer.configured:
                rows.append(SourceRow(s.source, s.vectors, state, continues=goes_on))
                continue
            cost = await self.biographer.cost.estimate(r)
            if r.held:
                state = replace(state, why="you said not now; `biomd analyse --pending` asks")
            elif await self.biographer.cost.needs_choice(r, cost):
                state = replace(state, why=f"waits for your choice: {cost.describe()}")
            rows.append(SourceRow(s.source, s.vectors, state, cost, goes_on))
        return rows

    async def get(self, doc_id: int) -> Source:
        doc = await self.store.documents.get(doc_id)
        if doc is None:
            raise NotFound(f"There is no source #{doc_id}.")
        return doc

    async def set_private(self, doc_id: int, private: bool = True) -> Source:
        """Keep a source from other assistants (MCP, Hermes, OpenClaw), or share it again;
        it stays the owner's to search and read. NotFound if there is none."""
        if not await self.store.documents.set_private(doc_id, private):
            raise NotFound(f"There is no source #{doc_id}.")
        for told in self.on_private:
            await told()
        return await self.get(doc_id)

    async def ready_ids(self) -> set[int]:
        """The ids a citation may point at."""
        return await self.store.documents.ready_ids()

    async def read(self, doc_id: int, offset: int = 0, length: int | None = None) -> Slice:
        """An exact slice of a source's text, at most BIOMD_READ_MAX_CHARS long."""
        cap = self.settings.biographer.read_max_chars
        return await self.searcher.read_source(doc_id, offset, min(length or cap, cap))

    async def search(self, query: str, limit: int = 10, mode: Mode = "hybrid") -> list[Hit]:
        return await self.searcher.search(query, limit, mode)

    async def prepare_search(self, on_loading: LoadingFn | None = None) -> None:
        """Make vector search ready now (the first time after vectors are written, it turns
        them all into compact codes: about 16 s a million), reporting how far it has got."""
        await self.searcher.prepare(on_loading)

    def search_loading(self) -> Loading | None:
        """The build of search's codes under way, if one worth showing is."""
        return self.searcher.index.loading

    def last_search_load(self) -> Loading | None:
        return self.searcher.index.last_load

    async def without_vectors(self) -> str | None:
        """Why search has no vectors to go on (keywords only), or None when it has some."""
        counts = await self.store.documents.counts()
        if counts.vectors or not counts.chunks:
            return None
        s = self.settings
        failed = None if s.embed.model_path else download_failed(s.embed.model, s.models_dir)
        return failed or "No vectors have been made yet; `biomd embed` makes them."

    async def notes(self, query: str, limit: int = 10) -> list[Note]:
        """The reader's notes that best match `query`, each with its verified quote."""
        return await self.searcher.notes.search(query, limit)

    async def grep(
        self, pattern: str, offset: int = 0, limit: int = 50, exact: bool = False
    ) -> GrepPage:
        """Every mention of `pattern`, ignoring case and accents unless `exact`."""
        return await self.searcher.grep(pattern, offset, limit, exact)

    async def mentions_in(self, doc_id: int, pattern: str, limit: int = 200) -> list[Mention]:
        """Every mention of `pattern` in one source (the first `limit`)."""
        found = await self.searcher.grep(pattern, 0, 10_000)
        return [m for m in found.mentions if m.document_id == doc_id][:limit]

    async def passage(self, doc_id: int, claim: str) -> Passage | None:
        """Where a source best supports a claim of bio.md (None if there is no such source)."""
        return await passage(self.store, doc_id, claim)

    async def forget(self, doc_id: int) -> Source:
        """Delete a source everywhere: its row, chunks, keyword index, vectors and raw file."""
        doc = await self.store.documents.delete(doc_id)
        if doc is None:
            raise NotFound(f"There is no source #{doc_id}.")
        if doc.raw_path:
            await asyncio.to_thread(self.raw.remove, doc.raw_path)
        return doc

    async def stats(self) -> Stats:
        counts = await self.store.documents.counts()
        db_bytes = sum(
            p.stat().st_size
            for p in self.settings.data_dir.glob(self.settings.db_path.name + "*")
            if p.is_file()
        )
        return Stats(
            **asdict(counts),
            db_bytes=db_bytes,
            embed_model=await self.embeddings.stored_model(),
            configured_model=self.embeddings.model_name,
            switching=await self.embeddings.switching(),
            next_vectors=await self.store.next_vectors.count_after(0),
        )

    # -- vectors ------------------------------------------------------------------------

    @property
    def model_name(self) -> str:
        """The embedding model configured now."""
        return self.embeddings.model_name

    async def stored_model(self) -> str | None:
        """The embedding model the stored vectors were made with."""
        return await self.embeddings.stored_model()

    async def embed_pending(
        self, on_progress: EmbedProgress | None = None, *, retry: bool = False
    ) -> int:
        """Give every indexed chunk a vector; how many were given one. `retry`: the owner
        asked, so a download of the model that failed lately is tried again now."""
        return await self.embeddings.embed_pending(on_progress, retry=retry)

    async def switching(self) -> bool:
        """Whether the stored vectors are not (all) the configured model's yet."""
        return await self.embeddings.switching()

    async def reindex(self, on_progress: EmbedProgress | None = None) -> int:
        """Embed everything again with the configured model (after changing it), while
        search goes on with the old vectors; then the reader's notes too."""
        done = await self.embeddings.reindex(on_progress)
        await self.searcher.notes.embed_new()
        return done


def files_at(arg: str) -> list[tuple[Path, str]]:
    """The file named, or every file under the folder named, with the names to give them."""
    path = Path(arg.strip("'\"")).expanduser().resolve()
    if not path.exists():
        raise BiomdError(f"{path}: no such file or folder.")
    if path.is_dir():
        return [(p, str(p.relative_to(path))) for p in walk_files(path)]
    return [(path, path.name)]


AUDIO = {".ogg", ".opus", ".oga", ".m4a", ".mp3", ".wav", ".webm", ".flac", ".aac"}
