"""The ingestion pipeline: stage → detect → convert → chunk → store, one source at a time.

A source is first copied into the data dir while it is hashed. An identical source seen
before is reported as a duplicate. Otherwise a `pending` document row is written, its text
is converted and chunked in a worker thread while earlier batches are written, and the row
becomes `ready` only when every chunk is in. A crash leaves the row `pending`; the next run
drops its partial chunks and indexes it again from the kept raw file. Archives are opened
member by member, each member becoming a source of its own.
"""

from __future__ import annotations

import asyncio
import errno
import zipfile
import zlib
from collections import Counter
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO, Literal

from biomd.errors import (
    ArchiveLimit,
    BiomdError,
    ConversionError,
    CorruptSource,
    DiskFull,
    SpeechModelError,
)
from biomd.ingest import twin_check, twins
from biomd.ingest.chunking import Chunk, Chunker
from biomd.ingest.convert import (
    ArchiveBudget,
    ArchiveReader,
    ConvertContext,
    Converter,
    Member,
    Probe,
    detect,
)
from biomd.ingest.convert.archive import is_junk
from biomd.ingest.timestamps import date_in_heading, date_in_name, line_facts
from biomd.ingest.twins import Units
from biomd.storage.chunks import ChunkRow
from biomd.storage.documents import DuplicateSource, Source
from biomd.storage.rawfiles import RawFiles, Staged
from biomd.storage.store import Store

Status = Literal["added", "duplicate", "failed"]
ProgressFn = Callable[[str, int], None]
"""Called as (source name, characters indexed so far)."""

_BATCH_CHUNKS = 2000  # chunks per batch from the converter
_QUEUED_BATCHES = 4  # batches converted ahead of the writer (memory stays bounded)
_WRITE_CHUNKS = 8000  # most chunks written in one transaction


@dataclass(frozen=True, slots=True)
class IngestResult:
    """What happened to one source."""

    name: str
    status: Status
    document_id: int | None = None
    kind: str | None = None
    chunks: int = 0
    chars: int = 0
    error: str | None = None
    note: str | None = None  # what the owner should know: the source it repeats, how its
    # dates were read


@dataclass
class ChunkStream:
    """Pulls text from a converter and hands out batches of chunk rows, tracking totals."""

    pieces: Iterator[str]
    chunker: Chunker = field(default_factory=Chunker)
    length: int = 0
    chunks: int = 0
    has_text: bool = False
    first_stamp: str | None = None
    last_stamp: str | None = None
    names: Counter[str] = field(default_factory=Counter)
    months: Counter[tuple[str, str]] = field(default_factory=Counter)
    units: Units = field(default_factory=Units)  # its fingerprint, as the text goes by
    dated: str | None = None  # the date its first line gives, if any
    _counted_to: int = 0  # where the chunks already counted end (chunks overlap)
    _done: bool = False

    def next_batch(self) -> list[ChunkRow] | None:
        """The next batch of rows, or None once the text is exhausted."""
        if self._done:
            return None
        rows: list[ChunkRow] = []
        for piece in self.pieces:
            self.length += len(piece)
            if not self.has_text and not piece.isspace():
                self.dated = date_in_heading(piece)  # a journal entry's heading
            self.has_text = self.has_text or not piece.isspace()
            self.units.feed(piece)
            rows.extend(self._rows(self.chunker.feed(piece)))
            if len(rows) >= _BATCH_CHUNKS:
                return rows
        rows.extend(self._rows(self.chunker.finish()))
        self._done = True
        return rows

    def _rows(self, chunks: list[Chunk]) -> list[ChunkRow]:
        out = []
        for c in chunks:
            stamps, speakers, months = line_facts(c.text, max(0, self._counted_to - c.start))
            self.names.update(speakers)
            self.months.update(months)
            self._counted_to = max(self._counted_to, c.end)
            if stamps:
                lo, hi = min(stamps), max(stamps)
                self.first_stamp = lo if self.first_stamp is None else min(self.first_stamp, lo)
                self.last_stamp = hi if self.last_stamp is None else max(self.last_stamp, hi)
            out.append(ChunkRow(c.seq, c.start, c.end, c.text, stamps[0] if stamps else None))
        self.chunks += len(out)
        return out


_NO_SPACE = {errno.ENOSPC, errno.EFBIG, errno.EDQUOT}
_MEMBER_READ_ERRORS = (zipfile.BadZipFile, EOFError, zlib.error, OSError, RuntimeError)


