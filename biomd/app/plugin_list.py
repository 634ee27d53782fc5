"""What `biomd plugins` shows: each plugin, where it comes from, and what it registered in
this process (every registry is filled first, so that nothing is missing)."""

from __future__ import annotations

from dataclasses import dataclass

from biomd import plugins
from biomd.biographer.backend import backends
from biomd.ingest.convert import registry


@dataclass(frozen=True)
class Listed:
    name: str
    version: str
    builtin: bool
    registered: dict[str, list[str]]
    error: str

    @property
    def summary(self) -> str:
        """What it registered, one kind after another ("converters: signal; commands: ...")."""
        said = "; ".join(f"{kind}: {', '.join(names)}" for kind, names in self.registered.items())
        if self.error:
            said = f"{said}; failed: {self.error}" if said else f"failed: {self.error}"
        return said or "nothing"

    def as_json(self) -> dict[str, object]:
        return {
            "name": self.name,
            "version": self.version,
            "builtin": self.builtin,
            "registers": self.registered,
            "error": self.error or None,
        }


def listed() -> list[Listed]:
    """Every plugin, biomd's own first. The front-ends' registries (platforms, commands) are
    filled by the front-end that asks, before it does."""
    registry()
    backends()
    plugins.declared_settings()
    return [
        Listed(p.name, p.version, p.builtin, dict(p.registered), p.error)
        for p in plugins.loaded().plugins
    ]
