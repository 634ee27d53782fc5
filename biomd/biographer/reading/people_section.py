"""People & relationships kept by rules after each reading round: what each ready source
says of people is found once and kept (meta `people.<id>`), everyone worth a line gets one
(people.py), and the line written last is remembered (meta `people.line.<key>`) so that the
next round updates it in place and never undoes the owner's own edit."""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Sequence

from biomd.biographer.profile import Profile
from biomd.biographer.reading import people, wording
from biomd.errors import LLMError, ProfileEditError, SpendLimitReached
from biomd.models.llm import JsonModel
from biomd.storage.store import Store

log = logging.getLogger(__name__)
PAGE = 400  # chunks read at a time from a long source


class PeopleSection:
    def __init__(
        self,
        store: Store,
        profile: Profile,
        owner: Sequence[str],
        model: Callable[[], JsonModel] | None = None,
        language: str = "",
    ) -> None:
        self.store = store
        self.profile = profile
        self.owner = tuple(owner)
        self.model = model  # phrases each line; None: the rules' wording
        self.language = language

    async def update(self) -> str:
        """People & relationships brought up to date, as one revision; what changed, in a
        few words, or ''."""
        found: dict[int, people.Found] = {}
        for doc in await self.store.documents.all("ready"):
            found[doc.id] = await self._found(doc.id, (doc.content_start or "")[:4])
        persons = people.gather(await self.store.notes.of_ready(), found, self.owner)
        written = await self.store.meta.starting("people.line.")
        bio = before = await self.profile.load()
        lines: dict[str, str] = {}
        for p in persons:
            k = f"people.line.{people.person_key(p.name)}"
            new = people.line(p, self.owner, self.profile.language)
            if written.get(f"{k}.facts") == new:
                continue
            facts = new
            new = await self._phrased(p, new)
            try:
                bio = people.into(bio, new, written.get(k), p.name)
            except ProfileEditError:  # a bio.md without the section
                return ""
            lines[k] = new
            lines[f"{k}.facts"] = facts
        if bio == before:
            return ""
        await self.profile.replace(bio, turn_id=None, mode="reading", reason="people by rules")
        await self.store.meta.set(lines)
        return f"People & relationships: {len(lines) // 2} by rules"

    async def _phrased(self, p: people.Person, facts: str) -> str:
        """The person's line as the model phrases its facts, where the check passes; else
        the facts as rules wrote them. An outage leaves the rules' wording."""
        if self.model is None:
            return facts
        try:
            model = self.model()
            await model.check_budget()
            reply = await model.complete_json(
                people.phrasing(facts, self.owner, self.language),
                wording.SCHEMA,
                "wording",
                wording.REPLY_TOKENS,
                steady=True,
            )
        except (LLMError, SpendLimitReached) as exc:
            log.warning("people are worded by rules: %s", exc)
            self.model = None
            return facts
        said = wording.parsed(reply.text)
        return people.phrased(said, facts, p, self.owner, self.profile.language) or facts

    async def _found(self, doc: int, year: str) -> people.Found:
        """What one source says of people: found once, then kept."""
        key = f"people.{doc}"
        kept = await self.store.meta.get(key)
        if kept is not None:
            return people.Found.of_json(json.loads(kept))
        out = people.Found()
        at = 0
        while page := await self.store.chunks.spans_from(doc, at, PAGE):
            for _, _, text in page:
                more = people.found_in(text, self.owner, year)
                out.relations += [r for r in more.relations if r not in out.relations]
                out.places += [p for p in more.places if p not in out.places]
                for who, years in more.speaks.items():
                    have = out.speaks.setdefault(who, [])
                    have += [y for y in years if y not in have]
            at = page[-1][0] + 1
        await self.store.meta.set({key: json.dumps(out.as_json(), ensure_ascii=False)})
        return out
