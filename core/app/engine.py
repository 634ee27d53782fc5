"""The façade that the CLI and the bot adapters call. It holds no platform code."""

from __future__ import annotations

import asyncio
import secrets
import threading
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from types import TracebackType

import numpy as np

from core import redact
from core.app.outbox import Outbox
from core.biographer.agent import StepFn, TurnResult
from core.biographer.biography import Biography
from core.biographer.profile import Profile, Undone
from core.biographer.profile_text import Question, open_questions, section, timeline
from core.errors import EmbeddingError, ModelMismatch, NotFound
from core.ingest.convert import ArchiveBudget, ConvertContext
from core.ingest.hints import capitalised_names, fit, rank
from core.ingest.message_counts import count_earlier_sources
from core.ingest.pipeline import Ingestor, IngestResult, ProgressFn
from core.ingest.timestamps import owner_speaks, strip_line_stamps
from core.ingest.transcribe import PROMPT_TOKENS, WhisperTranscriber
from core.models.codex import binary as codex_binary
from core.models.endpoint import is_local
from core.models.ledger import Ledger
from core.models.vision import CodexDescriber, VisionDescriber
from core.retrieval.backfill import input_key, pending_rounds, unique_inputs
from core.retrieval.embedding import Embedder, FastEmbedder, Matrix, to_blob
from core.retrieval.search import FusionConfig, GrepPage, Hit, Mode, Searcher, Slice
from core.retrieval.vector_index import VectorIndex
from core.settings import Settings
from core.storage.activity import speaker_names
from core.storage.database import ensure_private_dir
from core.storage.documents import Source
from core.storage.lock import ProcessLock
from core.storage.rawfiles import RawFiles
from core.storage.reading import Reading
from core.storage.revisions import Revision
from core.storage.store import Store

EmbedProgress = Callable[[int, int], None]
"""Called as (chunks embedded so far, chunks to embed in all)."""

_ROUND_BATCHES = 8  # embedding batches per database round trip


@dataclass(frozen=True, slots=True)
class Stats:
    documents: int
    pending: int
    failed: int
    chunks: int
    vectors: int
    text_chars: int
    raw_bytes: int
    db_bytes: int
    embed_model: str | None
    configured_model: str

    @property
    def vectors_missing(self) -> int:
        return self.chunks - self.vectors


def embed_input(text: str) -> str:
    """What the embedding model sees for a chunk: its text without the timestamp that opens
    each chat line. The stamps cost a model with a 256-token window a third of it and say
    nothing about meaning (LoCoMo vector R@5c 0.569 with them, 0.584 without; adding the
    title and date instead measured 0.577, so it is not done)."""
    return strip_line_stamps(text)


def _embed_batches(
    embedder: Embedder, texts: list[str], batch: int, stop: threading.Event
) -> Matrix:
    """A round's vectors, one model batch at a time, stopping early once `stop` is set."""
    parts = []
    for at in range(0, len(texts), batch):
        if stop.is_set():
            raise EmbeddingError("Embedding stopped.")
        parts.append(embedder.embed_passages(texts[at : at + batch]))
    return np.concatenate(parts) if parts else embedder.embed_passages([])


