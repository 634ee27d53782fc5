"""Reading turns as one call (biomd/biographer/reading/reading_turn.py): the reply is the edits
and a one-line report under a JSON schema; routine notes go in by rules and only the rest
reach a turn; a doubtful note is checked at the cost of a step; turns over different notes
run side by side with one writer, and an edit another turn overtook is not lost."""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from biomd.app.engine import Engine
from biomd.biographer.reading import estimate, reading_turn
from biomd.biographer.reading.estimate import Cache, Estimate, Prices, Sizes
from biomd.biographer.reading.placement import MONTH_LINES, PERSON_LINE, SECTION_LINES, Room, place
from biomd.biographer.reading.reading_cost import cache_of, spread
from biomd.biographer.reading.reading_turn import Edit, Plan, merged, new_lines, parse
from biomd.settings import Settings
from biomd.storage.notes import Note
from tests.conftest import llm_settings
from tests.support import db
from tests.support.fake_llm import FakeLLM, content, notes_reply
from tests.support.reading import read_round, unread

# -- pure ------------------------------------------------------------------------------------


def test_a_reply_is_read_however_the_json_was_written() -> None:
    edit = {"section": "Patterns", "old_text": "", "new_text": "- Runs [#1]"}
    plain = json.dumps({"edits": [edit], "check": [], "report": "One pattern."})
    assert parse(plain) == Plan((Edit("Patterns", "", "- Runs [#1]"),), (), "One pattern.")
    assert parse(f"Here:\n```json\n{plain}\n```") == parse(plain)
    assert parse(json.dumps([edit])).edits == (Edit("Patterns", "", "- Runs [#1]"),)
    aliased = json.dumps({"edits": [{"heading": "Patterns", "new": "- Runs [#1]"}]})
    assert parse(aliased).edits == (Edit("Patterns", "", "- Runs [#1]"),)
    assert parse("Nothing new in these notes.") == Plan(report="Nothing new in these notes.")
    checks = json.dumps({"edits": [], "check": ["a", "b", "c", "d", " "], "report": ""})
    assert parse(checks).check == ("a", "b", "c")


def test_additions_to_one_section_are_one_edit_and_changes_stay_apart() -> None:
    edits = [
        Edit("Patterns", "", "- Runs at dawn [#1]"),
        Edit("Timeline", "", "- 2019: Moved [#2]"),
        Edit("patterns", "", "- Runs at dawn [#1]\n- Drinks tea [#3]"),
        Edit("Patterns", "- Old line [#1]", "- New line [#1]"),
    ]
    assert merged(edits) == [
        Edit("Patterns", "", "- Runs at dawn [#1]\n- Drinks tea [#3]"),
        Edit("Timeline", "", "- 2019: Moved [#2]"),
        Edit("Patterns", "- Old line [#1]", "- New line [#1]"),
    ]
    bio = "## Patterns\n- Runs at dawn [#1]\n"
    assert new_lines(bio, "- runs at DAWN [#1]\n- Drinks tea [#3]") == "- Drinks tea [#3]"


def test_the_preview_prices_the_providers_prompt_cache() -> None:
    sizes = Sizes(
        part_chars=60_000,
        reader_fixed_chars=2_600,
        notes_chars=24_000,
        turn_fixed_chars=7_000,
        concurrency=4,
        reader_prices=Prices(0.15, 0.60),
        prices=Prices(0.15, 0.60),
        local=False,
        turns_at_once=4,
    )
    plain = estimate.reading(50_000_000, sizes)
    openai = estimate.reading(50_000_000, Sizes(**{**_fields(sizes), "cache": Cache(0.5)}))
    anthropic = estimate.reading(50_000_000, Sizes(**{**_fields(sizes), "cache": Cache(0.1, 1.25)}))
    assert plain.cached_usd is None and plain.usd is not None
    assert openai.usd == plain.usd and anthropic.usd == plain.usd
    assert openai.cached_usd is not None and anthropic.cached_usd is not None
    assert anthropic.cached_usd < openai.cached_usd < plain.usd
    assert "with the provider's prompt cache" in openai.describe()
    assert "prompt cache" not in plain.describe()
    filtered = estimate.reading(50_000_000, sizes, sent=35_000_000)
    assert filtered.prompt_tokens < plain.prompt_tokens * 0.8  # the chat filter's saving
    both = openai + Estimate(1, 10, 1, 0.01, 1.0)
    assert both.cached_usd == pytest.approx((openai.cached_usd or 0) + 0.01)


def test_a_long_sources_share_sent_is_measured_on_stretches_spread_over_it() -> None:
    assert spread([(0, 100), (200, 1_000)], 50, 4) == [(0, 50), (325, 375), (550, 600), (775, 825)]
    assert spread([(0, 10)], 50, 2) == [(0, 10), (5, 10)]


