"""Which open questions to ask next: not ones asked recently, important ones first, then
those asked least lately. Pure; the engine supplies when each was last asked."""

from __future__ import annotations

from datetime import datetime, timedelta

from core.biographer.profile_text import Question

IMPORTANT = "(important)"


def pick(
    questions: list[Question],
    asked_at: dict[str, datetime],
    now: datetime,
    count: int,
    cooldown: timedelta,
) -> list[Question]:
    """Up to `count` questions to push now."""
    ready = [q for q in questions if q.id not in asked_at or now - asked_at[q.id] >= cooldown]

    def order(q: Question) -> tuple[int, datetime, int]:
        important = 0 if IMPORTANT in q.text.lower() else 1
        last = asked_at.get(q.id, datetime.min.replace(tzinfo=now.tzinfo))
        return (important, last, int(q.id[1:]) if q.id[1:].isdigit() else 0)

    return sorted(ready, key=order)[:count]


def question_text(q: Question) -> str:
    """How a pushed question reads in the chat."""
    text = q.text.replace(IMPORTANT, "").replace("  ", " ").strip()
    return f"❓ {q.id}: {text}\n\nReply to this message to answer it, in text or as a voice note."
