"""What the owner can choose for a share, as a front-end's form or options offer it: the
sections with their headings, the formats, and a ShareChoice made from what was picked."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from biomd.app.share.audiences import FORMATS, MIRROR, Audience, Format, ShareChoice
from biomd.biographer.profile_text import HEADINGS, KEYS
from biomd.errors import BiomdError

__all__ = ["FORMATS", "MIRROR_HEADING", "Format", "ShareChoice", "format_of", "picked", "sections"]

MIRROR_HEADING = "Patterns you confirmed in the mirror"


def sections(audience: Audience) -> list[tuple[str, str, bool]]:
    """Every section a portrait can hold, and the mirror's patterns the owner confirmed (in
    bio.md's Patterns, but in a share only when picked): key, heading, and whether
    `audience` gets it."""
    found = [(k, h, k in audience.sections) for k, h in zip(KEYS, HEADINGS["en"], strict=True)]
    return [*found, (MIRROR, MIRROR_HEADING, audience.mirror)]


def format_of(name: str | None) -> Format | None:
    """The format named (html, md or text); None for none; BiomdError for another."""
    if name is None:
        return None
    for fmt in FORMATS:
        if fmt == name.lower():
            return fmt
    raise BiomdError(f"The format is one of {', '.join(FORMATS)}.")


def picked(
    audience: Audience,
    chosen: Iterable[str],
    *,
    show: Sequence[str] = (),
    hide: Sequence[str] = (),
    quotes: Sequence[str] = (),
    limit: int | None = None,
    fmt: Format | None = None,
    low_confidence: bool = False,
    private: Sequence[int] = (),
) -> ShareChoice:
    """The ShareChoice that gives `audience` exactly the sections `chosen`, and the rest."""
    chosen = set(chosen)
    mirror = MIRROR in chosen
    return ShareChoice(
        add=tuple(k for k in KEYS if k in chosen and k not in audience.sections)
        + ((MIRROR,) if mirror and not audience.mirror else ()),
        drop=tuple(k for k in audience.sections if k not in chosen)
        + ((MIRROR,) if audience.mirror and not mirror else ()),
        show=tuple(show),
        hide=tuple(hide),
        quotes=tuple(quotes),
        limit=limit,
        format=fmt,
        low_confidence=low_confidence,
        private=tuple(private),
    )
