"""Consolidation: the model rewrites the whole of bio.md; a guard refuses any rewrite that
loses a citation, an open question or a section, and tells the model what it dropped."""

from __future__ import annotations

import re
from dataclasses import dataclass

from biomd.biographer.profile_text import citations, open_questions, section_titles
from biomd.biographer.prompts import CONSOLIDATE
from biomd.errors import BiomdError
from biomd.models.llm import TurnModel
from biomd.models.text_calls import strip_thinking

_CHAT_CITE = re.compile(r"\[chat \d{4}-\d{2}-\d{2}\]")
_FENCE = re.compile(r"^```(?:markdown|md)?\s*\n(.*?)\n```\s*$", re.S)


CUT_OFF = (
    "Your rewrite was cut off at the length limit before its end. Reply with the complete "
    "bio.md again, shorter: merge more, but keep every citation and question id."
)


class ConsolidationRefused(BiomdError):
    pass


@dataclass(frozen=True)
class Losses:
    citations: list[int]
    chat_citations: list[str]
    questions: list[str]
    sections: list[str]

    def __bool__(self) -> bool:
        return bool(self.citations or self.chat_citations or self.questions or self.sections)

    def describe(self) -> str:
        parts = []
        if self.citations:
            parts.append("citations " + ", ".join(f"[#{n}]" for n in self.citations))
        if self.chat_citations:
            parts.append("citations " + ", ".join(self.chat_citations))
        if self.questions:
            parts.append("open questions " + ", ".join(f"[{q}]" for q in self.questions))
        if self.sections:
            parts.append("sections " + ", ".join(self.sections))
        return "; ".join(parts)


def losses(before: str, after: str) -> Losses:
    """What `after` lacks that `before` had."""
    titles = {t.lower() for t in section_titles(after)}
    kept_questions = {q.id for q in open_questions(after)}
    return Losses(
        sorted(citations(before) - citations(after)),
        sorted(set(_CHAT_CITE.findall(before)) - set(_CHAT_CITE.findall(after))),
        [q.id for q in open_questions(before) if q.id not in kept_questions],
        [s for s in section_titles(before) if s.lower() not in titles],
    )


def unfence(text: str) -> str:
    m = _FENCE.match(text.strip())
    return (m.group(1) if m else text).strip() + "\n"


async def rewrite(
    model: TurnModel, bio: str, budget: int, attempts: int = 3, max_tokens: int | None = None
) -> str:
    """A consolidated bio.md that passed the guard, or ConsolidationRefused. The reply may
    be as long as bio.md itself (`max_tokens`); a rewrite cut off at that limit is refused."""
    messages = [
        {"role": "system", "content": CONSOLIDATE.replace("{budget}", f"{budget:,}")},
        {"role": "user", "content": f"<bio_md>\n{bio}\n</bio_md>"},
    ]
    lost = Losses([], [], [], [])
    for _ in range(attempts):
        reply = await model.complete(messages, None, "consolidate", max_tokens)
        candidate = unfence(strip_thinking(reply.text))
        lost = losses(bio, candidate)
        if reply.finish_reason == "length":
            messages += [
                {"role": "assistant", "content": reply.text},
                {"role": "user", "content": CUT_OFF},
            ]
            continue
        if not lost and candidate.strip():
            return candidate
        messages += [
            {"role": "assistant", "content": reply.text},
            {
                "role": "user",
                "content": (
                    f"Your rewrite dropped {lost.describe() or 'everything'}. Put every one of "
                    "them back where it belongs and reply with the complete bio.md again."
                ),
            },
        ]
    raise ConsolidationRefused(
        f"Consolidation was refused: after {attempts} attempts the rewrite still dropped "
        f"{lost.describe() or 'its end (cut off at the length limit)'}. bio.md was left as "
        "it was."
    )
