"""Drafting, scanning, saving and keeping portraits. A draft is made from bio.md only, for
an audience; saving writes the file and records it, and refuses while the scan has findings
the owner has not accepted. bio.md is never changed."""

from __future__ import annotations

import asyncio
import hashlib
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from biomd.app.assistants import privacy
from biomd.app.pictures.people import people_of, same_person
from biomd.app.share import card as share_card
from biomd.app.share.audiences import MIRROR, PRESETS, Audience, Format, ShareChoice, preset
from biomd.app.share.choices import MIRROR_HEADING, sections
from biomd.app.share.people import Names, Someone, choose
from biomd.app.share.portrait import Portrait, lines_of, tidy, years_of
from biomd.app.share.render import to_html, to_markdown, to_text
from biomd.app.share.scan import PrivacyFlag, redact, scan, windows
from biomd.app.share.writer import write
from biomd.biographer.backend import Backend
from biomd.biographer.profile import Profile
from biomd.biographer.profile_text import MIRROR_MARK, owner_in
from biomd.endpoints import Endpoint
from biomd.errors import BiomdError, NotFound
from biomd.fold import fold
from biomd.plural import counted
from biomd.retrieval.language import STOPWORDS, content_words
from biomd.settings.groups import OwnerSettings
from biomd.storage.database import ensure_private_dir
from biomd.storage.shares import NewShare, ShareRecord
from biomd.storage.store import Store

EXTENSIONS: dict[str, str] = {"html": "html", "md": "md", "text": "txt"}
AUDIENCE_NAME = re.compile(r"[a-z0-9][a-z0-9-]{0,29}")


def card_path(file: Path) -> Path:
    """Where a share's card goes: beside its file, named after it ("…-card.png")."""
    return file.with_name(file.stem + "-card.png")


LANGUAGES = tuple(STOPWORDS)  # a run's common words, in any language biomd knows
DISTINCT = 4  # content words a run of words needs before it is looked up in the sources


class UnresolvedFindings(BiomdError):
    """The scan found private things the owner has not accepted. `found` says what, and a
    front-end adds how to resolve them there (its own flags, commands or buttons)."""

    def __init__(self, findings: list[PrivacyFlag]) -> None:
        self.findings = findings
        findings = list({f.key: f for f in findings}.values())
        listed = "; ".join(f"{f.kind}: {f.text}" for f in findings[:8])
        more = f" and {len(findings) - 8} more" if len(findings) > 8 else ""
        self.found = (
            f"Nothing was saved: the privacy scan found {counted(len(findings), 'thing')} to "
            f"look at ({listed}{more})."
        )
        super().__init__(
            f"{self.found} Remove them or accept them, or hide those people or leave their "
            "sections out."
        )


class NothingToShare(BiomdError):
    """bio.md has nothing yet for this audience: nothing is saved."""


@dataclass
class Draft:
    """A portrait before it is saved, with what the scan found in it."""

    audience: Audience
    portrait: Portrait
    people: list[Someone]
    findings: list[PrivacyFlag]
    names: Names = field(repr=False)
    support: list[dict[str, object]] = field(default_factory=list)
    writer: str = "rules"
    owner: tuple[str, ...] = ()  # the owner's names: never hidden as someone else
    owner_note: str = ""  # where they came from, when not from BIOMD_OWNER_NAMES
    nothing: str = ""  # why there is nothing to share yet; "" when there is something
    private: list[str] = field(default_factory=list)  # bio.md's lines resting only on
    # private sources, numbered from 1 as the owner picks them
    picked: tuple[int, ...] = ()  # those the owner put in
    held_back: int = 0  # the mirror's patterns the owner confirmed, left out (not picked)

    @property
    def left_out(self) -> list[tuple[int, str]]:
        """The private lines not picked, with the number that picks them."""
        return [(n, x) for n, x in enumerate(self.private, 1) if n not in self.picked]

    def render(self, made: str) -> str:
        return render(self.portrait, self.audience.format, made)

    @property
    def mirror_note(self) -> str:
        """Why the patterns the owner confirmed in the mirror are not in it, if they aren't."""
        return held_back_note(self.held_back)

    @property
    def to_resolve(self) -> list[PrivacyFlag]:
        """The findings, each kind and text once (an e-mail in two places is one decision)."""
        return list({f.key: f for f in self.findings}.values())