def test_rules_fill_bio_md_only_as_far_as_its_budget_holds() -> None:
    bio = "# bio.md\n\n## Timeline\n\n## People & relationships\n\n## Patterns\n"
    notes = [
        note(i, "event", f"2020-0{1 + i % 2}-1{i % 9}", f"Did thing number {i}") for i in range(9)
    ]
    notes += [note(20 + i, "habit", "", f"Habit number {i}") for i in range(5)]
    notes += [note(40 + i, "person", "", f"Knows Ana, fact {i}", ["Ana"]) for i in range(30)]
    placed, n = place(bio, notes, Room(per_month=2, per_section=3))
    assert len(re.findall(r"^- 2020-01", placed, re.M)) == 2
    assert len(re.findall(r"^- 2020-02", placed, re.M)) == 2
    assert len(re.findall(r"^- Habit number", placed, re.M)) == 3
    (ana,) = re.findall(r"^- Ana: .*$", placed, re.M)  # one line, full at PERSON_LINE
    assert PERSON_LINE <= len(ana) < PERSON_LINE + 40
    unbounded, m = place(bio, notes)
    assert m > n and len(re.findall(r"^- 2020-01", unbounded, re.M)) == 5
    assert Room.within(30_000, 60).per_month == MONTH_LINES  # a long span: the floor
    assert Room.within(30_000, 1).per_month > 100


def note(i: int, kind: str, date: str, statement: str, people: Sequence[str] = ()) -> Note:
    return Note(
        id=i, document_id=1, start=i, end=i + 1, kind=kind, statement=statement,
        quote=statement, date=date or None, people=tuple(people), integrated_turn=None,
    )  # fmt: skip


def _fields(sizes: Sizes) -> dict[str, Any]:
    return {f: getattr(sizes, f) for f in sizes.__slots__}


def test_the_cache_priced_is_the_providers(tmp_path: Path) -> None:
    def cache(**values: Any) -> Cache | None:
        settings = Settings(_env_file=None, data_dir=tmp_path, **values)  # type: ignore[call-arg]
        return cache_of(settings)

    assert cache(llm_model="openai/gpt-4o-mini") == Cache(0.5, 1.0)
    assert cache(llm_model="anthropic/claude-sonnet-4.5") == Cache(0.1, 1.25)
    assert cache(llm_base_url="http://127.0.0.1:8080/v1") is None
    assert cache(llm_model="x/y", prompt_cache="anthropic", cache_read_price_share=0.2) == Cache(
        0.2, 1.25
    )
    assert cache(prompt_cache="none") is None


# -- end to end, on the fake endpoint --------------------------------------------------------

CHAT = (
    "[2019-04-07 09:12] Grace (owner): Finished the Westport half marathon in 2:04:51!\n"
    "[2019-04-07 09:15] Tom: So proud of you\n"
    "[2019-04-07 09:20] Grace (owner): Honestly I always feel like a fraud at these races\n"
    "[2019-04-07 09:21] Tom: You always say that, and you always finish\n"
)
MARATHON = {
    "kind": "event",
    "statement": "She ran the Westport half marathon in 2:04:51",
    "date": "2019-04-07",
    "quote": "Finished the Westport half marathon in 2:04:51!",
}
FRAUD = {
    "kind": "feeling",
    "statement": "Feels like a fraud at races",
    "date": "2019-04-07",
    "quote": "I always feel like a fraud at these races",
}
TOM = {
    "kind": "claim",
    "statement": "Tom says she always doubts herself and always finishes",
    "people": ["Tom"],
    "quote": "You always say that, and you always finish",
}


@pytest.mark.slow
async def test_routine_notes_go_in_by_rules_and_a_turn_judges_the_rest_in_one_call(
    tmp_path: Path, minilm_path: Path, llm: FakeLLM
) -> None:
    settings = llm_settings(tmp_path, minilm_path, llm)
    llm.notes.append(notes_reply(MARATHON, FRAUD, TOM))
    pattern = "- Doubts herself before races, and finishes them anyway (confidence: medium) [#1]"
    llm.reply_with(
        json.dumps(
            {
                "edits": [
                    {"section": "Patterns", "old_text": "", "new_text": pattern},
                    {"section": "Open questions", "old_text": "", "new_text": "- Why a fraud?"},
                    {"section": "Patterns", "old_text": "", "new_text": pattern},
                ],
                "check": [],
                "report": "A race day chat with Tom; one pattern and a question.",
            }
        )
    )
    async with await Engine.open(settings) as engine:
        await engine.sources.keep_text(CHAT, "WhatsApp Chat with Tom.txt")
        results = await read_round(engine)
        assert await unread(engine) == []
        bio = await engine.profile.load()
        history = await engine.profile.history()
    (turn,) = llm.bodies  # one call: the edits and the report together
    assert turn["response_format"]["json_schema"]["schema"] == reading_turn.SCHEMA
    assert "tools" not in turn
    request = content(turn["messages"][-1])
    assert "Feels like a fraud" in request and "Tom says she always doubts" in request
    assert "Westport half marathon" not in request  # placed by rules, not sent again
    assert "- 2019-04-07: She ran the Westport half marathon in 2:04:51 [#1]" in bio
    assert bio.count(pattern) == 1
    assert re.search(r"- \[Q\d+\] Why a fraud\?", bio)
    reasons = [h.reason for h in history]
    assert reasons.count("reading") == 2, reasons  # the merged Patterns edit, the question
    assert "notes placed by rules" in reasons
    assert results[-1].report.startswith("A race day chat with Tom")
    assert db.notes_waiting(settings.db_path) == 0


