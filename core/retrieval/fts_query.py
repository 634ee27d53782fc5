"""Turn any user text into a safe FTS5 query: words only, each quoted, common words dropped."""

from __future__ import annotations

import re

from core.retrieval.language import STOPWORDS as _STOPWORDS

# English common words (core.retrieval.language keeps every language's).
STOPWORDS = _STOPWORDS["en"]

_TOKEN = re.compile(r"[^\W_]+", re.UNICODE)


def tokens(text: str) -> list[str]:
    """Lower-cased word tokens, as FTS5's unicode61 tokenizer would see them."""
    return [t.lower() for t in _TOKEN.findall(text)]


def content_tokens(text: str) -> list[str]:
    """Tokens without stopwords, in order, without repeats; all tokens if every one is common."""
    words = tokens(text)
    kept = [w for w in words if w not in STOPWORDS] or words
    return list(dict.fromkeys(kept))


def keyword_query(text: str) -> str | None:
    """An FTS5 MATCH expression (quoted tokens joined by OR), or None if the text has no words."""
    words = content_tokens(text)
    if not words:
        return None
    return " OR ".join(f'"{w}"' for w in words)
