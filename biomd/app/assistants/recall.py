"""What another assistant is shown of the owner, as text within a budget: `recall`, the
block sent before each of its model's calls (the bio.md lines and the passages that bear on
the message, each with its reference), and `portrait`, the short portrait for its system
prompt (Summary, Identity, and the patterns the owner confirmed). Pure: the search is
evidence_search's, the caller's."""

from __future__ import annotations

import re
from collections.abc import Sequence

from biomd.biographer import evidence
from biomd.biographer.profile_text import (
    KEYS,
    MIRROR_MARK,
    NOTHING_YET,
    bullets,
    citations,
    section,
)
from biomd.fold import fold
from biomd.retrieval.fts_query import content_tokens
from biomd.storage.notes import Note

RECALL_CHARS = 4000  # sent with every model call of the assistant: kept small
PORTRAIT_CHARS = 1500
BIO_SHARE = 0.4  # of recall's budget, at most, for bio.md's lines; the rest for passages
BIO_LINES = 8

HEAD = "From biomd, the owner's memory, kept from their own sources ([#12] cites source 12):"
BIO_HEAD = "What bio.md (the owner's cited profile) says that bears on it:"
PASSAGES_HEAD = (
    "Passages from the owner's own sources, best first, each headed by its source id, name "
    "and dates; in chats, each line gives its time and who wrote it:"
)
PORTRAIT_HEAD = (
    "The person you are working for, from their biomd profile (kept by their biographer "
    "from their own sources; [#12] cites source 12). Behaviour patterns are listed only "
    "where they confirmed them:"
)
_PLACEHOLDERS = {fold(t) for t in NOTHING_YET.values()}
_SKIPPED = ("questions",)  # what the biographer doesn't know is not a fact about the owner


def _stems(text: str) -> set[str]:
    """The content words of `text`, folded, each cut to its first five letters (marathon,
    marathons; moved, moving), so a line matches a question in another inflection."""
    return {fold(w)[:5] for w in content_tokens(text) if len(w) > 2 or w.isdigit()}


def _lines(bio: str) -> list[str]:
    """bio.md's items that say something about the owner, but open questions: each with its
    citations, as written."""
    out = []
    for key in KEYS:
        if key in _SKIPPED:
            continue
        body = section(bio, key).strip()
        items = bullets(body) or ([body] if key == "summary" and body else [])
        out += [x for x in items if fold(x.strip("_* ")) not in _PLACEHOLDERS]
    return out


def bio_lines(bio: str, message: str, found: set[int], budget: int) -> list[str]:
    """bio.md's lines that bear on `message`, best first, within `budget` characters: those
    sharing its words (the most first), then those citing a source search found for it."""
    asked = _stems(message)
    scored = []
    for i, line in enumerate(_lines(bio)):
        shared = len(asked & _stems(re.sub(r"\[[^\]]*\]", " ", line)))
        cites = bool(citations(line) & found)
        if shared or cites:
            scored.append((-shared, not cites, i, line))
    kept: list[str] = []
    used = 0
    for *_, line in sorted(scored)[: BIO_LINES * 2]:
        if len(kept) == BIO_LINES or used + len(line) + 3 > budget:
            continue
        kept.append(line)
        used += len(line) + 3
    return kept


def recall(
    bio: str,
    message: str,
    passages: Sequence[evidence.ShownPassage],
    notes: Sequence[Note],
    budget: int = RECALL_CHARS,
) -> str:
    """The block for `message`: bio.md's lines that bear on it, then the passages and notes
    search found, within `budget` characters; '' for a message that needs no sources ("thanks")
    or when nothing bears on it."""
    if not evidence.wants_sources(message):
        return ""
    found = {p.document_id for p in passages} | {n.document_id for n in notes}
    lines = bio_lines(bio, message, found, int(budget * BIO_SHARE))
    parts = [HEAD]
    if lines:
        parts.append(BIO_HEAD + "\n" + "\n".join(f"- {x}" for x in lines))
    room = budget - sum(len(p) + 2 for p in parts)
    while (passages or notes) and room > 300:
        block, _ = evidence.render(passages, notes, room, PASSAGES_HEAD)
        if sum(len(p) + 2 for p in parts) + len(block) <= budget:
            parts.append(block)
            break
        room = int(room * 0.8)  # escaping made it longer than counted: fewer passages
    if len(parts) == 1:
        return ""
    return _within("\n\n".join(parts), budget)


def portrait(bio: str, budget: int = PORTRAIT_CHARS) -> str:
    """Summary, Identity, and the patterns the owner confirmed from the mirror, within
    `budget` characters; '' while bio.md holds none of them."""
    parts = []
    for key, title in (("summary", "Summary"), ("identity", "Identity")):
        body = section(bio, key).strip()
        if body and fold(body.strip("_* ")) not in _PLACEHOLDERS:
            parts.append(f"{title}:\n{body}")
    confirmed = [x for x in bullets(section(bio, "patterns")) if MIRROR_MARK in x]
    if confirmed:
        parts.append("Patterns they confirmed:\n" + "\n".join(f"- {x}" for x in confirmed))
    if not parts:
        return ""
    return _within(PORTRAIT_HEAD + "\n\n" + "\n\n".join(parts), budget)


def _within(text: str, budget: int) -> str:
    """`text` cut to `budget` characters at a line's end (a line cut short ends in …)."""
    if len(text) <= budget:
        return text
    cut = text.rfind("\n", 0, budget - 1)
    if cut < budget // 2:
        return text[: budget - 1].rstrip() + "…"
    return text[:cut].rstrip() + "\n…"
