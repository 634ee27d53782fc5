"""A question's keyword terms, in the corpus's languages: its content words (the common words
of its own language dropped), each widened to the indexed words that share its stem
("Hochzeit" → "hochzeit" OR "hochzeiten"), or, in Chinese, Japanese or Korean, the phrase
of its letter pairs. Each term is an FTS5 expression with how many chunks hold it."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence
from dataclasses import dataclass

from core.retrieval import language
from core.storage.store import Store

SAMPLE = 400  # chunks whose language is detected to learn the corpus's languages
RELEARN_S = 600.0
MAX_FORMS = 24  # indexed forms of one word, the most common first


@dataclass(frozen=True, slots=True)
class Term:
    word: str
    expression: str  # an FTS5 expression: "w", ("w" OR "w2"), or a phrase "東京 京に"
    chunks: int  # about how many chunks hold it


def quoted(word: str) -> str:
    return '"' + word.replace('"', '""') + '"'


class QueryTerms:
    def __init__(self, store: Store, languages: Sequence[str] = ()) -> None:
        self.store = store
        self.configured = [lang for lang in languages if lang]
        self._learnt: tuple[float, int, list[str]] | None = None
        self._lock = asyncio.Lock()

    async def corpus_languages(self, total: int) -> list[str]:
        """The owner's configured languages and those found in a sample of the corpus,
        learnt again when it has grown by a tenth (or every ten minutes)."""
        async with self._lock:
            now = time.monotonic()
            fresh = self._learnt and (
                now - self._learnt[0] < RELEARN_S or total <= self._learnt[1] * 1.1 + 100
            )
            if self._learnt is None or not fresh:
                texts = await self.store.chunks.sample(SAMPLE)
                found = await asyncio.to_thread(language.languages_of, texts)
                self._learnt = (now, total, found)
            return list(dict.fromkeys([*self.configured, *self._learnt[2]]))

    async def terms(self, query: str, total: int) -> list[Term]:
        """The question's terms, in its word order."""
        corpus = await self.corpus_languages(total)
        found = language.detect(query)
        own = found[0] if found and found[1] >= language.DETECT_MIN_SCORE else None
        stop_in = [own] if own else corpus or ["en"]
        stems_in = list(dict.fromkeys([*corpus, *([own] if own else [])])) or ["en"]
        words = language.content_words(query, stop_in)
        out: list[Term] = []
        exact: list[tuple[str, str]] = []  # (word, what to count) for words not widened
        for word in words:
            phrase = language.cjk_phrase(word)
            if phrase is not None:
                exact.append((word, phrase))
                continue
            prefix = language.stem_prefix(word, stems_in)
            folded = language.fts_fold(word)
            if prefix is None:
                exact.append((word, folded))
                continue
            candidates = await self.store.keywords.words_from(prefix, total)
            forms = [
                (w, n)
                for w, n in candidates
                if w == folded or language.same_word(w, word, stems_in)
            ]
            forms.sort(key=lambda x: -x[1])
            forms = forms[:MAX_FORMS]
            if not forms:
                exact.append((word, folded))
                continue
            expression = " OR ".join(quoted(w) for w, _ in forms)
            if len(forms) > 1:
                expression = f"({expression})"
            out.append(Term(word, expression, sum(n for _, n in forms)))
        if exact:
            counts = await self.store.keywords.doc_freq([c for _, c in exact], total)
            out += [Term(w, quoted(c), counts.get(c, 0)) for w, c in exact]
        order = {w: i for i, w in enumerate(words)}
        return sorted(out, key=lambda t: order[t.word])
