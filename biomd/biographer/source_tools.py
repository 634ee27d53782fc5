"""The tools that read the sources (search, search_notes, grep, read_source), each defined
once. A biographer's turn has them all; other assistants get search, grep and read_source
over MCP, shaped for them (biomd/app/memory.py). Source text comes back wrapped in
<source_data> so a model can tell it from instructions, and what a result shows or reads goes
into the caller's record (`Desk.state`)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Annotated, Protocol

from pydantic import Field

from biomd.biographer import data
from biomd.biographer.period import Day, within
from biomd.biographer.reading import briefing
from biomd.biographer.tool_state import ToolState
from biomd.errors import NotFound
from biomd.models.tools import BadArguments, Done, aliased, tool
from biomd.plural import counted
from biomd.retrieval.search import Hit, Searcher
from biomd.storage.documents import Source

SEARCH_MAX = 20
MAX_QUERY = 2000  # characters
PERIOD_POOL = 25  # passages looked through for each one asked for, when a period is given
GREP_PAGE = 30
GREP_MAX = 100
_STAMP = re.compile(r"^\[(\d{4}-\d{2}-\d{2}(?: \d{2}:\d{2})?)\]", re.M)


class Desk(Protocol):
    """What a source tool works with."""

    @property
    def searcher(self) -> Searcher: ...

    @property
    def read_cap(self) -> int:
        """The most characters one read_source returns."""

    @property
    def state(self) -> ToolState:
        """The record the tool writes what it showed and read into."""

    async def hidden(self) -> frozenset[int]:
        """The sources this desk may not show (another assistant's: the owner's private
        ones; the biographer's: none)."""


@dataclass(frozen=True)
class Found:
    """A passage search found, and its date: its own time stamp, else its source's start."""

    hit: Hit
    when: str | None


@dataclass(frozen=True)
class Passages(Done):
    """What search found: the text a model reads, and the passages themselves for a surface
    that shows them its own way."""

    query: str = ""
    since: str = ""
    until: str = ""
    found: tuple[Found, ...] = ()


@tool
async def search(
    desk: Desk,
    query: Annotated[
        str,
        Field(
            max_length=MAX_QUERY, description="What to look for, in words (a question or keywords)."
        ),
    ],
    limit: Annotated[int, Field(ge=1, le=SEARCH_MAX, description="How many passages.")] = 8,
    since: Day = "",
    until: Day = "",
) -> Passages:
    """Hybrid search (meaning and keywords) over every source, or over a period (since,
    until). Returns passages marked with their source id and character span."""
    query = _words(query, "Give something to search for.")
    everywhere = not since and not until
    hidden = await desk.hidden()
    depth = limit if everywhere else limit * PERIOD_POOL
    hits = await desk.searcher.search(query, depth, hidden=hidden)
    docs: dict[int, Source | None] = {}
    found: list[Found] = []
    for h in hits:
        if h.document_id not in docs:
            docs[h.document_id] = await desk.searcher.source(h.document_id)
        doc = docs[h.document_id]
        when = _stamp(h.text) or (doc.content_start if doc else None)
        if within(when, since, until):
            found.append(Found(h, when))
        if len(found) == limit:
            break
    desk.state.seen.update(f.hit.document_id for f in found)
    text = "\n\n".join(
        f"[#{f.hit.document_id} {f.hit.document!r} chars {f.hit.span[0]}-{f.hit.span[1]}]\n"
        + data.wrap(f.hit.passage)
        for f in found
    )
    return Passages(text or "No passages found.", query, since, until, tuple(found))


@tool
async def search_notes(
    desk: Desk,
    about: Annotated[
        str,
        aliased(
            "about",
            "query",
            "topic",
            description="What to look for: a person, a place, an event, a topic.",
        ),
    ],
    limit: Annotated[int, Field(ge=1, le=SEARCH_MAX, description="How many notes.")] = 10,
) -> str:
    """Search the reader's notes on every source read so far (facts, events, people,
    feelings, habits, with a verbatim quote each): a quick way to find what is known about a
    person or a topic across sources."""
    notes = await desk.searcher.notes.search(about, limit, await desk.hidden())
    if not notes:
        return "No notes found."
    desk.state.seen.update(n.document_id for n in notes)
    return data.wrap("\n".join(briefing.line(n) for n in notes))


@tool
async def grep(
    desk: Desk,
    pattern: Annotated[
        str,
        Field(max_length=200, description="A word or exact phrase; case and accents are ignored."),
    ],
    offset: Annotated[int, Field(ge=0, description="Skip this many mentions (paging).")] = 0,
    limit: Annotated[int, Field(ge=1, le=GREP_MAX, description="How many mentions.")] = GREP_PAGE,
    exact: Annotated[bool, Field(description="Match case and accents exactly.")] = False,
) -> str:
    """Every mention of a word or phrase across all sources, with source id, position and the
    line around it, a page at a time, with the total count."""
    _words(pattern, "Give a word or phrase to look for.")
    page = await desk.searcher.grep(pattern, offset, limit, exact, await desk.hidden())
    if page.total == 0:
        return f"No mentions of {pattern!r}."
    desk.state.seen.update(m.document_id for m in page.mentions)
    sources = {m.document_id: f"#{m.document_id} {m.document!r}" for m in page.mentions}
    lines = "\n".join(f"#{m.document_id} @{m.position}: {m.line}" for m in page.mentions)
    end = offset + len(page.mentions)
    more = f" Next page: offset {end}." if end < page.total else ""
    head = (
        f"{counted(page.total, 'mention')} of {pattern!r}; {offset + 1}-{end} shown, in "
        f"{', '.join(sources.values())}.{more}"
    )
    return f"{head}\n{data.wrap(lines)}"


@tool
async def read_source(
    desk: Desk,
    document_id: Annotated[
        int,
        aliased("document_id", "id", description="The source id, the number after # in results."),
    ],
    offset: Annotated[int, Field(ge=0, description="Character offset to start at.")] = 0,
    length: Annotated[int, Field(ge=1, description="How many characters (capped).")] = 4000,
) -> str:
    """Read an exact slice of one source's text by id; long reads are capped, and the result
    says where to continue."""
    if document_id in await desk.hidden():
        raise NotFound(f"There is no source #{document_id}.")  # as for one that never was
    doc = await desk.searcher.source(document_id)
    part = await desk.searcher.read_source(document_id, offset, min(length, desk.read_cap))
    desk.state.seen.add(part.document_id)
    desk.state.read.setdefault(part.document_id, []).append((part.offset, part.end))
    dates = ""
    if doc is not None and doc.content_start:
        dates = f", dates {doc.content_start} to {doc.content_end}"
    kind = f", {doc.kind}" if doc is not None else ""
    more = f" Continue with offset {part.next_offset}." if part.next_offset is not None else " End."
    head = (
        f"#{part.document_id} {part.document!r}{kind}{dates}: characters "
        f"{part.offset}-{part.end} of {part.total}.{more}"
    )
    return f"{head}\n{data.wrap(part.text)}"


def _words(text: str, why: str) -> str:
    """`text` without the space around it; BadArguments (`why`) if that leaves nothing."""
    if not text.strip():
        raise BadArguments(why)
    return text.strip()


def _stamp(text: str) -> str | None:
    """The time stamp of a passage's first dated line (a chat's), if it has one."""
    m = _STAMP.search(text)
    return m.group(1) if m else None
