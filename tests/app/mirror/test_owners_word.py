"""The mirror's pass over a planted life, read by the diligent reader, and what the owner
does with it: the pass resumed after a failure or a kill without duplicates, incremental,
held to the spend limit; the owner's word kept (a dismissal holds, a confirmation goes into
bio.md); an answer kept as a source; an open intention made a question; signs of crisis
never a pattern, and where to find help shown; MCP showing confirmed patterns only."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bench.mirror_notes_life import CRISIS, write_notes_life
from biomd.app.engine import Engine
from biomd.app.memory import Memory
from biomd.app.mirror.care import HELP
from biomd.errors import BiomdError
from biomd.retrieval.embedding import FastEmbedder
from tests.conftest import llm_settings
from tests.support import db
from tests.support.fake_llm import FakeLLM
from tests.support.mirror_fakes import diligent_notes, is_mirror, says_yes
from tests.support.reading import read_round

pytestmark = pytest.mark.slow  # a planted life ingested and read by whole Engines

YES = says_yes({})


def asked(llm: FakeLLM) -> list[dict[str, object]]:
    return [b for b in llm.bodies if is_mirror(b)]


@pytest.fixture
async def read_life(
    tmp_path: Path, minilm_path: Path, llm: FakeLLM, embedder: FastEmbedder
) -> AsyncIterator[Engine]:
    """The planted life, ingested and read by the diligent reader; the model says yes."""
    llm.notes_for = diligent_notes
    llm.responder = lambda body: YES if is_mirror(body) else "OK"
    settings = llm_settings(
        tmp_path, minilm_path, llm, owner_names="Ana", reading_placement="rules"
    )
    async with await Engine.open(settings, embedder) as engine:
        async for r in engine.sources.ingest(write_notes_life(tmp_path / "life")):
            assert r.status == "added", r.error
        await read_round(engine)
        yield engine


async def test_a_second_pass_asks_nothing_again_and_a_new_source_only_its_own_shapes(
    read_life: Engine, llm: FakeLLM, tmp_path: Path
) -> None:
    first = await read_life.mirror.refresh()
    assert first.judged > 0 and first.yes > 0
    before = len(asked(llm))
    again = await read_life.mirror.plan()
    assert not again.todo and not again.calls
    assert (await read_life.mirror.refresh()).judged == 0 and len(asked(llm)) == before
    entry = tmp_path / "2024-01-01.md"
    entry.write_text("# 2024-01-01\n\nNew year. I'm going to stop working weekends, again.\n")
    [r] = [r async for r in read_life.sources.ingest([entry])]
    plan = await read_life.mirror.plan()
    assert plan.todo and len(plan.todo) < first.judged
    assert all(r.document_id in {x.source_id for x in s.lines} for s in plan.todo)


async def test_a_pass_cut_short_resumes_with_no_duplicate(read_life: Engine, llm: FakeLLM) -> None:
    plan = await read_life.mirror.plan()
    calls = 0

    def flaky(body: dict[str, object]) -> str:
        nonlocal calls
        if is_mirror(body):
            calls += 1
            if calls == 6:
                llm.down = True  # the endpoint dies mid-pass
            return YES
        return "OK"

    llm.responder = flaky
    cut = await read_life.mirror.refresh()
    assert cut.stopped and 0 < cut.judged < len(plan.todo)
    llm.down = False
    rest = await read_life.mirror.refresh()
    assert not rest.stopped and cut.judged + rest.judged == len(plan.todo)
    keys = db.mirror_judged(read_life.settings.db_path)
    assert len(keys) == len(set(keys)) == len(plan.todo)


async def test_the_pass_stops_at_the_daily_spend_limit(
    read_life: Engine, llm: FakeLLM, embedder: FastEmbedder
) -> None:
    assert (await read_life.mirror.plan()).calls
    settings = read_life.settings.but(**{"daily_spend_limit_usd": 0.0})
    await read_life.close()
    async with await Engine.open(settings, embedder) as engine:
        report = await engine.mirror.refresh()
    assert report.judged == 0 and "daily limit" in report.stopped
    assert asked(llm) == []


async def test_a_dismissed_pattern_stays_dismissed_and_a_confirmed_one_goes_into_bio_md(
    read_life: Engine,
) -> None:
    await read_life.mirror.refresh()
    view = await read_life.mirror.view()
    [cycle] = [p for p in view.patterns if p.kind == "cycle"]
    [avoidance] = [p for p in view.patterns if p.kind == "avoidance"]
    await read_life.mirror.dismiss(cycle.id)
    await read_life.mirror.confirm(avoidance.id)
    await read_life.mirror.refresh()  # nothing new: the dismissal holds
    again = {p.id: p.status for p in (await read_life.mirror.view()).patterns}
    assert again[cycle.id] == "dismissed" and again[avoidance.id] == "confirmed"
    bio = await read_life.profile.load()
    line = next(ln for ln in bio.splitlines() if avoidance.id in ln)
    assert avoidance.statement in line and all(f"#{s}" in line for s in avoidance.sources)
    await read_life.mirror.take_back(avoidance.id)
    assert avoidance.id not in await read_life.profile.load()


async def test_an_answer_is_kept_as_a_source_and_an_intention_becomes_a_question(
    read_life: Engine,
) -> None:
    await read_life.mirror.refresh()
    view = await read_life.mirror.view()
    [pattern] = view.patterns[:1]
    doc = await read_life.mirror.answer(pattern.id, "It was more complicated than that.")
    source = await read_life.sources.read(doc)
    assert "It was more complicated than that." in source.text and pattern.id in source.text
    [again] = [p for p in (await read_life.mirror.view()).patterns if p.id == pattern.id]
    assert again.answers == (doc,)
    assert not [i for i in view.intentions if "run every morning" in i.quote]  # what followed
    assert not [i for i in view.intentions if "London" in i.quote]  # a feeling, not a plan
    talk = view.intentions[0]  # "I'm going to stop working weekends" (2021): nothing followed
    await read_life.mirror.ask_later(talk.id)
    questions = await read_life.questions.open()
    assert any(talk.quote[:40] in q.text and "Did you?" in q.text for q in questions)
    assert talk.id not in {i.id for i in (await read_life.mirror.view()).intentions}
    with pytest.raises(BiomdError):
        await read_life.mirror.answer(pattern.id, "   ")


async def test_signs_of_crisis_are_never_a_pattern_and_help_is_shown(read_life: Engine) -> None:
    await read_life.mirror.refresh()
    view = await read_life.mirror.view()
    shown = view.as_json()
    assert view.patterns and view.care and shown["care"] == HELP
    for p in view.patterns:
        assert CRISIS not in " ".join(e.quote for e in (*p.evidence, *p.counter))


async def test_mcp_shows_confirmed_patterns_only(read_life: Engine) -> None:
    from mcp import Client

    from biomd.frontends.mcp_server import build

    await read_life.mirror.refresh()
    view = await read_life.mirror.view()

    async def patterns() -> str:
        async with Client(build(Memory(read_life))) as client:
            result = await client.call_tool("patterns", {})
        return "\n".join(c.text for c in result.content)  # type: ignore[union-attr]

    assert "No confirmed patterns" in await patterns()
    [cycle] = [p for p in view.patterns if p.kind == "cycle"]
    await read_life.mirror.confirm(cycle.id)
    await read_life.mirror.dismiss(view.patterns[-1].id)
    shown = await patterns()
    assert cycle.statement in shown and shown.count("- [P") == 1
    assert "<source_data" in shown  # the owner's words come back marked as data
    for p in view.patterns:
        if p.id != cycle.id:
            assert p.id not in shown


def test_a_mirror_pass_killed_mid_way_resumes_with_no_duplicate(
    tmp_path: Path, minilm_path: Path, llm: FakeLLM
) -> None:
    import os
    import signal
    import subprocess
    import sys
    import time

    from tests.support.fake_llm import Slow
    from tests.support.model_files import MINILM_NAME

    env = {
        **os.environ,
        "BIOMD_CONFIG_DIR": str(tmp_path / "config"),
        "BIOMD_DATA_DIR": str(tmp_path / "data"),
        "BIOMD_EMBED_MODEL": MINILM_NAME,
        "BIOMD_EMBED_MODEL_PATH": str(minilm_path),
        "BIOMD_LLM_BASE_URL": llm.base_url,
        "BIOMD_LLM_API_KEY": "sk-test",
        "BIOMD_LLM_MODEL": "test/model",
        "BIOMD_OWNER_NAMES": "Ana",
        "BIOMD_TIMEZONE": "UTC",
    }
    seen = 0

    def slowly_at_the_sixth(body: dict[str, object]) -> object:
        nonlocal seen
        if not is_mirror(body):
            return "OK"
        seen += 1
        return Slow(60, YES) if seen == 6 else YES

    llm.responder = slowly_at_the_sixth  # type: ignore[assignment]
    life = [str(p) for p in write_notes_life(tmp_path / "life")]
    biomd = [sys.executable, "-m", "biomd"]
    subprocess.run([*biomd, "ingest", *life], env=env, check=True, capture_output=True, timeout=300)
    path = tmp_path / "data" / "biomd.sqlite3"
    with subprocess.Popen(
        [*biomd, "mirror", "--refresh", "--yes"],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    ) as child:
        deadline = time.monotonic() + 120
        while seen < 6 and time.monotonic() < deadline:
            time.sleep(0.05)
        os.kill(child.pid, signal.SIGKILL)
    kept = db.mirror_judged(path)
    assert kept, "the shapes asked about before the kill are kept"
    done = subprocess.run(
        [*biomd, "mirror", "--refresh", "--yes", "--json"],
        env=env,
        check=True,
        capture_output=True,
        timeout=300,
        text=True,
    )
    keys = db.mirror_judged(path)
    assert len(keys) == len(set(keys)) > len(kept) and set(kept) <= set(keys)
    assert json.loads(done.stdout)["patterns"]
    third = subprocess.run(
        [*biomd, "mirror", "--refresh", "--yes"], env=env, capture_output=True, timeout=300,
        text=True,
    )  # fmt: skip
    assert "nothing new to ask about" in third.stderr and db.mirror_judged(path) == keys
