"""What the keyword index holds for a chunk: its text, and after it the overlapping pairs of
letters of every Chinese, Japanese or Korean run, which are written without spaces ("東京に
引っ越した" is one FTS5 token; its pairs 東京 京に に引 … let 東京 be found). The same function
is registered on every connection as `biomd_fts_text`, so that the triggers that take a
chunk out of the index give FTS5 exactly what was put in."""

from __future__ import annotations

import re

_CJK = re.compile(
    r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af\u31f0-\u31ff]+"
)
SQL_NAME = "biomd_fts_text"


def cjk_runs(text: str) -> list[str]:
    return _CJK.findall(text)


def cjk_pairs(run: str) -> list[str]:
    """A run of CJK letters as the overlapping pairs it is indexed as (a lone letter alone)."""
    return [run] if len(run) < 2 else [run[i : i + 2] for i in range(len(run) - 1)]


def index_text(text: str) -> str:
    """A chunk's text as the keyword index takes it."""
    runs = _CJK.findall(text)
    if not runs:
        return text
    return text + "\n" + " ".join(p for run in runs for p in cjk_pairs(run))
