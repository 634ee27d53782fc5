"""The shapes pass through a whole Engine: the owner's own lines read from the sources (no
notes needed), each shape's questions asked one at a time and twice, a shape proposed only
when every question it needs says yes, its statement in the owner's language with verified
quotes; with no model, the strongest shapes shown as worth a look and nothing else (and,
where a line shows signs of crisis, where to find help)."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest

from bench import mirror_life_es
from bench.mirror_notes_life import CRISIS, write_notes_life
from biomd.app.engine import Engine
from biomd.app.mirror.care import HELP
from biomd.retrieval.embedding import FastEmbedder
from tests.conftest import llm_settings, make_settings
from tests.support.fake_llm import FakeLLM, content
from tests.support.mirror_fakes import is_mirror

pytestmark = pytest.mark.slow  # planted lives ingested by whole Engines


def question(body: dict[str, Any]) -> str:
    return content(body["messages"][-1])


def answer(yes: bool) -> str:
    return json.dumps({"answer": "yes" if yes else "no"})


async def ingest(engine: Engine, files: list[Path]) -> None:
    async for r in engine.sources.ingest(files):
        assert r.status == "added", r.error


async def test_each_question_is_asked_alone_twice_and_a_no_keeps_a_shape_out(
    tmp_path: Path, minilm_path: Path, llm: FakeLLM, embedder: FastEmbedder
) -> None:
    # the model says yes to everything but London: that contradiction must not be proposed
    llm.responder = lambda body: answer("London" not in question(body)) if is_mirror(body) else "OK"
    settings = llm_settings(tmp_path, minilm_path, llm, owner_names="Ana")
    async with await Engine.open(settings, embedder) as engine:
        await ingest(engine, write_notes_life(tmp_path / "life"))
        plan = await engine.mirror.plan()
        assert plan.calls > 0 and plan.estimate.prompt_tokens > 0
        report = await engine.mirror.refresh()
        assert report.judged == len(plan.todo) and not report.stopped  # type: ignore[attr-defined]
        view = (await engine.mirror.view()).as_json()
    weighed = [b for b in llm.bodies if is_mirror(b) and b.get("logprobs")]
    assert len(weighed) == 1  # asked once for its chances; this server gives none
    asked = [b for b in llm.bodies if is_mirror(b) and not b.get("logprobs")]
    assert len(asked) + 1 == report.calls  # type: ignore[union-attr]
    for body in asked:
        text = question(body)
        assert body["response_format"]["type"] == "json_schema"
        assert len(text) < 1500 and text.count("\u201c") <= 2  # one or two lines, no more
        assert CRISIS not in text
    swapped = [question(b) for b in asked if "opposite things" in question(b)]
    assert len(swapped) == 1  # London's first asking said no: not asked again
    patterns: list[dict[str, Any]] = view["patterns"]  # type: ignore[assignment]
    kinds = {p["kind"] for p in patterns}
    assert kinds == {"avoidance", "stated_reason", "said_vs_did", "cycle"}
    assert all(p["statement"].startswith("You wrote") for p in patterns)
    avoidance = next(p for p in patterns if p["kind"] == "avoidance")
    assert "to Maya" in avoidance["statement"] and "all good" in avoidance["statement"]


def chances(yes: float) -> dict[str, Any]:
    """A reply of one word with its likeliest first tokens, as llama.cpp gives them."""
    tops = [("yes", yes), ("no", 1 - yes), ("Yes", 0.0)]
    return {
        "id": "chatcmpl-weighed",
        "object": "chat.completion",
        "created": 0,
        "model": "test/model",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": "yes" if yes >= 0.5 else "no"},
                "logprobs": {
                    "content": [
                        {
                            "token": "yes" if yes >= 0.5 else "no",
                            "logprob": math.log(max(yes, 1 - yes)),
                            "top_logprobs": [
                                {"token": t, "logprob": math.log(p) if p > 0 else -99.0}
                                for t, p in tops
                            ],
                        }
                    ]
                },
                "finish_reason": "length",
            }
        ],
        "usage": {"prompt_tokens": 120, "completion_tokens": 1, "total_tokens": 121},
    }


async def test_where_the_server_gives_chances_a_shape_holds_only_when_its_lines_make_yes_likelier(
    tmp_path: Path, minilm_path: Path, llm: FakeLLM, embedder: FastEmbedder
) -> None:
    # a model that leans to yes whatever it is shown (0.35 for no line at all), and more
    # for real lines (0.6), but not for London's (0.4: less than twice the blank's odds)
    def weigh(body: dict[str, Any]) -> object:
        if not is_mirror(body):
            return "OK"
        text = question(body)
        return chances(0.35 if "N/A" in text else 0.4 if "London" in text else 0.6)

    llm.responder = weigh  # type: ignore[assignment]
    settings = llm_settings(tmp_path, minilm_path, llm, owner_names="Ana")
    async with await Engine.open(settings, embedder) as engine:
        await ingest(engine, write_notes_life(tmp_path / "life"))
        plan = await engine.mirror.plan()
        report = await engine.mirror.refresh()
        view = (await engine.mirror.view()).as_json()
    asked = [b for b in llm.bodies if is_mirror(b)]
    assert asked and all(b["logprobs"] and b["max_tokens"] == 1 for b in asked)
    assert all("response_format" not in b for b in asked)
    assert len(asked) == report.calls <= plan.calls  # type: ignore[union-attr]
    blanks = [question(b) for b in asked if "N/A" in question(b)]
    assert blanks and len(blanks) == len(set(blanks))  # a blank question is asked once
    # each order that sways a small model: the answers both ways, two lines both ways
    opposite = [question(b) for b in asked if "opposite things" in question(b)]
    assert len(opposite) == 2 * 2 * 2  # London's lines and the blank ones, four orders each
    patterns: list[dict[str, Any]] = view["patterns"]  # type: ignore[assignment]
    assert {p["kind"] for p in patterns} == {"avoidance", "stated_reason", "said_vs_did", "cycle"}


async def test_a_quote_is_the_source_text_at_its_span(
    tmp_path: Path, minilm_path: Path, llm: FakeLLM, embedder: FastEmbedder
) -> None:
    llm.responder = lambda body: answer(True) if is_mirror(body) else "OK"
    settings = llm_settings(tmp_path, minilm_path, llm, owner_names=mirror_life_es.OWNER)
    async with await Engine.open(settings, embedder) as engine:
        await ingest(engine, mirror_life_es.write_life(tmp_path / "life"))
        await engine.mirror.refresh()
        view = (await engine.mirror.view()).as_json()
        patterns: list[dict[str, Any]] = view["patterns"]  # type: ignore[assignment]
        assert len(patterns) >= 5
        for p in patterns:
            assert p["statement"].startswith("Escribiste")  # the owner's language
            for e in p["evidence"]:
                text = await engine.store.chunks.text(e["source_id"], e["start"], e["end"])
                assert text == e["quote"]
        # forgetting a source takes the patterns resting on its lines with it
        gone = patterns[0]["evidence"][0]["source_id"]
        await engine.sources.forget(gone)
        after = (await engine.mirror.view()).as_json()["patterns"]
        assert all(
            e["source_id"] != gone
            for p in after  # type: ignore[attr-defined]
            for e in p["evidence"]
        )


async def test_with_no_model_the_strongest_shapes_are_worth_a_look_and_nothing_else(
    tmp_path: Path, minilm_path: Path, embedder: FastEmbedder
) -> None:
    settings = make_settings(tmp_path / "data", minilm_path, owner_names="Ana")
    async with await Engine.open(settings, embedder) as engine:
        await ingest(engine, write_notes_life(tmp_path / "life"))
        view = (await engine.mirror.view()).as_json()
    patterns: list[dict[str, Any]] = view["patterns"]  # type: ignore[assignment]
    assert patterns
    assert view["care"] == HELP  # a line of crisis, with no model and no notes: where to find help
    for p in patterns:
        assert p["confidence"] == "worth a look"
        assert p["statement"].startswith("Worth a look: \u201c")
        assert len(p["evidence"]) >= 2
        assert not any(CRISIS in e["quote"] for e in p["evidence"])
