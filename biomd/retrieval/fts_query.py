"""Turn any user text into a safe FTS5 query: words only, each quoted, common words dropped."""

from __future__ import annotations

from biomd.retrieval import language

# English common words (biomd.retrieval.language keeps every language's).
STOPWORDS = language.STOPWORDS["en"]

tokens = language.words  # lower-cased words, as FTS5's unicode61 tokenizer splits them


def content_tokens(text: str) -> list[str]:
    """Tokens without English stopwords, in order, without repeats; all tokens if every one
    is common."""
    return language.content_words(text, ("en",))


def keyword_query(text: str) -> str | None:
    """An FTS5 MATCH expression (quoted tokens joined by OR), or None if the text has no words."""
    words = content_tokens(text)
    if not words:
        return None
    return " OR ".join(f'"{w}"' for w in words)
