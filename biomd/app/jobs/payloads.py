"""What each kind of job carries. Stored as JSON in the jobs table under the kind's name;
the field names are the stored keys, so jobs queued by an earlier biomd still run."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field, fields
from typing import ClassVar

from biomd.errors import BiomdError

MEDIA = ("voice", "audio", "video", "video_note")  # transcribed in a lane of their own


@dataclass(kw_only=True)
class ReplyTo:
    """Where a job reports: the platform, the chat, and the status message it edits."""

    platform: str | None = None
    chat: str = ""
    status: str | None = None


@dataclass(kw_only=True)
class SourceJob(ReplyTo):
    """A forwarded file or voice note: download, ingest, read, report."""

    kind: ClassVar[str] = "source"
    name: str
    file: str = ""  # the platform's reference to it (or a local path, in the terminal)
    media: str = "document"  # document, photo, audio, voice, video, video_note
    echo: bool = False  # say what was heard
    question: str | None = None  # the open question a spoken reply answers
    path: str | None = None  # where it was downloaded to, once it was


@dataclass(kw_only=True)
class LearnJob(ReplyTo):
    """The biographer's part after a transcription: read the new sources, or take one as an
    answer."""

    kind: ClassVar[str] = "learn"
    name: str
    documents: list[int] = field(default_factory=list)
    lines: list[str] = field(default_factory=list)  # what to say before the biographer's
    question: str | None = None


@dataclass(kw_only=True)
class AnswerJob(ReplyTo):
    """The owner's typed answer to an open question."""

    kind: ClassVar[str] = "answer"
    question: str
    text: str


@dataclass(kw_only=True)
class NoteJob:
    """A note another assistant asked biomd to remember (over MCP)."""

    kind: ClassVar[str] = "note"
    text: str
    client: str
    at: str  # when it was asked, UTC


@dataclass(kw_only=True)
class SessionJob:
    """An assistant's session with the owner (Hermes Agent's), handed over by its memory
    provider: the turns to keep as a source."""

    kind: ClassVar[str] = "session"
    session: str
    client: str
    turns: list[dict[str, str]] = field(default_factory=list)


@dataclass(kw_only=True)
class ConsolidateJob(ReplyTo):
    kind: ClassVar[str] = "consolidate"


@dataclass(kw_only=True)
class ReadJob(ReplyTo):
    """Read whatever is still waiting (the periodic pass, or the sample's first run)."""

    kind: ClassVar[str] = "read"


@dataclass(kw_only=True)
class MirrorJob(ReplyTo):
    """The mirror brought up to date: new chat sources parsed, and the mirror's pass over the
    shapes that are new (after a reading round, and on BIOMD_MIRROR_CRON)."""

    kind: ClassVar[str] = "mirror"


Payload = (
    SourceJob | LearnJob | AnswerJob | NoteJob | SessionJob | ConsolidateJob | ReadJob | MirrorJob
)
KINDS: dict[str, type[Payload]] = {
    cls.kind: cls
    for cls in (
        SourceJob, LearnJob, AnswerJob, NoteJob, SessionJob, ConsolidateJob, ReadJob, MirrorJob
    )
}  # fmt: skip


@dataclass(frozen=True, slots=True)
class Job:
    id: int
    payload: Payload
    attempts: int  # including this one

    @property
    def kind(self) -> str:
        return self.payload.kind


def encode(payload: Payload) -> str:
    return json.dumps(asdict(payload))


def decode(kind: str, text: str) -> Payload:
    """A stored payload; keys it doesn't know are left out."""
    cls = KINDS.get(kind)
    if cls is None:
        raise BiomdError(f"unknown job kind {kind!r}")
    data = json.loads(text)
    return cls(**{f.name: data[f.name] for f in fields(cls) if f.name in data})


def lane(payload: Payload) -> str:
    """'media' for speech and video to transcribe, 'main' for everything else (everything
    that writes bio.md)."""
    return "media" if isinstance(payload, SourceJob) and payload.media in MEDIA else "main"
