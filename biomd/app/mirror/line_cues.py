"""What the mirror's rules see in one of the owner's lines: its cues (a decision framed as
growth, a reassurance, a judgement for or against, a hurt, a plan, a plan undone), the people
it names, the things it is about, and its words of substance by their stems. Pure."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import cache

from biomd.app.mirror import cue_tables as t
from biomd.app.mirror.lines import Line
from biomd.biographer.cues import GENERIC, HURT, TIME_WORDS, Terms, words
from biomd.fold import fold
from biomd.retrieval.language import STOPWORDS, stem


@dataclass(frozen=True, slots=True)
class Cues:
    """The tables compiled for the owner's languages."""

    growth: Terms
    reassure: Terms
    positive: Terms
    negative: Terms
    hurt: Terms
    plan: Terms
    undone: Terms
    subject: Terms
    language: str = "en"  # whose stems say what a line is about
    any: Terms | None = None  # every cue above but the things: a line with none is passed by

    @classmethod
    def of(cls, languages: Iterable[str] = t.LANGUAGES) -> Cues:
        langs = tuple(dict.fromkeys((*languages, "en")))
        return cls(
            Terms.of(t.GROWTH, langs),
            Terms.of(t.REASSURE, langs),
            Terms.of(t.POSITIVE, langs),
            Terms.of(t.NEGATIVE, langs),
            HURT + Terms.of(t.HURT, langs),
            Terms.of(t.PLAN, langs),
            Terms.of(t.UNDONE, langs),
            Terms.of(t.SUBJECTS, langs),
            langs[0],
            Terms.of(t.GROWTH, langs)
            + Terms.of(t.REASSURE, langs)
            + Terms.of(t.POSITIVE, langs)
            + Terms.of(t.NEGATIVE, langs)
            + HURT
            + Terms.of(t.HURT, langs)
            + Terms.of(t.PLAN, langs)
            + Terms.of(t.UNDONE, langs),
        )


@dataclass(frozen=True, slots=True)
class Read:
    """A line as the rules see it: its cues, the people it names (by key), what it is about
    (names and things, folded) and its words of substance (by their first five letters)."""

    line: Line
    growth: bool
    reassure: bool
    polarity: int  # +1 for, -1 against, 0 neither or both
    hurt: bool
    plan: bool
    undone: bool
    names: frozenset[str]
    things: frozenset[str]  # names, capitals and the things of a life it names
    stems: frozenset[str]
    plan_stems: tuple[str, ...] = field(default=())  # the stems after the plan's cue, in order
    capitals: frozenset[str] = field(default=frozenset())  # capitalised words, folded
    folded: str = ""  # the line's words, folded, each between spaces (biographer.cues.words)


_CAPITAL = re.compile(r"(?<![\w'’])([A-ZÀ-ÖØ-Þ][\w'’-]+)")
_SENTENCE_START = re.compile(r"(?:^|[.!?:;…\n]\s*|⏎\s*)$")
_COMMON = frozenset().union(*STOPWORDS.values()) | TIME_WORDS | {"i", "i'm", "i've", "i'll"}
_SKIP = _COMMON | GENERIC | frozenset(w for ws in t.LIGHT.values() for w in ws)
_THINGS = frozenset(
    words(w.rstrip("*")).strip() for ws in t.SUBJECTS.values() for w in ws if " " not in w
) | {"weekends", "wochenenden"}


def read(line: Line, cues: Cues, people: Mapping[str, str], every: bool = False) -> Read | None:
    """A line's cues, names and subjects; `people` maps each known person's key to their
    name (a name is found as a whole word, whatever its case). None for a line with no cue
    at all (most of a long chat), unless `every`."""
    folded = words(line.text)
    if not every and cues.any is not None and not cues.any.within(folded):
        return None
    pos, neg = len(cues.positive.found(folded)), len(cues.negative.found(folded))
    names = frozenset(k for k in people if f" {k} " in folded)
    capitals = frozenset(_capitalised(line.text))
    things = capitals | frozenset(cues.subject.found(folded)) | names
    plans = cues.plan.found(folded)
    plan_stems: tuple[str, ...] = ()
    if plans:
        after = folded[folded.find(" " + plans[0]) + len(plans[0]) + 1 :]
        plan_stems = tuple(dict.fromkeys(_stems(after, cues.language)))
    return Read(
        line,
        growth=cues.growth.within(folded),
        reassure=cues.reassure.within(folded),
        polarity=(pos > neg) - (neg > pos),
        hurt=cues.hurt.within(folded),
        plan=bool(plans),
        undone=cues.undone.within(folded),
        names=names,
        things=things,
        stems=frozenset(_stems(folded, cues.language)),
        plan_stems=plan_stems,
        capitals=capitals,
        folded=folded,
    )


def _stems(folded: str, lang: str) -> list[str]:
    """Words of substance, by their stems in `lang`, in order: not common, not light, not
    of time (but "weekend", a thing of a life too)."""
    out = []
    for w in folded.split():
        if len(w) < 3 or w.isdigit() or (w in _SKIP and w not in _THINGS):
            continue
        root = _stem(w, lang)
        if root not in _SKIP or root in _THINGS:
            out.append(root)
    return out


@cache
def _stem(word: str, lang: str) -> str:
    return stem(word, lang)


def _capitalised(text: str) -> list[str]:
    """Names and named things: capitalised words not at a sentence's start and not common
    ("Lisbon", "Maya"), folded."""
    out = []
    for m in _CAPITAL.finditer(text):
        if _SENTENCE_START.search(text[: m.start()]):
            continue
        word = fold(m.group(1)).strip("'’-")
        if word not in _COMMON and len(word) >= 3:
            out.append(word)
    return out
