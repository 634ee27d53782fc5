"""Long work as jobs: typed payloads (payloads.py), the persistent queue that runs them one
lane at a time (queue.py), and what each kind of job does (handlers.py)."""

from biomd.app.jobs.payloads import (
    AnswerJob,
    ConsolidateJob,
    Job,
    LearnJob,
    MirrorJob,
    NoteJob,
    Payload,
    ReadJob,
    SourceJob,
)
from biomd.app.jobs.queue import JobQueue

__all__ = [
    "AnswerJob",
    "ConsolidateJob",
    "Job",
    "JobQueue",
    "LearnJob",
    "MirrorJob",
    "NoteJob",
    "Payload",
    "ReadJob",
    "SourceJob",
]
