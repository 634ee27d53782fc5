"""bio.md's open questions as the owner is asked them: which to push next (not ones asked
recently, important ones first, then those asked least lately), the message that asked each,
and the owner's answer or dismissal."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from biomd.biographer.profile import Profile
from biomd.biographer.profile_text import Question, open_questions, section
from biomd.errors import NotFound
from biomd.storage.store import Store

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


def important_first(questions: list[Question]) -> list[Question]:
    """The questions marked "(important)" first, each group in bio.md's order."""
    return sorted(questions, key=lambda q: IMPORTANT not in q.text.lower())


class Questions:
    """The open questions of one bio.md, and their record in the store."""

    def __init__(self, store: Store, profile: Profile) -> None:
        self.store = store
        self.profile = profile

    async def open(self) -> list[Question]:
        """In bio.md's order."""
        return open_questions(await self.profile.load())

    async def ordered(self) -> list[Question]:
        """Important ones first."""
        return important_first(await self.open())

    async def get(self, question_id: str) -> Question:
        """An open question by its id ("Q3", "q3" or "[Q3]")."""
        qid = question_id.strip().strip("[]").upper()
        found = next((q for q in await self._registered() if q.id == qid), None)
        if found is None:
            raise NotFound(f"There is no open question {qid}; `biomd questions` lists them.")
        return found

    async def next(self, count: int, cooldown_days: float) -> list[Question]:
        """The open questions to push now (none asked within the cool-down)."""
        asked = {
            q: datetime.fromisoformat(at) for q, at in (await self.store.questions.asked()).items()
        }
        now = datetime.now(UTC)
        return pick(await self._registered(), asked, now, count, timedelta(days=cooldown_days))

    async def _registered(self) -> list[Question]:
        """The open questions, those typed by hand given their ids in bio.md first (a
        question is pushed or answered by an id that stays)."""
        return open_questions(await self.profile.register_questions())

    async def sent(self, platform: str, chat: str, message: str, qid: str) -> None:
        """Remember that `message` in `chat` asked `qid`, so a reply to it answers it."""
        await self.store.questions.sent(platform, chat, message, qid)

    async def for_message(self, platform: str, chat: str, message: str) -> str | None:
        """The question a message asked, if it asked one (so a reply to it is the answer)."""
        return await self.store.questions.of_message(platform, chat, message)

    async def answered(self, question: Question, at: str, document_id: int) -> None:
        """Source `document_id` is the owner's answer to `question`."""
        await self.store.questions.answered(question.id, question.text, at, document_id)

    async def dismiss(self, qid: str) -> None:
        """Take an open question out of bio.md at the owner's word (a revision like any)."""
        bio = await self.profile.load()
        line = next(
            (q for q in section(bio, "Open questions").splitlines() if f"[{qid}]" in q), None
        )
        if line is None:
            raise NotFound(f"There is no open question {qid}.")
        await self.profile.edit(line, "", turn_id=None, mode="owner", reason=f"dismissed {qid}")
