"""Private sources: the owner keeps a source from other assistants, and no assistant surface
(an MCP tool, Hermes's recall and portrait, the profile resource) ever shows it, a note or a
quote from it, or a bio.md line resting only on it; the owner still searches and reads it."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from biomd import sample
from biomd.app.assistants.privacy import for_assistants
from biomd.app.engine import Engine
from biomd.app.memory import TOOLS, Memory
from biomd.errors import BiomdError
from biomd.models.tools import BadArguments
from tests.conftest import make_settings

BIO = """# bio.md

## Summary
A translator in Lisbon [#1, #3].

## Timeline
- 2019-04-07: Ran the Bath half marathon [#1]
- 2021-02: Moved to Lisbon [#3, #5]
  with Biscuit the cat [#5]
- 2023: Started smoking again [#5]
  behind the marquee at Ana's wedding

## Patterns
- Reassures Maya while complaining about her [#2, #5] (the mirror, P2, confirmed by you)
"""


def test_a_line_resting_only_on_private_sources_is_withheld_and_shared_ones_lose_their_cite() -> (
    None
):
    shown = for_assistants(BIO, frozenset({5}))
    assert "Ran the Bath half marathon [#1]" in shown
    assert "- 2021-02: Moved to Lisbon [#3]" in shown and "with Biscuit the cat" not in shown
    assert "smoking" not in shown and "marquee" not in shown, "its continuation goes with it"
    assert "Reassures Maya" not in shown, "a pattern quoting a private source is withheld"
    assert "#5" not in shown
    assert for_assistants(BIO, frozenset()) == BIO


@pytest.fixture
async def engine(tmp_path: Path, minilm_path: Path, embedder: object) -> AsyncIterator[Engine]:
    settings = make_settings(
        tmp_path / "data", minilm_path, owner_names=sample.OWNER_NAMES, timezone=sample.TIMEZONE
    )
    async with await Engine.open(settings, embedder) as eng:  # type: ignore[arg-type]
        _ = [r async for r in eng.sources.ingest(sample.files()[:-1])]
        await eng.sources.embed_pending()
        bio = (await eng.profile.load()).replace(
            "## Timeline\n",
            "## Timeline\n- 2019-04-07: Ran the Bath half marathon, living in London [#1]\n"
            "- 2021-02: Moved to Lisbon [#3]\n- 2024-01: Smoked at Ana's wedding [#6]\n",
        )
        await eng.profile.replace(bio, turn_id=None, mode="manual", reason="setup")
        yield eng


QUERIES = ["Lisbon", "Inês", "Mum", "wedding", "half marathon", "Tom", "money", "pottery"]


async def surfaces(memory: Memory, query: str, ids: list[int]) -> str:
    """Everything every assistant tool says for `query` (and of reading every source)."""
    said = []
    for t in TOOLS:
        args: dict[str, object] = {}
        if t.name in ("search", "recall"):
            args = {"query": query} if t.name == "search" else {"message": f"What about {query}?"}
        elif t.name == "grep":
            args = {"pattern": query}
        elif t.name == "person":
            args = {"name": query}
        elif t.name == "read_source":
            continue
        try:
            said.append(_text(await t(memory, args)))
        except (BadArguments, BiomdError) as exc:
            said.append(str(exc))
    for i in ids:
        read = next(t for t in TOOLS if t.name == "read_source")
        try:
            said.append(_text(await read(memory, {"document_id": i})))
        except (BadArguments, BiomdError) as exc:
            said.append(str(exc))
    said.append(await memory.about_me())
    said.append(await memory.bio())
    return "\n".join(said)


def _text(result: object) -> str:
    """What a tool said: its text, its Done's text, or its failure's message."""
    for attr in ("text", "message"):
        if isinstance(getattr(result, attr, None), str):
            return str(getattr(result, attr))
    return str(result)


def distinctive(text: str) -> list[str]:
    """A source's lines long enough that seeing one means seeing the source."""
    lines = [re.sub(r"^\[[^\]]*\]\s*", "", x).strip() for x in text.splitlines()]
    return [x for x in lines if len(x) >= 40]


@pytest.mark.slow  # the sample life with vectors, then every tool for each example
@settings(
    max_examples=12,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(private=st.sets(st.integers(1, 8), min_size=1), query=st.sampled_from(QUERIES))
async def test_a_private_source_never_reaches_any_assistant_surface(
    engine: Engine, private: set[int], query: str
) -> None:
    docs = await engine.sources.all()
    ids = [d.id for d in docs]
    texts = {d.id: (await engine.sources.read(d.id, 0, 10**6)).text for d in docs}
    for i in ids:
        await engine.sources.set_private(i, i in private)
    said = await surfaces(Memory(engine), query, ids)
    said = re.sub(r"There is no source #\d+\.", "", said)  # as for one that never was
    for i in private & set(ids):
        seen = re.search(rf"#{i}\b", said)
        assert seen is None, (i, query, said[max(0, seen.start() - 300) : seen.end() + 80])
        for line in distinctive(texts[i]):
            shared = any(line in texts[j] for j in ids if j not in private)
            assert shared or line not in said, (i, line)


@pytest.mark.slow
async def test_the_owner_still_searches_and_reads_a_private_source(engine: Engine) -> None:
    await engine.sources.set_private(1, True)
    assert any(h.document_id == 1 for h in await engine.sources.search("half marathon", 10))
    assert "half marathon" in (await engine.sources.read(1)).text
    listed = {d.id: d.private for d in await engine.sources.all()}
    assert listed[1] is True and listed[2] is False