@pytest.mark.slow
async def test_a_doubtful_note_is_checked_at_the_cost_of_a_step(
    tmp_path: Path, minilm_path: Path, llm: FakeLLM
) -> None:
    settings = llm_settings(tmp_path, minilm_path, llm)
    llm.notes.append(notes_reply(FRAUD))
    line = "- Says she feels like a fraud at races (confidence: high) [#1]"
    llm.reply_with(
        json.dumps({"edits": [], "check": ["fraud at these races"], "report": ""}),
        json.dumps(
            {
                "edits": [{"section": "Patterns", "old_text": "", "new_text": line}],
                "check": [],
                "report": "Checked the quote; one pattern.",
            }
        ),
    )
    async with await Engine.open(settings) as engine:
        await engine.sources.keep_text(CHAT, "WhatsApp Chat with Tom.txt")
        (result,) = [r for r in await read_round(engine) if r.steps]
        bio = await engine.profile.load()
    _, second = llm.bodies
    checked = content(second["messages"][-1])
    assert checked.startswith(reading_turn.CHECKED) and "feel like a fraud" in checked
    assert line in bio and result.steps == 2 and result.edits == 1


@pytest.mark.slow
async def test_turns_side_by_side_have_one_writer_and_lose_no_edit(
    tmp_path: Path, minilm_path: Path, llm: FakeLLM
) -> None:
    settings = llm_settings(
        tmp_path, minilm_path, llm, reader_concurrency=3, reading_notes_chars=1_000
    )
    at_once = [0, 0]  # now, most
    lock = threading.Lock()

    def judged(body: dict[str, Any]) -> list[dict[str, Any]]:
        text = content(body["messages"][-1])
        return [
            {"source": int(d), "kind": "habit", "date": "", "people": [],
             "statement": f"Glazes pots late at night in the studio, batch {d}, every week",
             "quote": block.splitlines()[-1]}
            for d, block in re.findall(r"<source_data id=(\d+)>\n(.*?)\n</source_data>", text, re.S)
        ]  # fmt: skip

    def turn(body: dict[str, Any]) -> str:
        with lock:
            at_once[0] += 1
            at_once[1] = max(at_once[1], at_once[0])
        time.sleep(0.4)
        with lock:
            at_once[0] -= 1
        notes = content(body["messages"][-1]).split("<notes>")[1]
        docs = sorted(set(re.findall(r"\[#(\d+)\]", notes)), key=int)
        if len(docs) > 3:  # a line citing a source the turn was not given: refused alone
            docs.append("99")
        edits = [
            {"section": "Patterns", "old_text": "", "new_text": f"- Glazes often [#{d}]"}
            for d in docs
        ]  # every turn also rewrites the same line, from its first source
        edits.append(
            {"section": "Identity", "old_text": "- A potter [#1]", "new_text": f"- A potter, "
             f"who glazes (batch {docs[0]}) [#{docs[0]}]"}
        )  # fmt: skip
        return json.dumps({"edits": edits, "check": [], "report": f"{len(docs)} sources."})

    llm.notes_for = judged
    llm.responder = turn
    async with await Engine.open(settings) as engine:
        for i in range(24):
            await engine.sources.keep_text(
                f"Journal {i}\n\nDay {i}: glazed a batch of pots, number {i}.\n", f"j{i}.md"
            )
        await engine.profile.replace(
            "# bio.md\n\n## Identity\n- A potter [#1]\n\n## Patterns\n",
            turn_id=None,
            mode="manual",
            reason="setup",
        )
        results = await read_round(engine)
        bio = await engine.profile.load()
        history = await engine.profile.history(500)
    turns = [r for r in results if r.steps]
    assert len(turns) >= 3 and at_once[1] >= 2, (len(turns), at_once)
    for d in range(1, 25):  # every source's line, once
        assert bio.count(f"- Glazes often [#{d}]") == 1, d
    by_rules = sum(f"batch {d}, every week [#{d}]" in bio for d in range(1, 25))
    assert SECTION_LINES <= by_rules < 24  # as far as bio.md holds in the window
    assert db.notes_waiting(settings.db_path) == 0
    assert "[#99]" not in bio and all(len(r.refused) == 1 for r in turns if len(r.sources) > 3)
    rewrites = re.findall(r"- A potter, who glazes \(batch (\d+)\)", bio)
    assert len(rewrites) == len(turns)  # one replaced the line; the others went in as new lines
    assert sum(h.reason == "reading" for h in history) >= 2 * len(turns)  # each edit a revision
