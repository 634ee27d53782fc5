"""A question's keyword terms, in the corpus's languages: its content words (the common words
of its own language dropped), each widened to the indexed words that share its stem in the
corpus's other languages ("Hochzeit" → "hochzeit" OR "hochzeiten"; English forms the index's
own stemmer already joins), or, in Chinese, Japanese or Korean, the phrase of its letter
pairs. Each term is an FTS5 expression with how many chunks hold it. For an English corpus
the terms are the words themselves, as before."""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import Sequence
from dataclasses import dataclass

from biomd.retrieval import language
from biomd.retrieval.keyword_plan import POSTINGS_BUDGET
from biomd.storage.fts_text import MARK
from biomd.storage.keywords import quoted
from biomd.storage.store import Store

SAMPLE = 400  # chunks whose language is detected to learn the corpus's languages
RELEARN_S = 60.0  # at most this often
META_KEY = "corpus_languages"
MAX_FORMS = 24  # indexed forms of one word, the most common first


@dataclass(frozen=True, slots=True)
class Term:
    word: str
    expression: str  # an FTS5 expression: "w", ("w" OR "w2"), or a phrase "東京 京に"
    chunks: int  # about how many chunks hold it


def _parse(stored: str | None) -> tuple[float, int, list[str]]:
    """What the store holds of the corpus's languages; size -1 when nothing was learnt."""
    try:
        data = json.loads(stored or "")
        return (0.0, int(data["chunks"]), [str(x) for x in data["found"]])
    except (ValueError, KeyError, TypeError):
        return (0.0, -1, [])


class QueryTerms:
    def __init__(self, store: Store, languages: Sequence[str] = ()) -> None:
        self.store = store
        self.configured = [lang for lang in languages if lang]
        self._learnt: tuple[float, int, list[str]] | None = None  # (when, corpus size, found)
        self._learning: asyncio.Task[None] | None = None
        self._lock = asyncio.Lock()
        self._last: tuple[tuple[str, int], list[Term]] | None = None

    async def corpus_languages(self, total: int) -> list[str]:
        """The owner's configured languages and those found in a sample of the corpus's
        lines. What was learnt is kept in the store (the very first search learns it, a
        quarter of a second at a million chunks) and learnt again in the background once
        the corpus has grown by a tenth."""
        now = time.monotonic()
        async with self._lock:
            if self._learnt is None:
                self._learnt = _parse(await self.store.meta.get(META_KEY))
            if self._learnt[1] < 0:
                await self._learn(total)
            at, size, found = self._learnt
            stale = total > size * 1.1 + 100 and now - at > RELEARN_S
            if stale and self._learning is None:
                self._learning = asyncio.create_task(self._relearn(total))
        return list(dict.fromkeys([*self.configured, *found]))

    async def stop(self) -> None:
        """Stop learning in the background (before the store closes)."""
        task, self._learning = self._learning, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    async def _relearn(self, total: int) -> None:
        try:
            await self._learn(total)
        finally:
            self._learning = None

    async def _learn(self, total: int) -> None:
        texts = await self.store.chunks.sample(SAMPLE)
        found = await asyncio.to_thread(language.languages_of, texts)
        # An empty corpus (size -1) is asked again next time; anything else is kept.
        self._learnt = (time.monotonic(), total if texts else -1, found)
        if texts:
            await self.store.meta.set({META_KEY: json.dumps({"chunks": total, "found": found})})

    async def terms(self, query: str, total: int) -> list[Term]:
        """The question's terms, in its word order (the last question's are kept: hybrid
        search asks twice, for the match and for its coverage)."""
        if self._last is not None and self._last[0] == (query, total):
            return self._last[1]
        found = await self._terms(query, total)
        self._last = ((query, total), found)
        return found

    async def _terms(self, query: str, total: int) -> list[Term]:
        corpus = await self.corpus_languages(total)
        found = language.detect(query)
        own = found[0] if found and found[1] >= language.DETECT_MIN_SCORE else None
        # A question's common words are its own language's, if the corpus has that language
        # (a short English question taken for Italian keeps English stopwords).
        stop_in = [own] if own and (own in corpus or not corpus) else corpus or ["en"]
        # The index stems English itself; the corpus's other languages' forms are looked up.
        widen_in = [x for x in corpus if x != "en"]
        words = language.content_words(query, stop_in)
        counted = [language.cjk_phrase(w) or w for w in words]
        counts = await self.store.keywords.doc_freq(counted, total, POSTINGS_BUDGET)
        out: list[Term] = []
        accented = [w for w in words if language.fts_fold(w) != w]
        tokens = await self.store.keywords.index_tokens(accented) if accented else {}
        for word, count in zip(words, counted, strict=True):
            marked = (
                await self._marked(word, tokens[word], widen_in, total) if word in tokens else None
            )
            if marked:
                out.append(marked)
                continue
            forms = [] if count != word else await self._forms(word, widen_in, total)
            if forms:
                expression = "(" + " OR ".join([quoted(word), *(quoted(f) for f, _ in forms)]) + ")"
                out.append(Term(word, expression, counts[count] + sum(n for _, n in forms)))
            else:
                out.append(Term(word, quoted(count), counts[count]))
        return out

    async def _marked(self, word: str, token: str, languages: list[str], total: int) -> Term | None:
        """An accented word's term: the accented words indexed whole (fts_text.MARK) that
        are it or its forms, and the stemmed word only where stemming left it whole (so
        "été" is not "et"). None if no accented word like it is indexed."""
        folded = language.fts_fold(word)
        prefix = language.stem_prefix(word, languages) or folded
        found = sorted(
            (
                (w, n)
                for w, n in await self.store.keywords.words_from(prefix, total)
                if w.endswith(MARK)
                and (w[:-1] == folded or language.same_word(w[:-1], word, languages))
            ),
            key=lambda x: -x[1],
        )[:MAX_FORMS]
        if not found:
            return None
        terms = [quoted(w) for w, _ in found] + ([quoted(token)] if token == folded else [])
        expression = "(" + " OR ".join(terms) + ")" if len(terms) > 1 else terms[0]
        return Term(word, expression, sum(n for _, n in found))

    async def _forms(self, word: str, languages: list[str], total: int) -> list[tuple[str, int]]:
        """Other indexed words that are forms of `word` in `languages`, the commonest first
        (as the index holds them: English-stemmed, so "ensayamos" is "ensayamo")."""
        if not languages:
            return []
        prefix = language.stem_prefix(word, languages)
        if prefix is None:
            return []
        own = language.fts_fold(word)
        forms = [
            (w, n)
            for w, n in await self.store.keywords.words_from(prefix, total)
            if w != own and language.same_word(w, word, languages)
        ]
        # German and Dutch past participles put "ge" in front: "heiraten", "geheiratet".
        for lang in set(languages) & set(language.PARTICIPLE_PREFIX):
            before = language.PARTICIPLE_PREFIX[lang]
            forms += [
                (w, n)
                for w, n in await self.store.keywords.words_from(before + prefix, total)
                if language.participle_of(w, word, lang)
            ]
        return sorted(dict(forms).items(), key=lambda x: -x[1])[:MAX_FORMS]