def render(portrait: Portrait, fmt: Format, made: str) -> str:
    if fmt == "html":
        return to_html(portrait, made)
    if fmt == "md":
        return to_markdown(portrait, made)
    return to_text(portrait)


class Shares:
    def __init__(
        self,
        owner: OwnerSettings,
        reader: Endpoint,
        folder: Path,
        store: Store,
        profile: Profile,
        backend: Backend,
    ) -> None:
        """The model writes portraits as the reader (`reader`); saved shares go in `folder`."""
        self.owner = owner
        self.reader = reader
        self.folder = folder
        self.store = store
        self.profile = profile
        self.backend = backend

    # -- audiences ------------------------------------------------------------------------

    async def audiences(self) -> dict[str, Audience]:
        """The presets, with the owner's own audiences over them."""
        saved = {n: Audience.from_json(s) for n, s in (await self.store.shares.audiences()).items()}
        return {**PRESETS, **saved}

    async def save_audience(self, name: str, audience: Audience) -> None:
        """Keep the owner's choices under a name of lower-case letters, digits and dashes."""
        if not AUDIENCE_NAME.fullmatch(name):
            raise BiomdError(
                f"'{name}' can't name an audience: use lower-case letters, digits and dashes "
                "(up to 30), e.g. my-therapist."
            )
        await self.store.shares.save_audience(name, audience.changed(name=name).to_json())

    # -- drafting ---------------------------------------------------------------------------

    async def draft(
        self, audience_name: str, choice: ShareChoice | None = None, *, model: bool = False
    ) -> Draft:
        """A portrait of bio.md for this audience, scanned: by rules, or written by the
        model from the rules' portrait (`model`), each sentence checked against bio.md."""
        choice = choice or ShareChoice()
        audience = choice.apply(preset(audience_name, await self.audiences()))
        whole, hidden = await self.profile.load(), await self.store.documents.private_ids()
        private = privacy.resting_on_private(whole, hidden)
        picked = tuple(n for n in choice.private if 1 <= n <= len(private))
        bio = privacy.leave_out(whole, hidden, [private[n - 1] for n in picked])
        speakers = await self._speakers()
        owner = self.owner.names or owner_in(bio, speakers)
        everyone = self._people(bio, speakers, owner)
        people = choose(everyone, audience.people, audience.show, audience.hide)
        names = Names(people, owner, audience.hide)
        portrait = tidy(
            bio, audience, names, await self._years(), self.profile.language, _title(owner)
        )
        support: list[dict[str, object]] = [
            {"text": i.text, "lines": list(i.lines)} for i in portrait.items
        ]
        writer = "rules"
        if model and portrait.parts:
            written = await write(self.backend.reader(), portrait)
            portrait, support = written.portrait, written.support
            writer = self.reader.model
        findings = await self.scan(portrait, names)
        draft = Draft(audience, portrait, people, findings, names, support, writer, owner)
        draft.owner_note = "" if self.owner.names else _owner_note(owner, people)
        draft.held_back = _held_back(bio, audience)
        draft.nothing = "" if portrait.parts else self._nothing(bio, audience, draft.held_back)
        draft.private, draft.picked = private, picked
        if draft.nothing and draft.left_out:
            draft.nothing = (
                f"There is nothing to share yet: what bio.md has for {audience.title} rests "
                "only on sources you keep private. Pick the lines to put in."
            )
        return draft

    async def _speakers(self) -> list[str]:
        """Everyone who writes in the corpus, by name (an address after it left off)."""
        rows = await self.store.activity.speakers_by_year()
        names = (row.speaker.split("<")[0].strip() or row.speaker for row in rows)
        return list(dict.fromkeys(names))

    @staticmethod
    def _people(bio: str, speakers: list[str], owner: tuple[str, ...]) -> list[tuple[str, str]]:
        """(name, what bio.md says of them) of bio.md's people and every speaker in the
        corpus who is not the owner."""
        owners = {fold(o).strip() for o in owner}
        found = [(p.name, p.about) for p in people_of(bio)]
        for name in speakers:
            if fold(name) in owners:
                continue
            if not any(same_person(name, n) for n, _ in found):
                found.append((name, ""))
        # Only the owner's own names are left out: "Maria Costa" is someone else even when
        # the owner is Maria Silva (Names reports the "Maria" they share as ambiguous).
        return [(n, a) for n, a in found if fold(n).strip() not in owners]

    def _nothing(self, bio: str, audience: Audience, held_back: int) -> str:
        """Why a portrait for `audience` is empty: bio.md knows nothing yet (and what fills
        it), nothing but what the owner confirmed in the mirror and did not pick, or nothing
        in the sections this audience gets."""
        known = [
            ln for ln in lines_of(bio) if not (ln.text.startswith("_") and ln.text.endswith("_"))
        ]
        if not known:
            how = (
                "It fills in as the biographer reads your sources."
                if self.backend.configured
                else "The biographer (a language model) writes it as it reads your sources, "
                "and none is configured yet: `biomd setup` connects one."
            )
            return (
                "There is nothing to share yet: bio.md is still empty. "
                f"{how} Add sources with `biomd ingest FILE`, or send them to the bot."
            )
        if held_back:
            return f"There is nothing else to share yet. {held_back_note(held_back)}"
        gets = ", ".join(h for k, h, on in sections(audience) if on and k != MIRROR)
        return (
            f"There is nothing to share yet with the audience '{audience.name}': bio.md has "
            f"nothing in the sections it gets ({gets}). Put more sections in, or choose "
            "another audience."
        )

    async def scan(self, portrait: Portrait, names: Names) -> list[PrivacyFlag]:
        """The privacy scan, and runs of words copied from the sources."""
        found = scan(portrait, names)
        for p, part in enumerate(portrait.parts):
            for i, item in enumerate(part.items):
                for run in windows(item.text):
                    if any(q and run in q for q in portrait.audience.quotes):
                        continue
                    if len(set(content_words(run, LANGUAGES))) < DISTINCT:
                        continue  # common words only: anyone's phrase, and slow to look up
                    if (await self.store.keywords.match(f'"{run}"', 1, 1, True)).rows:
                        at = item.text.find(run.split()[0])
                        found.append(PrivacyFlag("source text", run, p, i, max(at, 0), max(at, 0)))
                        break
        return found

    async def _years(self) -> dict[int, tuple[int, int]]:
        out = {}
        for doc in await self.store.documents.all("ready"):
            span = years_of(doc.content_start, doc.content_end) or years_of(doc.added_at, None)
            if span:
                out[doc.id] = span
        return out

    # -- saving and keeping ---------------------------------------------------------------

    async def save(
        self,
        draft: Draft,
        out: Path,
        *,
        accept: bool = False,
        remove: bool = False,
        decisions: Mapping[str, str] | None = None,
        card: bool = False,
    ) -> ShareRecord:
        """Write the file and record it. Each finding of the scan is removed (`remove`, or
        "remove" in `decisions` by its key) or accepted (`accept`, or "accept"); while one
        is neither, nothing is written."""
        if draft.nothing:
            raise NothingToShare(f"Nothing was saved. {draft.nothing}")
        decided = decisions or {}
        gone = [f for f in draft.findings if remove or decided.get(f.key) == "remove"]
        kept = [f for f in draft.findings if f not in gone]
        portrait = redact(draft.portrait, gone) if gone else draft.portrait
        if gone:  # what the removal left, looked at again (names, e-mails, phones …)
            kept = [f for f in kept if f.kind == "source text"] + scan(portrait, draft.names)
        open_ = [f for f in kept if not (accept or decided.get(f.key) == "accept")]
        if open_:
            raise UnresolvedFindings(open_)
        accepted = list(dict.fromkeys(f.key for f in kept))
        content = render(portrait, draft.audience.format, self.today()).encode("utf-8")
        png = await asyncio.to_thread(share_card.render, portrait) if card else None
        out = await asyncio.to_thread(_write_private, out, content)
        if png is not None:
            await asyncio.to_thread(_write_private, card_path(out), png)
        share_id = await self.store.shares.add(
            NewShare(
                audience=draft.audience.name,
                format=draft.audience.format,
                sections=[p.key for p in portrait.parts],
                shown=[p.name for p in draft.people if p.shown == "name"],
                path=str(out),
                sha256=hashlib.sha256(content).hexdigest(),
                writer=draft.writer,
                accepted=accepted,
                support=draft.support,
                content=content,
                card=png,
            )
        )
        record = await self.store.shares.get(share_id)
        assert record is not None
        return record

    def today(self) -> str:
        """The day a share is written, as its file says it."""
        return datetime.now(self.owner.zone).strftime("%Y-%m-%d")

    def default_path(self, audience: Audience) -> Path:
        """A new file under the data dir's shares/: the day and the audience, numbered when
        that name is taken (a second share the same day keeps the first)."""
        day = datetime.now(self.owner.zone).strftime("%Y-%m-%d")
        folder = self.folder
        label = re.sub(r"[^a-z0-9-]", "-", audience.name.lower())[:30] or "share"
        ext = EXTENSIONS[audience.format]
        path, n = folder / f"{day}-{label}.{ext}", 2
        while path.exists():
            path, n = folder / f"{day}-{label}-{n}.{ext}", n + 1
        return path

    async def all(self) -> list[ShareRecord]:
        return await self.store.shares.all()

    async def content(self, share_id: int) -> tuple[ShareRecord, bytes]:
        record = await self.store.shares.get(share_id)
        content = await self.store.shares.content(share_id)
        if record is None or content is None:
            raise NotFound(f"There is no share #{share_id}.")
        return record, content

    async def card(self, share_id: int) -> bytes:
        """A share's PNG card; NotFound when it has none."""
        png = await self.store.shares.card(share_id)
        if png is None:
            raise NotFound(f"Share #{share_id} has no card.")
        return png

    async def delete(self, share_id: int, *, file: bool = True) -> ShareRecord:
        """Forget a share, and delete its file if it is still the one saved."""
        record, _ = await self.content(share_id)
        path = Path(record.path)
        if file and await asyncio.to_thread(_same_file, path, record.sha256):
            await asyncio.to_thread(path.unlink)
            if record.has_card:
                await asyncio.to_thread(card_path(path).unlink, missing_ok=True)
        await self.store.shares.delete(share_id)
        return record


