"""The mirror's judging pass: candidates made by rules from the reader's notes of a planted
life, each judged in one small structured call; what the owner reads (statements without
labels, evidence verified, crisis notes never a pattern); the pass resumed after a failure
without duplicates, incremental, held to the spend limit; the owner's word kept; forgetting
a source taking its evidence; and MCP showing confirmed patterns only."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bench.mirror_notes_life import CRISIS, PLANTED, found, write_notes_life
from biomd.app.engine import Engine
from biomd.app.memory import Memory
from biomd.app.mirror.care import HELP
from biomd.errors import BiomdError
from biomd.retrieval.embedding import FastEmbedder
from tests.conftest import llm_settings
from tests.support import db
from tests.support.fake_llm import FakeLLM, content
from tests.support.mirror_fakes import diligent_notes, is_mirror, judge_yes
from tests.support.reading import read_round

pytestmark = pytest.mark.slow  # a planted life ingested and read by whole Engines


def judged_bodies(llm: FakeLLM) -> list[dict[str, object]]:
    return [b for b in llm.bodies if is_mirror(b)]


@pytest.fixture
async def read_life(
    tmp_path: Path, minilm_path: Path, llm: FakeLLM, embedder: FastEmbedder
) -> AsyncIterator[Engine]:
    """The planted life, ingested and read by the diligent reader; the judge says yes."""
    llm.notes_for = diligent_notes
    llm.responder = lambda body: judge_yes(body) if is_mirror(body) else "OK"
    settings = llm_settings(
        tmp_path,
        minilm_path,
        llm,
        owner_names="Ana",
        reading_placement="rules",
        mirror_design="judge",
    )
    async with await Engine.open(settings, embedder) as engine:
        async for r in engine.sources.ingest(write_notes_life(tmp_path / "life")):
            assert r.status == "added", r.error
        await read_round(engine)
        yield engine


async def test_each_candidate_is_judged_in_one_small_structured_call_and_the_planted_are_found(
    read_life: Engine, llm: FakeLLM
) -> None:
    plan = await read_life.mirror.plan()
    assert plan.calls == 2 * len(plan.todo) > 0 and plan.estimate.prompt_tokens > 0
    report = await read_life.mirror.refresh()
    assert report.judged == len(plan.todo) and not report.stopped
    bodies = judged_bodies(llm)
    assert len(bodies) == plan.calls
    for body in bodies:
        assert body["response_format"]["json_schema"]["schema"]["required"] == [  # type: ignore[index]
            "why", "answer", "statement"
        ]  # fmt: skip
        assert len(json.dumps(body["messages"])) < 6000  # small, whatever the corpus
        assert body["temperature"] == 0  # a local model's likeliest answer, the same each time
        assert CRISIS not in content(body["messages"][-1])  # type: ignore[index]
    view = await read_life.mirror.view()
    shown = view.as_json()
    hits, _ = found(shown["patterns"])  # type: ignore[arg-type]
    assert sorted(hits) == sorted(p.kind for p in PLANTED)
    for p in view.patterns:
        assert "narcissist" not in p.statement  # a label is never shown
        assert len({e.date[:10] for e in p.evidence}) >= 2
        for e in p.evidence:  # verbatim, at its span
            part = await read_life.sources.read(e.source_id, e.start, e.end - e.start)
            assert part.text == e.quote
        assert CRISIS not in " ".join(e.quote for e in (*p.evidence, *p.counter))
    assert view.care and shown["care"] == HELP
    assert db.calls(read_life.settings.db_path, "mirror") == plan.calls  # every call metered


async def test_a_candidate_the_judge_turns_down_at_first_costs_one_call_and_makes_nothing(
    read_life: Engine, llm: FakeLLM
) -> None:
    no = json.dumps({"why": "They are about different things.", "answer": "no", "statement": ""})
    llm.responder = lambda body: no if is_mirror(body) else "OK"
    plan = await read_life.mirror.plan()
    report = await read_life.mirror.refresh()
    assert report.judged == len(plan.todo) > 0 and report.yes == 0
    assert len(judged_bodies(llm)) == len(plan.todo)  # the second order is never asked
    assert not (await read_life.mirror.view()).patterns


async def test_a_second_pass_judges_nothing_again_and_a_new_source_only_its_own_candidates(
    read_life: Engine, llm: FakeLLM, tmp_path: Path
) -> None:
    await read_life.mirror.refresh()
    first = len(judged_bodies(llm))
    again = await read_life.mirror.refresh()
    assert again.judged == 0 and len(judged_bodies(llm)) == first
    entry = tmp_path / "2024-01-01.md"
    entry.write_text("# 2024-01-01\n\nNew year. I'm going to stop working weekends, again.\n")
    [r] = [r async for r in read_life.sources.ingest([entry])]
    await read_round(read_life)
    plan = await read_life.mirror.plan()
    note_ids = {x.id for x in await read_life.store.notes.of_source(r.document_id or 0)}
    assert plan.todo and all(set(c.notes) & note_ids for c in plan.todo)
    await read_life.mirror.refresh()
    [cycle] = [p for p in (await read_life.mirror.view()).patterns if p.kind == "cycle"]
    assert r.document_id in {e.source_id for e in cycle.evidence}  # the grown cycle, once


async def test_a_pass_cut_short_resumes_with_no_duplicate(read_life: Engine, llm: FakeLLM) -> None:
    plan = await read_life.mirror.plan()
    calls = 0

    def flaky(body: dict[str, object]) -> str:
        nonlocal calls
        if is_mirror(body):
            calls += 1
            if calls == 4:
                llm.down = True  # the endpoint dies mid-pass
            return judge_yes(body)
        return "OK"

    llm.responder = flaky
    cut = await read_life.mirror.refresh()
    assert cut.stopped and 0 < cut.judged < plan.calls
    llm.down = False
    rest = await read_life.mirror.refresh()
    assert cut.judged + rest.judged == len(plan.todo)
    keys = db.mirror_judged(read_life.settings.db_path)
    assert len(keys) == len(set(keys)) == len(plan.todo)


async def test_the_pass_stops_at_the_daily_spend_limit(
    read_life: Engine, llm: FakeLLM, minilm_path: Path, embedder: FastEmbedder
) -> None:
    plan = await read_life.mirror.plan()
    assert plan.calls
    settings = read_life.settings.but(**{"daily_spend_limit_usd": 0.0})
    await read_life.close()
    async with await Engine.open(settings, embedder) as engine:
        report = await engine.mirror.refresh()
    assert report.judged == 0 and "daily limit" in report.stopped
    assert judged_bodies(llm) == []


async def test_a_pattern_whose_quote_does_not_verify_is_dropped_and_counted(
    read_life: Engine,
) -> None:
    await read_life.mirror.refresh()
    view = await read_life.mirror.view()
    [stated] = [p for p in view.patterns if p.kind == "stated_reason"]
    for e in stated.evidence[:3]:  # three of its four quotes no longer say what the source says
        db.change_quote(read_life.settings.db_path, e.note_id, "something else entirely")
    read_life.mirror.found._verified.clear()  # what a restart does
    after = await read_life.mirror.view()
    assert not [p for p in after.patterns if p.id == stated.id]
    assert after.dropped["patterns"] >= 1


async def test_a_dismissed_pattern_stays_dismissed_and_a_confirmed_one_goes_into_bio_md(
    read_life: Engine,
) -> None:
    await read_life.mirror.refresh()
    view = await read_life.mirror.view()
    [cycle] = [p for p in view.patterns if p.kind == "cycle"]
    [london] = [
        p for p in view.patterns if any("London" in e.quote for e in p.evidence)
        and p.kind == "self_contradiction"
    ]  # fmt: skip
    await read_life.mirror.dismiss(cycle.id)
    await read_life.mirror.confirm(london.id)
    await read_life.mirror.refresh()  # nothing new: the dismissal holds
    again = {p.id: p.status for p in (await read_life.mirror.view()).patterns}
    assert again[cycle.id] == "dismissed" and again[london.id] == "confirmed"
    bio = await read_life.profile.load()
    line = next(ln for ln in bio.splitlines() if london.id in ln)
    assert all(f"#{s}" in line for s in london.sources)


async def test_an_answer_is_kept_as_a_source_and_an_intention_becomes_a_question(
    read_life: Engine, llm: FakeLLM
) -> None:
    def unsure(body: dict[str, object]) -> str:
        if not is_mirror(body):
            return "OK"
        if "The first note is something the owner said they would do" in content(
            body["messages"][-1]
        ):  # type: ignore[index]
            return json.dumps({"answer": "unsure", "statement": "", "why": "Can't tell."})
        return judge_yes(body)

    llm.responder = unsure
    await read_life.mirror.refresh()
    view = await read_life.mirror.view()
    [pattern] = view.patterns[:1]
    doc = await read_life.mirror.answer(pattern.id, "It was more complicated than that.")
    source = await read_life.sources.read(doc)
    assert "It was more complicated than that." in source.text and pattern.id in source.text
    assert (await read_life.mirror.view()).patterns[0].answers == (doc,)
    [talk] = [i for i in view.intentions if "run every morning" in i.quote]
    await read_life.mirror.ask_later(talk.id)
    questions = await read_life.questions.open()
    assert any("run every morning" in q.text and "Did you?" in q.text for q in questions)
    assert talk.id not in {i.id for i in (await read_life.mirror.view()).intentions}
    with pytest.raises(BiomdError):
        await read_life.mirror.answer(pattern.id, "   ")


async def test_forgetting_a_source_takes_its_evidence_and_a_pattern_left_with_one_date_goes(
    read_life: Engine,
) -> None:
    await read_life.mirror.refresh()
    view = await read_life.mirror.view()
    [london] = [
        p for p in view.patterns if any("London" in e.quote for e in p.evidence)
        and p.kind == "self_contradiction"
    ]  # fmt: skip
    leo_chat = next(e.source_id for e in london.evidence if "miss London" in e.quote)
    await read_life.sources.forget(leo_chat)
    after = await read_life.mirror.view()
    assert london.id not in {p.id for p in after.patterns}
    for p in after.patterns:
        assert leo_chat not in {e.source_id for e in (*p.evidence, *p.counter)}


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
        "BIOMD_DATA_DIR": str(tmp_path / "data"),
        "BIOMD_EMBED_MODEL": MINILM_NAME,
        "BIOMD_EMBED_MODEL_PATH": str(minilm_path),
        "BIOMD_LLM_BASE_URL": llm.base_url,
        "BIOMD_LLM_API_KEY": "sk-test",
        "BIOMD_LLM_MODEL": "test/model",
        "BIOMD_OWNER_NAMES": "Ana",
        "BIOMD_TIMEZONE": "UTC",
        "BIOMD_READING_PLACEMENT": "rules",
        "BIOMD_MIRROR_DESIGN": "judge",
    }
    llm.notes_for = diligent_notes
    seen = 0

    def judge_slowly_at_the_fourth(body: dict[str, object]) -> object:
        nonlocal seen
        if not is_mirror(body):
            return "OK"
        seen += 1
        return Slow(60, judge_yes(body)) if seen == 4 else judge_yes(body)

    llm.responder = judge_slowly_at_the_fourth  # type: ignore[assignment]
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
        while seen < 4 and time.monotonic() < deadline:
            time.sleep(0.05)
        os.kill(child.pid, signal.SIGKILL)
    kept = db.mirror_judged(path)
    assert len(kept) == 1, "the one judged (twice) before the kill is kept"
    done = subprocess.run(
        [*biomd, "mirror", "--refresh", "--yes", "--json"],
        env=env,
        check=True,
        capture_output=True,
        timeout=300,
        text=True,
    )
    keys = db.mirror_judged(path)
    assert len(keys) == len(set(keys)) and set(kept) <= set(keys)
    assert seen == 2 * len(keys) + 2, "each candidate judged once, the killed one again"
    assert json.loads(done.stdout)["patterns"]
