"""A note cut into its facts, each worded as a line of its own: a reader's note is often a
paragraph ("Handed in my notice today. Daniel took it well. Last day is the 31st."), and
one line for all of it keeps one fact and loses the rest. A fact is a sentence, with the
sentence after it when that one leans on it: it opens with a word that points back ("He
sold Dad's tools…", "Sie sagt…") or is too short to say anything alone ("Never."). Pure."""

from __future__ import annotations

import re
from dataclasses import replace

from biomd.biographer import who
from biomd.biographer.answer_claims import sentences
from biomd.biographer.reading.standalone import FRAGMENT_WORDS, greeting, ungreeted
from biomd.fold import fold
from biomd.storage.notes import Note

MOST = 3  # facts of one note worded, the most telling first
SENTENCES = 2  # a fact holds at most this many
POINTING_BACK = {
    "en": "he she it they this that these those which who his her their its there then",
    "de": "er sie es das dies diese dieser dieses dann dort da sein seine ihr ihre",
    "es": "él ella ellos ellas eso esto esta este allí entonces su sus",
    "fr": "il elle ils elles ce cela ça c là alors son sa ses leur leurs",
    "pt": "ele ela eles elas isso isto esta este lá então seu sua dele dela",
}
"""First words, by language, of a sentence that leans on the one before it."""
_BACK = frozenset(fold(w) for words in POINTING_BACK.values() for w in words.split())
_WORD = re.compile(r"[^\W\d_]+")
_NUMBER = re.compile(r"\d+")


def weight(sentence: str) -> int:
    """The more names and numbers a sentence holds, the more it says (ranked first)."""
    return -len(who.NAME.findall(sentence)[1:]) - len(_NUMBER.findall(sentence))


def facts(statement: str) -> list[str]:
    """The statement's facts in their order: at most MOST, the ones with most names and
    numbers kept; a fact of short sentences only ("Alive! Sorry."), a question or a
    greeting is none, and a letter's greeting is taken off the sentence it opens."""
    groups: list[list[str]] = []
    for said in sentences(statement):
        sentence = ungreeted(said.strip())
        if not sentence or sentence.endswith("?") or greeting(said):
            continue  # a question asks, a greeting greets: neither tells
        if groups and len(groups[-1]) < SENTENCES and _leans(sentence):
            groups[-1].append(sentence)
        else:
            groups.append([sentence])
    found = [" ".join(g) for g in groups if any(not _short(s) for s in g)]
    ranked = sorted(range(len(found)), key=lambda i: weight(found[i]))[:MOST]
    return [found[i] for i in sorted(ranked)]


def of(note: Note) -> list[Note]:
    """The note as one note a fact (its quote, date and people as they are); the note
    itself when it holds one fact or none that stands."""
    found = facts(note.statement)
    if not found or found == [note.statement.strip()]:
        return [note]
    return [replace(note, statement=x) for x in found]


def _leans(sentence: str) -> bool:
    words = _WORD.findall(sentence)
    return _short(sentence) or (bool(words) and fold(words[0]) in _BACK)


def _short(sentence: str) -> bool:
    """Too short to say something alone, and without a name or a number to carry it."""
    if len(_WORD.findall(sentence)) >= FRAGMENT_WORDS:
        return False
    return not (_NUMBER.search(sentence) or who.NAME.findall(sentence)[1:])
