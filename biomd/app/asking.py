"""A question for the biographer from any front-end: its answer, one chat turn; with no
language model, what search finds for it, cited, so that retrieval is visible."""

from __future__ import annotations

from typing import TYPE_CHECKING

from biomd.app.replies import search_reply
from biomd.biographer.turn import StepFn, TurnResult
from biomd.errors import LLMNotConfigured

if TYPE_CHECKING:
    from biomd.app.engine import Engine

__all__ = ["SEARCH_INSTEAD_HITS", "TurnResult", "ask"]

SEARCH_INSTEAD_HITS = 4


async def ask(
    engine: Engine, question: str, on_step: StepFn | None = None, told: bool = False
) -> TurnResult | str:
    """The biographer's turn, which `on_step` hears step by step; with no language model
    (or a key it rejects), the search results as the reply's text (saying why in full
    unless the owner was `told` already), kept in the chat like any exchange."""
    if engine.biographer.configured:
        try:
            return await engine.biographer.chat.ask(question, on_step=on_step)
        except LLMNotConfigured:
            pass
    hits = await engine.sources.search(question, limit=SEARCH_INSTEAD_HITS)
    keywords_only = await engine.sources.without_vectors() is not None
    reply = search_reply(hits, question, engine.biographer.missing, told, keywords_only)
    await engine.biographer.chat.keep(question, reply)  # the chat keeps it, as any exchange
    return reply
