"""Whether a sentence of a portrait rests on the bio.md lines it names: the lines exist,
and they say it (its content words, numbers and names are theirs). Pure functions; the
model's sentences that fail are refused back to it, as invented citations are."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from biomd.fold import fold

SENTENCES: dict[str, Any] = {
    "type": "array",
    "items": {
        "type": "object",
        "properties": {
            "text": {"type": "string"},
            "lines": {"type": "array", "items": {"type": "integer"}},
        },
        "required": ["text", "lines"],
        "additionalProperties": False,
    },
}
"""The JSON schema of sentences that each name the lines they rest on (L numbers)."""
_WORD = re.compile(r"\w+")
_NUMBER = re.compile(r"\d+")
_STEM = 5  # letters compared: "moved" and "moving", "potter" and "pottery"
_MINOR = {
    "about", "after", "again", "also", "always", "because", "been", "before", "being",
    "between", "both", "came", "come", "could", "does", "doing", "done", "each", "even",
    "ever", "every", "from", "have", "having", "here", "into", "just", "know", "like",
    "made", "make", "many", "more", "most", "much", "must", "never", "once", "only", "other",
    "over", "same", "should", "since", "some", "still", "such", "than", "that", "their",
    "them", "then", "there", "these", "they", "thing", "things", "this", "those", "through",
    "time", "very", "well", "were", "what", "when", "where", "which", "while", "with",
    "would", "your", "person", "people", "life", "someone", "tends", "often", "usually",
}  # fmt: skip


def content_stems(text: str) -> set[str]:
    """The words that carry meaning, cut to a common stem."""
    return {
        fold(w)[:_STEM]
        for w in _WORD.findall(text)
        if len(w) > 3 and not w.isdigit() and fold(w) not in _MINOR
    }


_NAME = re.compile(r"(?<![.!?:;]\s)(?<!^)(?<![\"“(])\b([A-ZÀ-ÖØ-ÞА-ЯЁ][\w'’-]+)")
_NOT_NAMES = {
    "she", "he", "they", "her", "his", "their", "it", "its", "the", "a", "an", "i", "my",
    "we", "our", "you", "your", "this", "that", "these", "those", "there", "and", "but",
}  # fmt: skip


def names_in(sentence: str) -> list[str]:
    """Capitalised words that are not a sentence's first word nor a pronoun: names."""
    return [
        m.group(1)
        for m in _NAME.finditer(sentence.strip())
        if m.group(1).casefold() not in _NOT_NAMES
    ]


def refusal(sentence: str, cited: Sequence[int], lines: Mapping[int, str]) -> str | None:
    """Why `sentence` does not rest on the lines it cites, or None when it does."""
    if not cited:
        return "it names no line"
    missing = [n for n in cited if n not in lines]
    if missing:
        return f"there is no line {', '.join(f'L{n}' for n in missing)}"
    said = " ".join(lines[n] for n in cited)
    numbers = set(_NUMBER.findall(sentence)) - set(_NUMBER.findall(said))
    if numbers:
        return f"the lines it names do not say {', '.join(sorted(numbers))}"
    stems, theirs = content_stems(sentence), content_stems(said)
    names = {fold(re.sub(r"['’]s$", "", w))[:_STEM] for w in names_in(sentence)}
    every = {fold(w)[:_STEM] for w in _WORD.findall(said)}  # "Ana" and "Tom" too
    invented = sorted(n for n in names - every if n not in _MINOR)
    if invented:
        return f"the lines it names do not mention {', '.join(invented)}"
    if stems and not stems & theirs:
        return "it shares no word of substance with the lines it names"
    return None
