"""What a chat turn starts from: before the model's first call, biomd searches the owner's
sources for the message itself and puts the best passages (with the messages around them)
and the reader's notes in the turn's request, with source ids, dates and speakers, within a
budget. A model that never calls a tool still answers from the sources; a stronger one can
research further. A message that needs no sources ("hello", "thanks") gets no search.
Pure functions: the search itself is the toolbox's."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date

from biomd.biographer import data
from biomd.biographer.reading.briefing import line as note_line
from biomd.retrieval.fts_query import content_tokens
from biomd.retrieval.relative import resolve_lines
from biomd.storage.notes import Note

SOCIAL = frozenset(
    """hi hello hey hiya yo morning evening night good thanks thank you thx ty cheers ok okay
    k cool great nice bye goodbye see later ciao hola gracias adios buenas hallo danke tschüss
    moin salut merci bonjour bonsoir olá ola obrigado obrigada tchau grazie buongiorno привет
    спасибо пока lol ha haha hah hehe yes no yeah nope sure perfect awesome wow much very so
    a the you there all everyone""".split()
)
"""Words of a message that is only social: greetings, thanks, assent (a few languages)."""

HEAD = (
    "Passages biomd found in the owner's sources for the message below, best first, with "
    "the messages around them and the reader's notes, each with its source id. Relative "
    "times in them are followed by the date they name."
)
NOTHING = "biomd searched the owner's sources for the message below and found nothing for it."
QUESTION = "The owner's question:"  # "The owner's message:" was echoed back by a 1.5B model
MESSAGE = "The owner says:"
FOLLOW_UP_WORDS = 3  # a message with fewer content words is searched with the one before


def wants_sources(message: str) -> bool:
    """Whether a message could be answered from the sources: it has words that are not all
    social ones ("thanks!", "hello") and not all common ones."""
    words = re.findall(r"\w+", message.casefold())
    if not words or all(w in SOCIAL for w in words):
        return False
    return bool(content_tokens(message))


QUESTION_WORDS = frozenset(
    """who whom whose what when where why how which do does did is are was were can could
    have has had will would should am wer was wann wo warum wie welche qui que quoi quand où
    pourquoi comment quel quelle quién qué cuándo dónde por cómo cuál quem quando onde como
    qual chi cosa quando dove perché come quale""".split()
)


def is_question(message: str) -> bool:
    """Whether a message asks (a question mark, or a question word first) rather than tells
    ("I moved to Porto in July", "add that to my open questions")."""
    text = message.strip()
    if "?" in text[-3:] or text.startswith("¿"):
        return True
    first = re.findall(r"\w+", text.casefold())[:1]
    return bool(first) and first[0] in QUESTION_WORDS


@dataclass(frozen=True, slots=True)
class ShownPassage:
    """A search hit as the turn shows it."""

    document_id: int
    name: str
    dates: str  # "2023-05-01 to 2023-06-30", "2023-05-07", or ""
    day: date | None  # the source's one day, for resolving relative times outside a chat
    text: str  # the passage with its neighbours


def render(
    passages: Sequence[ShownPassage], notes: Sequence[Note], budget: int, head: str = HEAD
) -> tuple[str, set[int]]:
    """The evidence block under `head`, best first, within `budget` characters (NOTHING if
    there is none), and the sources it shows."""
    if not passages and not notes:
        return NOTHING, set()
    shown: set[int] = set()
    blocks: list[str] = []
    lines_shown: set[tuple[int, str]] = set()
    used = len(head) + 64
    for p in passages:
        text = _new_lines(p, lines_shown)
        if not text:
            continue  # all of it is in a passage shown already
        when = f", {p.dates}" if p.dates else ""
        block = f"[#{p.document_id} {p.name!r}{when}]\n{resolve_lines(text, p.day)}"
        if used + len(block) > budget:
            if blocks:
                continue  # a shorter one may still fit
            block = block[: max(200, budget - used)] + " …"
        blocks.append(block)
        lines_shown.update((p.document_id, x.strip()) for x in text.splitlines() if x.strip())
        shown.add(p.document_id)
        used += len(block) + 2
    lines = []
    for n in notes:
        text = note_line(n)
        if used + len(text) > budget:
            break
        lines.append(text)
        shown.add(n.document_id)
        used += len(text) + 1
    if lines:
        blocks.append("Notes the reader took:\n" + "\n".join(lines))
    body = "\n\n".join(blocks)
    return f"{head}\n{data.wrap(body)}", shown


def _new_lines(p: ShownPassage, shown: set[tuple[int, str]]) -> str:
    """The passage without the lines of its source already shown (two hits in one chat
    often share their neighbours); '' when nothing new is left."""
    lines = p.text.strip().splitlines()
    kept = [x for x in lines if not x.strip() or (p.document_id, x.strip()) not in shown]
    return "\n".join(kept).strip() if any(x.strip() for x in kept) else ""


def query(message: str, before: str = "") -> str:
    """What to search for: the message, with the owner's message before it when it is a
    short follow-up ("where was that again?")."""
    if before and len(content_tokens(message)) < FOLLOW_UP_WORDS:
        return f"{before} {message}"
    return message


def with_evidence(message: str, evidence: str, asks: bool = True) -> str:
    """The turn's request: what biomd found for the message, then the message itself, last,
    where a small model attends most (asked before the passages, a 1.5B model answered
    from bio.md's first lines whatever the question)."""
    head = QUESTION if asks else MESSAGE
    return f"{evidence}\n\n{head}\n{message}" if evidence else message
