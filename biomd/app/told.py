"""What each chat has been told in this session: why the biographer can't run, and which
settings to set, is said in full the first time a chat hears it (an answer, a command, a
file's report), then in one line."""

from __future__ import annotations

from typing import TYPE_CHECKING

from biomd.app.replies import NO_MODEL_AGAIN

if TYPE_CHECKING:
    from biomd.biographer.biographer import Biographer


class Told:
    def __init__(self, biographer: Biographer) -> None:
        self._biographer = biographer
        self._heard: set[tuple[str, str]] = set()

    def heard(self, platform: str, chat: str) -> bool:
        """Whether this chat has been told in full already."""
        return (platform, chat) in self._heard

    def no_model(self, platform: str, chat: str) -> str:
        """Why the biographer can't run: in full the first time this chat hears it, then
        in a line."""
        said = NO_MODEL_AGAIN if self.heard(platform, chat) else self._biographer.missing
        self._heard.add((platform, chat))
        return said
