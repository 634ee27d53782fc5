"""A question for the biographer from any front-end: its answer, one chat turn; with no
language model, what search finds for it, cited, so that retrieval is visible."""

from __future__ import annotations

from typing import TYPE_CHECKING

from core.app.replies import search_reply
from core.biographer.turn import StepFn, TurnResult
from core.errors import LLMNotConfigured

if TYPE_CHECKING:
    from core.app.engine import Engine

__all__ = ["SEARCH_INSTEAD_HITS", "TurnResult", "ask"]

SEARCH_INSTEAD_HITS = 4


async def ask(engine: Engine, question: str, on_step: StepFn | None = None) -> TurnResult | str:
    """The biographer's turn, which `on_step` hears step by step; with no language model
    (or a key it rejects), the search results as the reply's text."""
    if engine.biography.configured:
        try:
            return await engine.biography.chat.ask(question, on_step=on_step)
        except LLMNotConfigured:
            pass
    hits = await engine.sources.search(question, limit=SEARCH_INSTEAD_HITS)
    keywords_only = await engine.sources.without_vectors() is not None
    return search_reply(hits, question, engine.biography.missing, keywords_only)