def held_back_note(count: int) -> str:
    """What the owner reads when the patterns they confirmed in the mirror are left out."""
    if not count:
        return ""
    some = counted(count, "pattern")
    return (
        f"{some} you confirmed in the mirror {'is' if count == 1 else 'are'} left out: the "
        f"mirror goes into a share only when you pick it (\u201c{MIRROR_HEADING}\u201d, or "
        "`--with mirror` in the terminal)."
    )


def _held_back(bio: str, audience: Audience) -> int:
    """The lines the mirror put in bio.md, in sections `audience` gets, when it doesn't
    get the mirror."""
    if audience.mirror:
        return 0
    return sum(1 for x in lines_of(bio) if MIRROR_MARK in x.text and x.key in audience.sections)


def _title(owner: tuple[str, ...]) -> str:
    return owner[0] if owner else "A portrait"


def _owner_note(owner: tuple[str, ...], people: list[Someone]) -> str:
    """Who the owner is taken to be, when BIOMD_OWNER_NAMES is empty; or that no one is."""
    if owner:
        return (
            f"You are {owner[0]} here, as bio.md names you (BIOMD_OWNER_NAMES, set by "
            "`biomd setup`, says it for sure)."
        )
    if not people:
        return ""
    return (
        "Which of these people is you? bio.md doesn't give your name and BIOMD_OWNER_NAMES is "
        "empty, so you are hidden like anyone else: show yourself by name, or set "
        "BIOMD_OWNER_NAMES (`biomd setup` asks for it)."
    )


def _write_private(path: Path, content: bytes) -> Path:
    """Write the file whole or not at all, readable by the owner only (and a folder made
    for it, such as the data dir's shares/); its full path."""
    if not path.parent.is_dir():
        ensure_private_dir(path.parent)
    tmp = path.with_name(path.name + ".part")
    tmp.write_bytes(content)
    tmp.chmod(0o600)
    tmp.replace(path)
    return path.resolve()


def _same_file(path: Path, sha256: str) -> bool:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest() == sha256
    except OSError:
        return False
