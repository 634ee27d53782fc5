"""Text for chat platforms: long replies split at the best boundary within a limit."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

from core.biographer.citations import in_order

if TYPE_CHECKING:
    from core.retrieval.search import Hit
    from core.storage.usage import Totals

TELEGRAM_LIMIT = 4096
DISCORD_LIMIT = 2000

_CITATION = re.compile(r"\[#(\d+)(?:\s*,\s*#\d+)*\]")


def split_message(text: str, limit: int) -> list[str]:
    """Pieces of at most `limit` characters, cut at a paragraph break if one fits, else at a
    line break, a sentence end, a space, and only then anywhere. Nothing is lost but the
    whitespace at the cuts."""
    text = text.strip()
    pieces: list[str] = []
    while len(text) > limit:
        window = text[: limit + 1]
        cut = -1
        for sep in ("\n\n", "\n", ". ", " "):
            at = window.rfind(sep, limit // 3)
            if at > 0:
                cut = at + (1 if sep == ". " else 0)
                break
        if cut <= 0:
            cut = limit
        pieces.append(text[:cut].rstrip())
        text = text[cut:].lstrip()
    if text:
        pieces.append(text)
    return pieces


def cited_sources(text: str) -> list[int]:
    """Source ids cited in a reply, in order, each once; invented ones (flagged) left out."""
    return in_order(text)


def with_source_hint(reply: str) -> str:
    """A reply, plus how to open the sources it cites."""
    ids = cited_sources(reply)
    if not ids:
        return reply
    shown = ", ".join(f"/source {i}" for i in ids[:5])
    return f"{reply}\n\nSources: {shown}"


def snippet(text: str, query: str, width: int = 320) -> str:
    """About `width` characters of `text` where most words of `query` occur (matched by their
    first five letters, so "smoking" finds "smoke"), cut at spaces, with … where cut."""
    from core.retrieval.fts_query import content_tokens

    flat = " ".join(text.split())
    if len(flat) <= width:
        return flat
    low = flat.lower()
    stems = [t[:5] for t in content_tokens(query) if len(t) > 2]
    hits = [m.start() for s in stems for m in re.finditer(re.escape(s), low)]

    def covered(at: int) -> int:
        window = low[max(0, at - width // 4) : at + width]
        return sum(s in window for s in stems)

    at = max(sorted(hits), key=covered, default=0)
    start = max(0, min(at - width // 4, len(flat) - width))
    if start:
        start = flat.find(" ", start) + 1 or start
    end = start + width
    if end < len(flat):
        end = flat.rfind(" ", start, end) if flat.rfind(" ", start, end) > start else end
    return ("…" if start else "") + flat[start:end] + ("…" if end < len(flat) else "")


NO_LLM_ANSWER = (
    "No language model is configured, so the biographer cannot answer in its own words yet "
    "(`biomd setup` connects one). Here is what hybrid search finds, best first:"
)
SNIPPET_CHARS = 320


def search_reply(hits: Sequence[Hit], query: str) -> str:
    """Search hits as an answer, cited, for when no language model is configured."""
    lines = [NO_LLM_ANSWER]
    if not hits:
        lines.append("Search found nothing for that.")
    for h in hits:
        lines.append(f"[#{h.document_id}] {h.document}\n{snippet(h.text, query, SNIPPET_CHARS)}")
    return with_source_hint("\n\n".join(lines))


def cost_text(periods: Sequence[Totals], backends: Sequence[Totals], limit: float | None) -> str:
    """Calls, tokens and spend today, in the last 30 days and in all, by backend once Codex
    has been used, and the daily limit."""
    lines = [
        f"{t.label}: {t.calls:,} calls, {t.tokens:,} tokens ({t.prompt_tokens:,} prompt, "
        f"{t.completion_tokens:,} completion), ${t.usd:.4f}"
        for t in periods
    ]
    if any(b.label == "codex" for b in backends):
        lines.append("By backend, all time:")
        lines += [
            f"{'Codex (your ChatGPT plan, no per-token cost)' if b.label == 'codex' else 'API'}: "
            f"{b.calls:,} calls, {b.tokens:,} tokens, ${b.usd:.4f}"
            for b in backends
        ]
    if limit is not None:
        lines.append(f"Daily limit: ${limit:.2f} (BIOMD_DAILY_SPEND_LIMIT_USD).")
    return "\n".join(lines)