class Ingestor:
    """Runs the pipeline for files, folders and archive members."""

    def __init__(
        self,
        store: Store,
        raw: RawFiles,
        data_dir: Path,
        ctx: ConvertContext,
        on_progress: ProgressFn | None = None,
    ) -> None:
        self.store = store
        self.raw = raw
        self.data_dir = data_dir  # never ingested: it is biomd's own
        self.ctx = ctx
        self.on_progress = on_progress
        self._fingerprinted = False  # the sources stored before fingerprints, once a run
        self.given = False  # text biomd was given (an answer, a note): a short one is never
        # taken for another by its text alone (two answers "Yes" are two sources)

    # -- entry points -------------------------------------------------------------------

    async def ingest_paths(self, paths: list[Path]) -> AsyncIterator[IngestResult]:
        """Ingest files and folders (recursively), yielding one result per source."""
        own = self.data_dir.resolve()
        for path in paths:
            if path.resolve().is_relative_to(own):
                yield IngestResult(
                    str(path), "failed", error=f"{path}: this is biomd's own data folder."
                )
            elif path.is_dir():
                base = path.parent if path.name else path
                for file in walk_files(path, skip=own):
                    async for result in self.ingest_file(file, file.relative_to(base).as_posix()):
                        yield result
            elif path.is_file():
                async for result in self.ingest_file(path):
                    yield result
            else:
                yield IngestResult(str(path), "failed", error=f"{path}: no such file or folder.")

    async def ingest_file(self, path: Path, name: str | None = None) -> AsyncIterator[IngestResult]:
        """Ingest one file (an archive yields one result per member)."""
        label = name or path.name
        try:
            staged = await asyncio.to_thread(self.raw.stage, path)
        except OSError as exc:
            if exc.errno in _NO_SPACE:
                raise DiskFull(
                    f"The disk is full: no room to keep a copy of {label} ({exc.strerror}). "
                    "Free some space and run the same command again."
                ) from exc
            yield IngestResult(label, "failed", error=f"{label}: cannot be read ({exc.strerror}).")
            return
        async for result in self._ingest_staged(staged, label, depth=0, budget=None):
            yield result

    async def resume_pending(self) -> AsyncIterator[IngestResult]:
        """Finish documents a previous run left half-indexed (it crashed or was stopped)."""
        for doc in await self.store.documents.all(status="pending"):
            yield await self._reindex_raw(doc)

    # -- the pipeline -------------------------------------------------------------------

    async def _ingest_staged(
        self, staged: Staged, name: str, depth: int, budget: ArchiveBudget | None
    ) -> AsyncIterator[IngestResult]:
        existing = await self.store.documents.by_sha(staged.sha256)
        if existing is not None and existing.status != "failed":
            self.raw.discard(staged)
            yield IngestResult(name, "duplicate", existing.id, existing.kind, existing.n_chunks)
            return
        try:
            probe = await asyncio.to_thread(Probe.of, staged.tmp_path, name)
            converter = await asyncio.to_thread(detect, probe)
        except ConversionError as exc:
            self.raw.discard(staged)
            yield await self._record_failure(staged, name, existing, exc.user_message)
            return
        if isinstance(converter, ArchiveReader):
            async for result in self._expand(staged, probe, converter, depth, budget, existing):
                yield result
            return
        yield await self._add(staged, probe, converter, existing)

    async def _add(
        self, staged: Staged, probe: Probe, converter: Converter, existing: Source | None
    ) -> IngestResult:
        rel = await asyncio.to_thread(self.raw.file, staged.sha256, staged)
        if existing is not None:
            doc_id = existing.id
            await self.store.documents.restart(
                doc_id, kind=converter.kind, mime=converter.mime, raw_path=rel
            )
        else:
            try:
                doc_id = await self.store.documents.add(
                    sha256=staged.sha256,
                    name=probe.name,
                    kind=converter.kind,
                    mime=converter.mime,
                    size=staged.size,
                    raw_path=rel,
                )
            except DuplicateSource:  # the same bytes arrived twice at once
                twin = await self.store.documents.by_sha(staged.sha256)
                return IngestResult(probe.name, "duplicate", twin.id if twin else None)
        kept = Probe(self.raw.path(rel), probe.name, probe.head)
        return await self._index(doc_id, converter, kept)

    async def _reindex_raw(self, doc: Source) -> IngestResult:
        path = self.raw.path(doc.raw_path)
        try:
            probe = await asyncio.to_thread(Probe.of, path, doc.name)
            converter = await asyncio.to_thread(detect, probe)
        except FileNotFoundError:
            return await self._fail(doc.id, doc.name, f"{doc.name}: its raw file is missing.")
        except ConversionError as exc:
            return await self._fail(doc.id, doc.name, exc.user_message)
        if isinstance(converter, ArchiveReader):
            return await self._fail(doc.id, doc.name, f"{doc.name}: an archive, not a document.")
        await self.store.documents.restart(
            doc.id, kind=converter.kind, mime=converter.mime, raw_path=doc.raw_path
        )
        return await self._index(doc.id, converter, probe)

    async def _index(self, doc_id: int, converter: Converter, probe: Probe) -> IngestResult:
        """Convert, chunk and store one document; it becomes `ready` only when complete. The
        same text in another file is refused, and a longer export of a stored chat keeps only
        what is new (biomd.ingest.twins)."""
        pieces = converter.convert(probe, self.ctx)
        stream = ChunkStream(_guarded(pieces, probe.name, converter.kind))
        if failed := await self._write(doc_id, stream, probe.name, converter.kind):
            return failed
        if not stream.has_text:
            return await self._fail(
                doc_id, probe.name, f"{probe.name}: no text found in it.", converter.kind
            )
        fingerprint = stream.units.finish()
        if not self._fingerprinted:
            await twin_check.fingerprint_missing(self.store)
            self._fingerprinted = True
        twin = await twin_check.find(self.store, doc_id, fingerprint)
        note = None
        if twin is not None and twin.verdict == "longer":
            newer = await self._only_new(doc_id, converter, probe.name, twin.source, stream)
            if newer is None:
                twin = twin_check.Twin("same", twin.source)
            elif newer is not stream:
                stream, note = (
                    newer,
                    (
                        f"a longer export of source #{twin.source.id} ({twin.source.name}): only "
                        "the messages after it ends were added"
                    ),
                )
        read = self.ctx.notes_of(probe.name)  # how the converter read it (a chat's dates)
        if twin is None and fingerprint.count < twins.FEWEST and not self.given:
            same = await twin_check.same_text(self.store, doc_id, fingerprint, stream.length)
            twin = twin_check.Twin("same", same) if same is not None else None
        if twin is not None and twin.verdict == "same":
            gone = await self.store.documents.delete(doc_id, refused=True)
            if gone is not None and gone.raw_path:
                await asyncio.to_thread(self.raw.remove, gone.raw_path)
            return IngestResult(
                probe.name,
                "duplicate",
                twin.source.id,
                twin.source.kind,
                twin.source.n_chunks,
                note=f"the same text as source #{twin.source.id} ({twin.source.name})",
            )
        await self.store.units.keep(doc_id, fingerprint.count, fingerprint.chat, fingerprint.hashes)
        await self.store.documents.finish(
            doc_id,
            text_length=stream.length,
            n_chunks=stream.chunks,
            content_start=stream.first_stamp or stream.dated or date_in_name(probe.name),
            content_end=stream.last_stamp or stream.dated or date_in_name(probe.name),
            names=stream.names,
            months=stream.months,
        )
        await self.store.reading.add(doc_id)
        note = "; ".join(x for x in (note, read) if x) or None
        return IngestResult(
            probe.name, "added", doc_id, converter.kind, stream.chunks, stream.length, note=note
        )

    async def _write(
        self, doc_id: int, stream: ChunkStream, name: str, kind: str
    ) -> IngestResult | None:
        """Store the stream's chunks as they are converted; the failure, if conversion fails."""
        ready: asyncio.Queue[list[ChunkRow] | None] = asyncio.Queue(maxsize=_QUEUED_BATCHES)
        producer = asyncio.ensure_future(_produce(stream, ready))
        try:
            done = False
            while not done:
                batch = await ready.get()
                rows = [] if batch is None else batch
                done = batch is None
                while not done and len(rows) < _WRITE_CHUNKS and not ready.empty():
                    more = ready.get_nowait()  # write what has piled up in one transaction
                    done = more is None
                    rows += more or []
                if rows:
                    await self.store.chunks.add(doc_id, rows)
                if self.on_progress:
                    self.on_progress(name, stream.length)
            await producer  # raises the converter's error, if it had one
        except ConversionError as exc:
            return await self._fail(doc_id, name, exc.user_message, kind)
        except SpeechModelError as exc:  # this file fails; the batch goes on; resend it later
            message = f"{name}: not transcribed. {exc.user_message}"
            return await self._fail(doc_id, name, message, kind)
        finally:
            if not producer.done():  # never leave the generator running behind our back
                producer.cancel()
                await asyncio.wait([producer])
        return None

    async def _only_new(
        self, doc_id: int, converter: Converter, name: str, stored: Source, stream: ChunkStream
    ) -> ChunkStream | None:
        """A longer export of a stored chat, cut to the messages after the stored one ends and
        stored again; None when nothing is new; the stream as it was when the stored chat's
        end can't be told."""
        end = await twin_check.chat_end(self.store, stored)
        if end is None:
            return stream
        text = await self.store.chunks.text(doc_id, 0, stream.length)
        lines = twins.after(text, end.stamp, end.seen)
        if not lines:
            return None
        head = text.split("\n", 1)[0]
        said = twins.continues_line(stored.id, end.stamp)
        doc = await self.store.documents.get(doc_id)
        raw_path = doc.raw_path if doc is not None else ""
        await self.store.documents.restart(
            doc_id, kind=converter.kind, mime=converter.mime, raw_path=raw_path
        )
        fresh = ChunkStream(iter([f"{head}\n{said}\n\n" + "\n".join(lines) + "\n"]))
        await self._write(doc_id, fresh, name, converter.kind)
        return fresh

    async def _fail(
        self, doc_id: int, name: str, message: str, kind: str | None = None
    ) -> IngestResult:
        self.ctx.notes_of(name)  # how a failed source was read no longer matters
        doc = await self.store.documents.get(doc_id)
        await self.store.documents.fail(doc_id, message)
        if doc is not None and doc.raw_path:
            await asyncio.to_thread(self.raw.remove, doc.raw_path)
        return IngestResult(name, "failed", doc_id, kind, error=message)

    async def _record_failure(
        self, staged: Staged, name: str, existing: Source | None, message: str
    ) -> IngestResult:
        """Remember a source that could not be read (without keeping its bytes)."""
        if existing is not None:
            await self.store.documents.fail(existing.id, message)
            return IngestResult(name, "failed", existing.id, error=message)
        try:
            doc_id = await self.store.documents.add(
                sha256=staged.sha256,
                name=name,
                kind="unknown",
                mime=None,
                size=staged.size,
                raw_path="",
            )
        except DuplicateSource:
            return IngestResult(name, "failed", error=message)
        await self.store.documents.fail(doc_id, message)
        return IngestResult(name, "failed", doc_id, error=message)

    # -- archives -----------------------------------------------------------------------

    async def _expand(
        self,
        staged: Staged,
        probe: Probe,
        reader: ArchiveReader,
        depth: int,
        budget: ArchiveBudget | None,
        existing: Source | None,
    ) -> AsyncIterator[IngestResult]:
        """Ingest each member of an archive as a source of its own; the archive is not kept
        (one that can't be opened is remembered as a failed source, as any bad file is)."""
        limits = self.ctx.zip_limits
        if depth > limits.depth:
            self.raw.discard(staged)
            message = (
                f"{probe.name}: archives nested more than {limits.depth} deep "
                "(BIOMD_ZIP_MAX_DEPTH); it looks like a zip bomb."
            )
            yield await self._record_failure(staged, probe.name, existing, message)
            return
        budget = budget or self.ctx.budget()
        members = reader.members(probe, budget)
        try:
            while True:
                try:
                    member = await asyncio.to_thread(next, members, None)
                except ConversionError as exc:
                    yield await self._record_failure(staged, probe.name, existing, exc.user_message)
                    return
                if member is None:
                    return
                try:
                    member_staged = await asyncio.to_thread(_stage_member, self.raw, member)
                except ArchiveLimit as exc:
                    yield IngestResult(member.name, "failed", error=exc.user_message)
                    return
                except ConversionError as exc:
                    yield IngestResult(member.name, "failed", error=exc.user_message)
                    continue
                async for result in self._ingest_staged(
                    member_staged, member.name, depth + 1, budget
                ):
                    yield result
        finally:
            members.close()
            self.raw.discard(staged)


