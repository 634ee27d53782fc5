"""What the keyword index holds for a chunk: its text, and after it the overlapping pairs of
letters of every Chinese, Japanese or Korean run, which are written without spaces ("東京に
引っ越した" is one FTS5 token; its pairs 東京 京に に引 … let 東京 be found), and its accented
words whole (see MARK). The same function
is registered on every connection as `biomd_fts_text`, so that the triggers that take a
chunk out of the index give FTS5 exactly what was put in."""

from __future__ import annotations

import re

_CJK = re.compile(
    r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af\u31f0-\u31ff]+"
)
SQL_NAME = "biomd_fts_text"
# A word written with accents is also indexed whole, unstemmed, with this mark at its end
# (the English stemmer leaves a word ending in it alone): "été" → "eteʼ", so that the
# French word is not the "et" that stemming "ete" gives.
MARK = "\u02bc"
_LATIN_EXTENDED = re.compile(r"[\u00c0-\u024f\u1e00-\u1eff]")
_WORD = re.compile(r"[^\W\d_]+")


def cjk_runs(text: str) -> list[str]:
    return _CJK.findall(text)


def cjk_pairs(run: str) -> list[str]:
    """A run of CJK letters as the overlapping pairs it is indexed as (a lone letter alone)."""
    return [run] if len(run) < 2 else [run[i : i + 2] for i in range(len(run) - 1)]


def accented_words(text: str) -> list[str]:
    """The words of `text` written with a Latin letter outside ASCII (é, ñ, ß…), in order,
    found from those letters rather than by reading every word."""
    words: list[str] = []
    end = 0
    for m in _LATIN_EXTENDED.finditer(text):
        at = m.start()
        if at < end:
            continue  # another accent of the word just taken
        start = at
        while start > 0 and text[start - 1].isalpha():
            start -= 1
        word = _WORD.match(text, start)
        if word is not None:
            words.append(word.group())
            end = word.end()
    return words


def index_text(text: str) -> str:
    """A chunk's text as the keyword index takes it: the text, then the pairs of its CJK
    runs and its accented words, marked."""
    if text.isascii():
        return text
    extra = [p for run in _CJK.findall(text) for p in cjk_pairs(run)]
    extra += [w + MARK for w in accented_words(text)]
    return text + "\n" + " ".join(extra) if extra else text