class Engine:
    """Everything biomd can do with the corpus. Open with `async with await Engine.open(...)`."""

    def __init__(self, settings: Settings, store: Store, embedder: Embedder | None) -> None:
        redact.register(settings.secrets())
        self.settings = settings
        self.store = store
        self.raw = RawFiles(settings.data_dir)
        self._embedder = embedder
        self._transcriber: WhisperTranscriber | None = None
        self._describer: VisionDescriber | CodexDescriber | None = None
        self._lock = ProcessLock(settings.data_dir / "ingest.lock")
        self.index = VectorIndex(settings.data_dir / "cache")
        self.searcher = Searcher(store, self.embedder, self.index, FusionConfig())
        self.profile = Profile(store, settings.data_dir / "bio.md")
        self.ledger = Ledger(store, settings.zone, settings.daily_spend_limit_usd)
        self.biography = Biography(settings, store, self.searcher, self.profile, self.ledger)
        self.outbox = Outbox(store)

    @classmethod
    async def open(
        cls, settings: Settings, embedder: Embedder | None = None, *, check_model: bool = True
    ) -> Engine:
        ensure_private_dir(settings.data_dir)
        store = await Store.open(settings.db_path)
        engine = cls(settings, store, embedder)
        await count_earlier_sources(store)
        if check_model:
            try:
                await engine.check_model()
            except BaseException:
                await store.close()
                raise
        return engine

    async def close(self) -> None:
        self._lock.release()
        await self.store.close()

    async def __aenter__(self) -> Engine:
        return self

    async def __aexit__(
        self, t: type[BaseException] | None, e: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.close()

    # -- the embedding model ------------------------------------------------------------

    def embedder(self) -> Embedder:
        """The configured embedder, built on first use (loading a model is slow)."""
        if self._embedder is None:
            s = self.settings
            self._embedder = FastEmbedder(
                s.embed_model,
                model_path=s.embed_model_path,
                cache_dir=s.models_dir,
                threads=s.embed_threads,
                batch_size=s.embed_batch_size,
                int8_cache=s.models_dir / "int8" if s.embed_quantise else None,
            )
        return self._embedder

    @property
    def model_name(self) -> str:
        return self._embedder.name if self._embedder else self.settings.embed_model

    async def stored_model(self) -> str | None:
        return await self.store.meta.get("embed_model")

    async def check_model(self) -> None:
        """Refuse to mix vectors of two models: a clear error that points to `biomd reindex`."""
        stored = await self.stored_model()
        if stored is not None and stored != self.model_name:
            raise ModelMismatch(
                f"The vectors in {self.settings.db_path} were made with the embedding model "
                f"{stored}, but BIOMD_EMBED_MODEL is now {self.model_name}. Run `biomd reindex` "
                f"to re-embed everything with {self.model_name} (keyword search works meanwhile), "
                f"or set BIOMD_EMBED_MODEL back to {stored}."
            )

    # -- ingest -------------------------------------------------------------------------

    async def ingest(
        self, paths: list[Path], on_progress: ProgressFn | None = None
    ) -> AsyncIterator[IngestResult]:
        """Ingest files and folders; first finish anything an earlier run left half-done."""
        ingestor = self._ingestor(on_progress)
        async for result in ingestor.resume_pending():
            yield result
        async for result in ingestor.ingest_paths(paths):
            yield result

    async def ingest_file(
        self, path: Path, name: str, on_progress: ProgressFn | None = None
    ) -> list[IngestResult]:
        """Ingest one file under the name the owner knows it by (a forwarded file)."""
        ingestor = self._ingestor(on_progress)
        resumed = [r async for r in ingestor.resume_pending()]
        return resumed + [r async for r in ingestor.ingest_file(path, name)]

    async def resume(self, on_progress: ProgressFn | None = None) -> list[IngestResult]:
        """Finish documents an earlier run left half-indexed."""
        return [r async for r in self._ingestor(on_progress).resume_pending()]

    def take_ingest_lock(self) -> None:
        """Become the one process that writes sources (the bot holds it while it runs)."""
        if not self._lock.held:
            self._lock.acquire()
            self.raw.sweep_tmp()

    def _ingestor(self, on_progress: ProgressFn | None) -> Ingestor:
        self.take_ingest_lock()
        return Ingestor(self.store, self.raw, self.settings, self.convert_context(), on_progress)

    # -- conversion services ------------------------------------------------------------

    def convert_context(self) -> ConvertContext:
        """What converters need: the owner, the time zone, speech and vision models."""
        s = self.settings
        return ConvertContext(
            owner_names=s.owner_list,
            timezone=s.zone,
            transcriber=self.transcriber(),
            describer=self.describer(),
            hints=self.speech_hints,
            scratch_dir=self.raw.tmp,
            zip_limits=ArchiveBudget(
                s.zip_max_total_bytes, s.zip_max_entries, s.zip_max_depth, s.zip_max_ratio
            ),
        )

    def transcriber(self) -> WhisperTranscriber:
        """The speech model, loaded the first time something is transcribed."""
        if self._transcriber is None:
            s = self.settings
            self._transcriber = WhisperTranscriber(
                s.whisper_model,
                device=s.whisper_device,
                compute_type=s.whisper_compute_type,
                cache_dir=s.models_dir / "whisper",
            )
        return self._transcriber

    def describer(self) -> VisionDescriber | CodexDescriber | None:
        """The vision model for photos, if one is configured; on the Codex backend without
        one, Codex itself."""
        s = self.settings
        if self._describer is None and s.vision_model:
            self._describer = VisionDescriber(s, self.ledger, s.vision_model)
        elif self._describer is None and s.llm_backend == "codex" and codex_binary(s):
            self._describer = CodexDescriber(self.biography.codex())
        return self._describer

    def speech_hints(self) -> str:
        """Names to prime speech recognition with: bio.md's and the corpus's, most frequent
        first, as many as fit in Whisper's prompt. Runs in a worker thread."""
        bio = self.settings.data_dir / "bio.md"
        bio_names = (
            capitalised_names(bio.read_text(encoding="utf-8")) if bio.exists() else Counter()
        )
        names = rank(bio_names, speaker_names(self.settings.db_path))
        return fit(names, self.transcriber().count_tokens, PROMPT_TOKENS)

    async def embed_pending(self, on_progress: EmbedProgress | None = None) -> int:
        """Give every indexed chunk a vector: newest sources first, and a chunk whose text
        already has a vector gets a copy of it. Resumable: it starts wherever vectors stop."""
        embedder = await asyncio.to_thread(self.embedder)  # importing fastembed takes a while
        await self.check_model()
        total = await self.store.vectors.count_missing()
        if total == 0:
            return 0
        if await self.stored_model() is None:
            await self.store.meta.set(
                {"embed_model": embedder.name, "embed_dim": str(embedder.dim)}
            )
        done = 0
        batch = self.settings.embed_batch_size
        round_size = batch * _ROUND_BATCHES
        owners = self.settings.owner_list
        first = (lambda text: owner_speaks(text, owners)) if owners else None
        rounds = pending_rounds(self.store, round_size, first)
        rows = await anext(rounds, None)
        stop = threading.Event()  # set when this is cancelled: the thread stops between batches
        try:
            while rows:
                inputs = [embed_input(text) for _, text in rows]
                keys = [input_key(t) for t in inputs]
                blobs = await self.store.vectors.by_input(list(set(keys)))
                todo = unique_inputs(keys, inputs, set(blobs))
                # The model never waits on the database: the next round is read while this
                # one is embedded (bench/embed_pipeline.py measures the difference).
                embedding = asyncio.ensure_future(
                    asyncio.to_thread(_embed_batches, embedder, list(todo.values()), batch, stop)
                )
                upcoming = asyncio.ensure_future(anext(rounds, None))
                try:
                    vectors = await embedding
                except asyncio.CancelledError:
                    stop.set()  # Ctrl-C or shutdown: don't hold the exit up for a whole round
                    raise
                finally:
                    next_rows = await upcoming
                blobs |= {k: to_blob(v) for k, v in zip(todo, vectors, strict=True)}
                await self.store.vectors.add(
                    [(cid, blobs[k]) for (cid, _), k in zip(rows, keys, strict=True)], keys
                )
                done += len(rows)
                if on_progress:
                    on_progress(done, max(total, done))
                rows = next_rows
        finally:
            await rounds.aclose()
        return done

    async def reindex(self, on_progress: EmbedProgress | None = None) -> int:
        """Drop every vector and embed the whole corpus again with the configured model."""
        embedder = self.embedder()
        await self.store.vectors.clear(
            {"embed_model": embedder.name, "embed_dim": str(embedder.dim)}
        )
        return await self.embed_pending(on_progress)

    # -- reading ------------------------------------------------------------------------

    async def search(self, query: str, limit: int = 10, mode: Mode = "hybrid") -> list[Hit]:
        return await self.searcher.search(query, limit, mode)

    async def grep(self, pattern: str, offset: int = 0, limit: int = 50) -> GrepPage:
        return await self.searcher.grep(pattern, offset, limit)

    async def read_source(self, doc_id: int, offset: int = 0, length: int | None = None) -> Slice:
        cap = self.settings.read_max_chars
        return await self.searcher.read_source(doc_id, offset, min(length or cap, cap))

    async def sources(self) -> list[Source]:
        return await self.store.documents.all()

    async def source(self, doc_id: int) -> Source:
        doc = await self.store.documents.get(doc_id)
        if doc is None:
            raise NotFound(f"There is no source #{doc_id}.")
        return doc

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
            embed_model=await self.stored_model(),
            configured_model=self.model_name,
        )

    # -- the biographer -----------------------------------------------------------------

    @property
    def llm_configured(self) -> bool:
        s = self.settings
        if s.llm_backend == "codex":
            return codex_binary(s) is not None
        return bool(s.llm_api_key) or is_local(s.llm_base_url)

    async def bio(self) -> str:
        """bio.md as it is now (written from the skeleton on first use)."""
        return await self.profile.load()

    async def questions(self) -> list[Question]:
        return open_questions(await self.profile.load())

    async def timeline(self) -> list[str]:
        return timeline(await self.profile.load())

    async def history(self, limit: int = 50) -> list[Revision]:
        await self.profile.load()
        return await self.profile.history(limit)

    async def undo(self) -> Undone | None:
        """Revert the last turn's edits to bio.md (the reverted text stays in the history)."""
        return await self.profile.undo_last_turn()

    async def ask(self, message: str, on_step: StepFn | None = None) -> TurnResult:
        return await self.biography.ask(message, on_step)

    async def analyse(
        self, document_id: int | None = None, on_step: StepFn | None = None
    ) -> TurnResult:
        if document_id is not None:
            await self.source(document_id)
        return await self.biography.analyse(document_id, on_step=on_step)

    async def read_pending(
        self,
        on_step: StepFn | None = None,
        only: set[int] | None = None,
        on_part: Callable[[Reading, int, int], Awaitable[None]] | None = None,
        retry: bool = False,
    ) -> list[TurnResult]:
        """Let the biographer read every source it has not read yet (or just `only`);
        `retry` includes the ones it gave up on."""
        return await self.biography.read_pending(on_step, on_part, only, retry)

    async def consolidate(self) -> list[str]:
        return await self.biography.consolidate()

    async def answer(
        self, question_id: str, text: str, on_step: StepFn | None = None
    ) -> tuple[int, TurnResult]:
        """Store the owner's answer to an open question as a source, then analyse it."""
        qid = question_id.strip().strip("[]").upper()
        asked = {q.id: q.text for q in await self.questions()}
        if qid not in asked:
            raise NotFound(f"There is no open question {qid}; `biomd questions` lists them.")
        doc_id = await self.store_answer(qid, asked[qid], text)
        request = (
            f"The owner answered open question [{qid}] ({asked[qid]!r}); the answer is source "
            f"#{doc_id}. Read it, put what it says where it belongs in bio.md citing "
            f"[#{doc_id}], remove or update the question, and follow any leads it opens."
        )
        # Until the analysis succeeds the answer stays in the reading queue, so an LLM outage
        # only delays it: the periodic reading takes it in later.
        result = await self.biography.analyse(doc_id, focus=request, on_step=on_step)
        await self.biography.mark_read(doc_id)
        return doc_id, result

    async def store_answer(self, qid: str, question: str, text: str) -> int:
        """The answer as a source of its own, in the transcript format; its id."""
        from datetime import datetime

        now = datetime.now(self.settings.zone)
        owner = self.settings.owner_list[0] if self.settings.owner_list else "Me"
        body = (
            f"Answer to the biographer's open question [{qid}]: {question}\n\n"
            f"[{now:%Y-%m-%d %H:%M}] {owner} (owner): {' '.join(text.split())}\n"
        )
        doc_id = await self._keep_text(body, f"answer to {qid} ({now:%Y-%m-%d %H:%M}).txt")
        await self.store.questions.answered(qid, question, now.isoformat(), doc_id)
        return doc_id

    async def store_note(self, text: str, client: str, at: str) -> int:
        """A note another assistant asked biomd to remember, as a source; its id."""
        from datetime import datetime

        when = datetime.fromisoformat(at).astimezone(self.settings.zone)
        body = f"Note from {client}\n\n[{when:%Y-%m-%d %H:%M}] {client}: {' '.join(text.split())}\n"
        return await self._keep_text(body, f"note from {client} ({when:%Y-%m-%d %H:%M}).txt")

    async def _keep_text(self, body: str, name: str) -> int:
        """Text biomd itself was given (an answer, a note), ingested as a source; its id."""
        ingestor = self._ingestor(None)  # takes the lock (and clears tmp) first
        staging = self.raw.tmp / f"kept-{secrets.token_hex(8)}.txt"
        await asyncio.to_thread(staging.write_text, body, "utf-8")
        try:
            results = [r async for r in ingestor.ingest_file(staging, name)]
        finally:
            staging.unlink(missing_ok=True)
        doc_id = results[0].document_id if results else None
        if doc_id is None:
            raise NotFound(f"{name} could not be stored: {results[0].error if results else ''}")
        return doc_id

    # -- questions for the bot ------------------------------------------------------------

    async def dismiss_question(self, qid: str) -> None:
        """Take an open question out of bio.md at the owner's word (a revision like any)."""
        bio = await self.bio()
        line = next(
            (q for q in section(bio, "Open questions").splitlines() if f"[{qid}]" in q), None
        )
        if line is None:
            raise NotFound(f"There is no open question {qid}.")
        await self.profile.edit(line, "", turn_id=None, mode="owner", reason=f"dismissed {qid}")

    async def next_questions(self, count: int, cooldown_days: float) -> list[Question]:
        """The open questions to push now (none asked within the cool-down)."""
        from datetime import UTC, datetime, timedelta

        from core.biographer.questions import pick

        asked = {
            qid: datetime.fromisoformat(at)
            for qid, at in (await self.store.questions.asked()).items()
        }
        now = datetime.now(UTC)
        return pick(await self.questions(), asked, now, count, timedelta(days=cooldown_days))

    async def question_sent(self, platform: str, chat: str, message: str, qid: str) -> None:
        """Remember that `message` in `chat` asked `qid`, so a reply to it answers it."""
        await self.store.questions.sent(platform, chat, message, qid)

    async def question_for_message(self, platform: str, chat: str, message: str) -> str | None:
        return await self.store.questions.of_message(platform, chat, message)
