"""bio.md's lines as evidence for an answer, each only through the source it cites: the lines
that share words with a question, and for each the reader's note of that source it rests on
(the note whose statement and quote share most words with the line), whose quote is the
source's own words at their exact place. Pure functions; the toolbox reads the sources."""

from __future__ import annotations

import re
from collections.abc import Sequence

from biomd.biographer.profile_text import CITES, bullets, section
from biomd.retrieval.fts_query import content_tokens
from biomd.storage.notes import Note

MATCHED = 3  # bio.md lines an answer starts from, at most
FROM = ("summary", "identity", "timeline", "people", "patterns", "inferences")
_CITED = re.compile(r"#(\d+)")


def matching(bio: str, question: str, most: int = MATCHED) -> list[tuple[int, str]]:
    """The (source, line) pairs of bio.md's cited lines that share most content words with
    the question, best first; a line citing several sources gives one pair for each."""
    wanted = set(content_tokens(question))
    if not wanted:
        return []
    scored = []
    for key in FROM:
        for i, line in enumerate(bullets(section(bio, key))):
            shared = len(wanted & set(content_tokens(CITES.sub(" ", line))))
            if shared and _CITED.search(line):
                scored.append((-shared, key != "people", i, line))
    out: list[tuple[int, str]] = []
    for *_, line in sorted(scored)[:most]:
        out += [(int(n), line) for n in dict.fromkeys(_CITED.findall(line))]
    return out


def behind(line: str, notes: Sequence[Note]) -> Note | None:
    """The note a line rests on: of its source's notes, the one sharing most content words
    with it (two at least, or all of a short line's)."""
    words = set(content_tokens(CITES.sub(" ", line)))
    best, most = None, 0
    for x in notes:
        shared = len(words & set(content_tokens(f"{x.statement} {x.quote}")))
        if shared > most:
            best, most = x, shared
    return best if best is not None and most >= min(2, len(words)) else None
