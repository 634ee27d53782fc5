"""A lead: a line for bio.md that the rules found in the reader's notes (an open question or
two sources that may disagree), with a stable key so that it is raised once. Pure."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Lead:
    """A line to add to bio.md: an open question or a contradiction, with its stable key (a
    digest, so that a forgotten source's names do not stay behind in it)."""

    key: str
    section: str  # "Open questions" or "Hypotheses"
    line: str


def key(*parts: object) -> str:
    return hashlib.sha256(":".join(map(str, parts)).encode()).hexdigest()[:24]


def when(value: str | None) -> str:
    return value[:10] if value else "undated"


def short(quote: str, most: int = 160) -> str:
    text = " ".join(quote.split())
    return text if len(text) <= most else text[: most - 1].rsplit(" ", 1)[0] + "…"
