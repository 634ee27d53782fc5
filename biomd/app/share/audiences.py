"""Who a portrait is for: which sections of bio.md go in, how much of each, in what tone,
and how other people are shown. The presets, and the owner's changes to them."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, replace
from typing import Any, Literal

from biomd.biographer.profile_text import KEYS
from biomd.errors import BiomdError

Shown = Literal["role", "initial", "name"]
Format = Literal["html", "md", "text"]
FORMATS: tuple[Format, ...] = ("html", "md", "text")
SHAREABLE = ("summary", "identity", "timeline", "people", "patterns", "inferences")
PRIVATE = ("hypotheses", "questions")  # left out unless chosen
MIRROR = "mirror"  # `--with mirror`: the mirror's confirmed patterns, only when picked (or "me")


@dataclass(frozen=True)
class Audience:
    """A preset, or the owner's version of one."""

    name: str
    title: str  # who it is for, as the owner reads it
    sections: tuple[str, ...]  # section keys, in the order they appear
    tone: str  # how the model writes it
    depth: int | None = None  # most items per section; None: all
    limit: int | None = None  # characters of the whole (the assistant preset)
    people: Shown = "role"  # how other people appear by default
    low_confidence: bool = False  # inferences marked (confidence: low)
    sources_note: bool = True  # "from 3 sources, 2016–2024" after each item
    format: Format = "html"
    show: tuple[str, ...] = ()  # people shown by name all the same
    hide: tuple[str, ...] = ()  # more names to hide (beyond bio.md's people and speakers)
    quotes: tuple[str, ...] = ()  # quotes from bio.md the owner picked to keep
    mirror: bool = False  # the mirror's patterns the owner confirmed (only when picked)

    def to_json(self) -> str:
        return json.dumps(asdict(self), ensure_ascii=False)

    @classmethod
    def from_json(cls, text: str) -> Audience:
        data: dict[str, Any] = json.loads(text)
        for key in ("sections", "show", "hide", "quotes"):
            data[key] = tuple(data.get(key, ()))
        return cls(**data)

    def changed(self, **changes: Any) -> Audience:
        return replace(self, **changes)


PRESETS: dict[str, Audience] = {
    a.name: a
    for a in (
        Audience(
            "close",
            "someone close",
            ("summary", "identity", "timeline", "people", "patterns", "inferences"),
            "warm and plain, as a friend who knows them well would tell it",
        ),
        Audience(
            "therapist",
            "a therapist or counsellor",
            ("summary", "identity", "timeline", "people", "patterns", "inferences"),
            "factual and calm, attentive to relationships, turning points and recurring "
            "patterns, without judgement or diagnosis",
        ),
        Audience(
            "work",
            "a colleague or manager",
            ("summary", "identity", "patterns"),
            "professional and brief: how they work best, what they are good at, what to know",
            depth=8,
            people="initial",
        ),
        Audience(
            "assistant",
            "an assistant's 'what should I know about you' box",
            ("summary", "identity", "people", "patterns"),
            "compact and factual, in short statements an assistant can act on",
            depth=6,
            limit=1500,
            sources_note=False,
            format="text",
        ),
        Audience(
            "me",
            "yourself: all of bio.md, to keep or print",
            KEYS,  # every section, hypotheses and open questions too
            "faithful to bio.md, complete",
            people="name",
            low_confidence=True,
            mirror=True,  # the whole: what the owner confirmed in the mirror too
        ),
    )
}


class UnknownAudience(BiomdError):
    pass


def preset(name: str, saved: dict[str, Audience] | None = None) -> Audience:
    """The owner's saved audience of that name, else the preset; a clear error otherwise."""
    found = (saved or {}).get(name) or PRESETS.get(name)
    if found is None:
        known = ", ".join(dict.fromkeys([*PRESETS, *(saved or {})]))
        raise UnknownAudience(f"There is no audience '{name}'. Choose one of: {known}.")
    return found


@dataclass(frozen=True)
class ShareChoice:
    """What the owner changed for this one share."""

    add: tuple[str, ...] = ()  # sections to put in
    drop: tuple[str, ...] = ()  # sections to leave out
    show: tuple[str, ...] = ()
    hide: tuple[str, ...] = ()
    quotes: tuple[str, ...] = ()
    limit: int | None = None
    format: Format | None = None
    low_confidence: bool | None = None
    private: tuple[int, ...] = ()  # lines resting only on private sources, picked (1-based)

    def apply(self, audience: Audience) -> Audience:
        unknown = [s for s in (*self.add, *self.drop) if s not in KEYS and s != MIRROR]
        if unknown:
            raise UnknownAudience(
                f"There is no section '{unknown[0]}'. Sections: {', '.join(KEYS)}, and "
                f"{MIRROR} (the mirror's patterns you confirmed)."
            )
        sections = [s for s in audience.sections if s not in self.drop]
        sections += [s for s in self.add if s not in sections and s != MIRROR]
        mirror = MIRROR in self.add or (audience.mirror and MIRROR not in self.drop)
        return audience.changed(
            sections=tuple(sections),
            mirror=mirror,
            show=tuple(dict.fromkeys([*audience.show, *self.show])),
            hide=tuple(dict.fromkeys([*audience.hide, *self.hide])),
            quotes=tuple(dict.fromkeys([*audience.quotes, *self.quotes])),
            limit=self.limit if self.limit is not None else audience.limit,
            format=self.format or audience.format,
            low_confidence=(
                audience.low_confidence if self.low_confidence is None else self.low_confidence
            ),
        )
