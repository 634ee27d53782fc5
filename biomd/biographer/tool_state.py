"""What a turn's tool calls have done so far: the record its report is checked against. On
Codex it crosses from the turn's tool server as JSON."""

from __future__ import annotations

import json
from dataclasses import dataclass, field


@dataclass
class ToolState:
    """The record: calls, edits and refusals, and which sources the turn saw and read."""

    calls: int = 0  # tool calls made, counted where the budget is (Codex's tool server)
    edits: int = 0
    sections_changed: list[str] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)  # why each refused edit was refused
    seen: set[int] = field(default_factory=set)  # sources a tool result showed
    read: dict[int, list[tuple[int, int]]] = field(default_factory=dict)  # read_source ranges

    def to_json(self) -> str:
        return json.dumps(
            {
                "calls": self.calls,
                "edits": self.edits,
                "sections_changed": self.sections_changed,
                "refused": self.refused,
                "seen": sorted(self.seen),
                "read": {str(k): v for k, v in self.read.items()},
            }
        )

    @classmethod
    def from_json(cls, text: str) -> ToolState:
        data = json.loads(text)
        return cls(
            int(data.get("calls", 0)),
            int(data.get("edits", 0)),
            [str(t) for t in data.get("sections_changed", [])],
            [str(r) for r in data.get("refused", [])],
            {int(i) for i in data.get("seen", [])},
            {int(k): [(int(a), int(b)) for a, b in v] for k, v in data.get("read", {}).items()},
        )
