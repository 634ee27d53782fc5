"""The pictures' data, gathered from bio.md and the store for whoever draws them."""

from __future__ import annotations

from biomd.app.pictures import people as people_picture
from biomd.app.pictures import timeline as timeline_picture
from biomd.biographer.profile import Profile
from biomd.storage.store import Store


class Pictures:
    def __init__(self, owner_names: tuple[str, ...], store: Store, profile: Profile) -> None:
        self.owner_names = owner_names
        self.store = store
        self.profile = profile

    async def timeline(self) -> timeline_picture.Timeline:
        """bio.md's Timeline events, each source's dates, and the dated messages per month."""
        return await timeline_picture.gather(self.store, await self.profile.load())

    async def people(self) -> list[people_picture.Person]:
        """bio.md's people and the corpus's speakers, most present first."""
        bio = await self.profile.load()
        return await people_picture.gather(self.store, bio, self.owner_names)

    async def person(self, name: str) -> people_picture.Person | None:
        """Someone by name: from bio.md's People or the corpus's speakers, else from the
        passages that name them; None if no source names them."""
        person = next(
            (p for p in await self.people() if people_picture.same_person(p.name, name)), None
        )
        if person is not None:
            return person
        years = await people_picture.mentions_by_year(self.store, name)
        return people_picture.Person(name, by_year=years) if years else None
