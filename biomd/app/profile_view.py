"""The profile as the owner sees it: bio.md's sections, each with the change that last made
it (never the skeleton's first writing), whether bio.md has anything in it yet, and, while it
has not, what fills it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from biomd.biographer.profile_text import NOTHING_YET, section, section_titles
from biomd.storage.revisions import Revision

if TYPE_CHECKING:
    from biomd.app.engine import Engine

_PLACEHOLDERS = {f"_{text}_" for text in NOTHING_YET.values()} | set(NOTHING_YET.values())


@dataclass(frozen=True, slots=True)
class SectionView:
    title: str
    body: str  # Markdown; "" while the section says only that nothing is known yet
    change: Revision | None  # the revision that last changed it; None for the skeleton's

    @property
    def changed_by(self) -> str:
        """Who made the last change, in words a person uses."""
        return changed_by(self.change.mode) if self.change else ""


CHANGED_BY = {
    "owner": "by you",
    "manual": "by you, by hand",
    "chat": "by the biographer, in a chat with you",
    "reading": "by the biographer, reading your sources",
    "ingest": "by the biographer, reading your sources",
    "consolidate": "by the biographer, tidying bio.md",
    "undo": "by an undo",
}


def changed_by(mode: str) -> str:
    return CHANGED_BY.get(mode, "by the biographer")


@dataclass(frozen=True, slots=True)
class ProfileView:
    sections: list[SectionView]
    filled_by: str  # what fills bio.md, while sections are empty and it can't fill them now;
    # "" once it can (a model is configured and nothing waits for it) or all are filled

    @property
    def empty(self) -> bool:
        return not any(s.body for s in self.sections)


def body_of(text: str) -> str:
    """A section's text, or "" if it only says that nothing is known yet."""
    return "" if text.strip() in _PLACEHOLDERS else text.strip()


def is_empty(bio: str) -> bool:
    """Whether bio.md says nothing yet (only its headings, and that nothing is known)."""
    return not any(body_of(section(bio, title)) for title in section_titles(bio))


async def view(engine: Engine) -> ProfileView:
    """bio.md by section, and what fills it while it is empty, or while sections are empty
    and sources wait or no model is there to read them."""
    bio = await engine.profile.load()
    changes = await engine.profile.section_changes()
    shown = []
    for title in section_titles(bio):
        change = changes.get(title)
        first = change is None or change.mode == "init"
        shown.append(SectionView(title, body_of(section(bio, title)), None if first else change))
    out = ProfileView(shown, "")
    if out.empty or await unfilled(engine, bio):
        return ProfileView(shown, await filled_by(engine))
    return out


async def unfilled(engine: Engine, bio: str) -> bool:
    """Whether bio.md has sections still empty that nothing fills now: no model reads the
    sources, or some wait to be read."""
    if all(body_of(section(bio, title)) for title in section_titles(bio)):
        return False
    return not engine.biographer.configured or bool(await engine.biographer.reading.pending())


async def filled_by(engine: Engine, no_model: str = "") -> str:
    """What fills an empty bio.md from here: sources to send, and a model to read them
    (`no_model`, or the settings to set, when there is none)."""
    biographer = engine.biographer
    sources = await engine.sources.stats()
    waiting = len(await biographer.reading.pending())
    reads = "The biographer (a language model) writes bio.md as it reads your sources"
    if not sources.documents:
        said = f"{reads}, and there are none yet: add chat exports, journals, e-mails, notes."
    elif waiting:
        said = f"{reads}; {_sources(waiting)} waiting for it."
    else:
        said = f"{reads}; it has read what there is and found nothing to write yet."
    if not biographer.configured:
        said += f" {no_model or biographer.missing}"
    return said


def _sources(n: int) -> str:
    return "1 source is" if n == 1 else f"{n:,} sources are"
