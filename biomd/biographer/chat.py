"""The conversation with the owner: each message is one chat turn that starts from what biomd
found for it (evidence.py) and sees the chat's last messages; its citations are checked, and
the exchange joins the chat."""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import datetime, tzinfo

from biomd.biographer.answer_check import SILENT
from biomd.biographer.bio_budget import BioBudget
from biomd.biographer.citations import flag_invented, source_ids
from biomd.biographer.profile import Profile
from biomd.biographer.profile_text import citations, open_questions
from biomd.biographer.turn import Agent, StepFn, TurnResult
from biomd.settings.groups import ChatSettings
from biomd.storage.chat import ChatMessage
from biomd.storage.store import Store

_KEEP_OPEN = re.compile(r"\b(?:add|put|keep|save|make)\b.{0,30}\bopen questions?\b", re.I)
"""The owner taking up a silent answer's offer: "add it to my open questions"."""


class Conversation:
    def __init__(
        self,
        chat: ChatSettings,
        zone: tzinfo,
        store: Store,
        profile: Profile,
        agent: Callable[[], Agent],
        budget: BioBudget,
    ) -> None:
        self.settings = chat
        self.zone = zone
        self.store = store
        self.profile = profile
        self.agent = agent
        self.budget = budget

    async def messages(self, limit: int = 200) -> list[ChatMessage]:
        """The conversation with the owner, its last `limit` messages."""
        return await self.store.chat.recent(limit)

    async def tail(self) -> list[dict[str, str]]:
        """The last BIOMD_CHAT_TAIL messages, as a turn sees them (not the exchanges search
        answered alone, with no model: their lists of hits are not the biographer's words)."""
        n = self.settings.tail
        if n == 0:
            return []
        recent = await self.store.chat.recent(n)
        return [{"role": m.role, "content": m.content} for m in recent if m.turn_id is not None]

    async def keep(self, message: str, reply: str) -> None:
        """An exchange answered without the biographer (what search found, with no model),
        kept so the chat shows it again."""
        await self.store.chat.add_exchange(message, reply, None)

    async def dates(self, today: bool = False) -> frozenset[str]:
        """The days the owner wrote in the chat, in their time zone (what [chat YYYY-MM-DD]
        may cite); with `today`, today too (the message being answered)."""
        zone = self.zone
        days = {
            datetime.fromisoformat(at).astimezone(zone).date().isoformat()
            for at in await self.store.chat.owner_times()
        }
        if today:
            days.add(datetime.now(zone).date().isoformat())
        return frozenset(days)

    async def ask(self, message: str, on_step: StepFn | None = None) -> TurnResult:
        """One chat turn; the exchange joins the chat tail. Citations of sources that don't
        exist, or that neither this turn nor bio.md has seen, are flagged in the answer (and
        so in the tail, where they can't pass for facts)."""
        await self.budget.make_room()
        tail = await self.tail()
        dates = await self.dates(today=True)
        result = await self._kept_open(message) or await self.agent().run(
            "chat",
            message,
            steps=self.settings.steps,
            chat_tail=tail,
            chat_dates=dates,
            on_step=on_step,
        )
        known = citations(await self.profile.load()) | result.seen
        known |= {i for m in tail for i in source_ids(m["content"])}
        real = {i for i in source_ids(result.report) if await self._real_source(i)}
        result.report, invented = flag_invented(
            result.report, lambda i: i in real and i in known, set(dates)
        )
        if invented:
            result.report += (
                f"\n\n(biomd: {', '.join(invented)} "
                f"{'is' if len(invented) == 1 else 'are'} not among your sources or chat; "
                "what rests on it is unsupported.)"
            )
        await self.store.chat.add_exchange(message, result.report, result.turn_id)
        return result

    async def _kept_open(self, message: str) -> TurnResult | None:
        """ "Add it to my open questions" just after biomd said the sources don't say: the
        question, added to bio.md's Open questions by rules, for the bot to ask later. None
        for any other message."""
        if not _KEEP_OPEN.search(message):
            return None
        recent = await self.store.chat.recent(2)
        if len(recent) < 2 or recent[1].role != "assistant" or recent[0].role != "user":
            return None
        if not recent[1].content.startswith(SILENT):
            return None
        asked = " ".join(recent[0].content.split())
        turn_id = await self.store.turns.start("chat", message)
        changed = await self.profile.edit(
            "", f"- {asked}", section="Open questions", turn_id=turn_id, mode="chat",
            reason="the owner kept a question the sources don't answer",
        )  # fmt: skip
        qid = next((q.id for q in reversed(open_questions(changed)) if q.text == asked), "")
        report = (
            f"Added to your open questions{f' as {qid}' if qid else ''}: “{asked}”. "
            "I'll ask you about it."
        )
        await self.store.turns.finish(turn_id, "done", report=report, steps=0, error=None)
        return TurnResult(turn_id, "chat", report, 0, 1, sections_changed=["Open questions"])

    async def _real_source(self, doc_id: int) -> bool:
        doc = await self.store.documents.get(doc_id)
        return doc is not None and doc.status == "ready"
