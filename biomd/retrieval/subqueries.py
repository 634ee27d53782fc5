"""A question about two things ("at Ana's wedding and at the Porto marathon") searched as
its parts too, so that each part's best passage has a place in the first five. Pure
functions: splitting, and placing each part's best without pushing out a passage that holds
the question's exact words."""

from __future__ import annotations

import re
from collections.abc import Sequence

from biomd.retrieval.language import STOPWORDS

TOP = 5  # the places each part is guaranteed one of
_SPLIT = re.compile(r"\s*(?:[,;]|\band\b|\bor\b|\bas well as\b|\bplus\b)\s+", re.I)
_WORD = re.compile(r"[^\W\d_]{3,}")
_QUOTED = re.compile(r"[\"“„«]([^\"“”„«»]{3,}?)[\"”»]")
_ASKING = {"what", "when", "where", "who", "whom", "which", "why", "how", "did", "does",
           "do", "was", "were", "has", "have", "had", "is", "are", "can", "could", "would",
           "should", "tell", "about", "kind", "things", "thing"}  # fmt: skip


def _substance(piece: str) -> bool:
    """Whether a piece of a question says what it is about (a word that is not a name, a
    question word or a common word)."""
    common = STOPWORDS.get("en", frozenset())
    return any(w.islower() and w not in common and w not in _ASKING for w in _WORD.findall(piece))


_OPENS = re.compile(
    r"^(?:at|in|on|during|about|for|from|with|to|after|before|what|when|where|who|which|how)\b",
    re.I,
)


def parts(question: str) -> list[str]:
    """The parts of a question about more than one thing ("… at Ana's wedding and at the
    Porto marathon"); [] when it is about one. A part after the first must open as a place,
    time or question of its own (a preposition or a question word), so "Mel and her
    husband" and "black and white" stay whole."""
    pieces = [p.strip(" ?.!") for p in _SPLIT.split(question)]
    pieces = [p for p in pieces if p]
    if len(pieces) < 2 or not all(_substance(p) for p in pieces):
        return []
    if not all(_OPENS.match(p) for p in pieces[1:]):
        return []
    return pieces


def phrases(question: str) -> list[str]:
    """What a passage must hold word for word to be an exact-phrase hit: the quoted words,
    else the whole question (of three words or more), lower case."""
    quoted = [q.strip().casefold() for q in _QUOTED.findall(question)]
    if quoted:
        return quoted
    whole = " ".join(re.findall(r"\w+", question.casefold()))
    return [whole] if len(whole.split()) >= 3 else []


def place(
    ranked: Sequence[int],
    part_bests: Sequence[Sequence[int]],
    exact: set[int],
    top: int = TOP,
) -> list[int]:
    """`ranked` with each part's best (the first of its list) among the first `top`: when it
    is not there, it takes the lowest of those places that holds neither an exact-phrase hit
    (`exact`) nor another part's best, and what it displaces comes right after them."""
    ranked = list(dict.fromkeys(ranked))
    head, tail = ranked[:top], ranked[top:]
    placed: set[int] = set()
    displaced: list[int] = []
    for best in part_bests:
        if not best:
            continue
        if best[0] in head:
            placed.add(best[0])
            continue
        free = [i for i in range(len(head) - 1, -1, -1) if head[i] not in exact | placed]
        if not free:
            continue
        displaced.append(head[free[0]])
        head[free[0]] = best[0]
        placed.add(best[0])
        if best[0] in tail:
            tail.remove(best[0])
    return head + displaced + tail
