"""Who a turn is: made once when it starts, and all that its tools, its runner and the Codex
turn's tool server know of it (they take this value, not its fields one by one)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

Mode = Literal["chat", "analysis", "reading"]


@dataclass(frozen=True)
class TurnContext:
    id: int
    mode: Mode
    steps: int  # the step budget
    document_id: int | None = None  # the source a reading turn reads
    chat_dates: frozenset[str] = frozenset()  # the days [chat YYYY-MM-DD] may cite
    given: frozenset[int] = frozenset()  # sources whose notes the turn's request holds

    def to_json(self) -> dict[str, Any]:
        return {
            "turn_id": self.id,
            "mode": self.mode,
            "steps": self.steps,
            "document_id": self.document_id,
            "chat_dates": sorted(self.chat_dates),
            "given": sorted(self.given),
        }

    @classmethod
    def from_json(cls, spec: dict[str, Any]) -> TurnContext:
        return cls(
            int(spec["turn_id"]),
            spec["mode"],
            int(spec["steps"]),
            spec.get("document_id"),
            frozenset(spec.get("chat_dates") or []),
            frozenset(int(i) for i in spec.get("given") or []),
        )