async def _produce(stream: ChunkStream, ready: asyncio.Queue[list[ChunkRow] | None]) -> None:
    """Convert and chunk in a worker thread, batch after batch, while batches are written."""
    try:
        while (batch := await asyncio.to_thread(stream.next_batch)) is not None:
            await ready.put(batch)
    finally:
        await ready.put(None)  # the writer stops at this; it is always there to take it


def _stage_member(raw: RawFiles, member: Member) -> Staged:
    stream: BinaryIO = member.open()
    try:
        return raw.stage(stream)
    except BiomdError:
        raise
    except _MEMBER_READ_ERRORS as exc:
        raise CorruptSource(f"{member.name}: this archive member is damaged ({exc}).") from exc
    finally:
        stream.close()


def _guarded(pieces: Iterator[str], name: str, kind: str) -> Iterator[str]:
    """Converter output, with any unexpected library error turned into a clear one."""
    try:
        yield from pieces
    except BiomdError:
        raise
    except Exception as exc:
        reason = str(exc) or type(exc).__name__
        raise CorruptSource(f"{name}: could not be read as {kind} ({reason}).") from exc


def walk_files(folder: Path, skip: Path | None = None) -> Iterator[Path]:
    """Files under `folder`, recursively and in a stable order, skipping hidden and junk
    files and the folder `skip` (biomd's own data dir)."""
    for path in sorted(folder.rglob("*")):
        rel = path.relative_to(folder)
        if any(part.startswith(".") for part in rel.parts) or is_junk(str(rel)):
            continue
        if skip is not None and path.resolve().is_relative_to(skip):
            continue
        if path.is_file():
            yield path
