"""What the owner and their assistants tell biomd directly: an answer to an open question,
or a note an assistant was asked to remember. Each is kept as a source of its own, in the
transcript format, and read by the biographer like any."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from biomd.app.sources import Sources
from biomd.biographer.biographer import Biographer
from biomd.biographer.questions import Questions
from biomd.biographer.turn import StepFn, TurnResult
from biomd.settings.groups import OwnerSettings


@dataclass(frozen=True, slots=True)
class Answered:
    """The owner's answer, kept as source `document_id`, and the turn that took it in."""

    document_id: int
    result: TurnResult


class Answers:
    def __init__(
        self,
        owner: OwnerSettings,
        sources: Sources,
        biographer: Biographer,
        questions: Questions,
    ) -> None:
        self.owner = owner
        self.sources = sources
        self.biographer = biographer
        self.questions = questions

    async def answer(self, question_id: str, text: str, on_step: StepFn | None = None) -> Answered:
        """Keep the owner's answer to an open question as a source, then let the biographer
        take it in. Until that succeeds the answer stays in the reading queue, so a model
        outage only delays it: the periodic reading takes it in later."""
        question = await self.questions.get(question_id)
        doc_id = await self.keep_answer(question.id, text)
        request = (
            f"The owner answered open question [{question.id}] ({question.text!r}); the answer "
            f"is source #{doc_id}. Read it, put what it says where it belongs in bio.md citing "
            f"[#{doc_id}], remove or update the question, and follow any leads it opens."
        )
        result = await self.biographer.analyse(doc_id, focus=request, on_step=on_step)
        await self.biographer.reading.mark_read(doc_id)
        return Answered(doc_id, result)

    async def keep_answer(self, question_id: str, text: str) -> int:
        """The answer as a source of its own, recorded as the question's answer; its id."""
        question = await self.questions.get(question_id)
        now = datetime.now(self.owner.zone)
        owner = self.owner.names[0] if self.owner.names else "Me"
        body = (
            f"Answer to the biographer's open question [{question.id}]: {question.text}\n\n"
            f"[{now:%Y-%m-%d %H:%M}] {owner} (owner): {' '.join(text.split())}\n"
        )
        name = f"answer to {question.id} ({now:%Y-%m-%d %H:%M}).txt"
        doc_id = await self.sources.keep_text(body, name)
        await self.questions.answered(question, now.isoformat(), doc_id)
        return doc_id

    async def note(self, text: str, client: str, at: str) -> int:
        """A note another assistant asked biomd to remember, as a source; its id."""
        when = datetime.fromisoformat(at).astimezone(self.owner.zone)
        body = f"Note from {client}\n\n[{when:%Y-%m-%d %H:%M}] {client}: {' '.join(text.split())}\n"
        return await self.sources.keep_text(body, f"note from {client} ({when:%Y-%m-%d %H:%M}).txt")
