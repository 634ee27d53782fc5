"""Turn any user text into a safe FTS5 query: words only, each quoted, common words dropped."""

from __future__ import annotations

import re

# Kept short on purpose: words that carry no meaning in a question about someone's life.
STOPWORDS = frozenset(
    """
    a about above after again against all am an and any are as at be because been before
    being below between both but by can could did do does doing down during each few for
    from further had has have having he her here hers herself him himself his how i if in
    into is it its itself just me more most my myself no nor not now of off on once only or
    other our ours ourselves out over own same she should so some such than that the their
    theirs them themselves then there these they this those through to too under until up
    very was we were what when where which while who whom why will with would you your
    yours yourself yourselves also ever did does s t d ll m re ve
    """.split()
)

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
