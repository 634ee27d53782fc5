"""A diligent reader and an agreeable model, played by the fake LLM for the mirror's tests:
the reader notes every line of substance (quoting it, dating it, naming who it mentions); the
model says yes to every question of the mirror's pass. They prove the wire and the
bookkeeping, not quality (bench/mirror_patterns.py runs a real model)."""

from __future__ import annotations

import json
import re
from typing import Any

from biomd.biographer.cues import HURT
from tests.support.fake_llm import content

_BLOCK = re.compile(r"<source_data id=(\d+)>\n(.*?)\n</source_data>", re.S)
_CHAT = re.compile(r"^\[(\d{4}-\d{2}-\d{2}) \d{2}:\d{2}\] ([^:]+?)(?: \(owner\))?: (.+)$")
_DAY = re.compile(r"^#\s*(\d{4}-\d{2}-\d{2})")
NAMES = ("Maya", "Sam", "Leo", "Rui")
MIRROR = "You are biomd's mirror"


def diligent_notes(body: dict[str, Any]) -> list[dict[str, Any]]:
    """A note for each line of substance in each source block of a reader's request."""
    text = content((body.get("messages") or [{}])[-1])
    notes = []
    for doc, block in _BLOCK.findall(text):
        day = ""
        for line in block.splitlines():
            line = line.strip()
            if m := _DAY.match(line):
                day = m.group(1)
                continue
            chat = _CHAT.match(line)
            when, quote = (chat.group(1), chat.group(3)) if chat else (day, line)
            if len(quote) < 12 or "omitted" in quote:
                continue
            people = [n for n in NAMES if n in quote]
            notes.append(
                {
                    "source": int(doc),
                    "kind": "feeling" if HURT(quote) else "event",
                    "statement": f"Ana: {quote}",
                    "date": when,
                    "people": people,
                    "quote": quote,
                }
            )
    return notes


def is_mirror(body: dict[str, Any]) -> bool:
    messages = body.get("messages") or [{}]
    return content(messages[0]).startswith(MIRROR)


def says_yes(body: dict[str, Any]) -> str:
    """The reply to a question of the mirror's pass: yes."""
    return json.dumps({"answer": "yes"})
