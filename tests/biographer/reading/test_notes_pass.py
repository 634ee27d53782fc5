"""The notes pass: the reader's quotes checked against the part they claim to quote, replies
read however a server writes them, parts sized to the window and noted once, reading turns
fed the notes, and a source read only when what it says reached a model."""

from __future__ import annotations

import itertools
import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from biomd.app.engine import Engine
from biomd.app.replies import cost_text
from biomd.biographer.json_reply import Unreadable
from biomd.biographer.reading import reader
from biomd.biographer.reading.quotes import locate
from biomd.biographer.reading.reader import Part
from biomd.errors import SpendLimitReached
from biomd.fold import fold_mapped
from biomd.settings import Settings
from tests.conftest import llm_settings
from tests.support import db
from tests.support.fake_llm import FakeLLM, Slow, Status, notes_reply, tool_reply
from tests.support.model_files import MINILM_NAME
from tests.support.reading import given_up, read_round, unread

TEXT = (
    "[2019-04-07 09:12] Grace (owner): Finished the Westport half marathon in 2:04:51!\n"
    "[2019-04-07 09:13] Tom: So proud of you. Dinner at Mario’s tonight?\n"
    "[2019-04-07 09:20] Grace (owner): Yes — and I’m   buying.\n"
)


def find(quote: str, text: str = TEXT) -> str | None:
    span = locate(quote, fold_mapped(text))
    return None if span is None else text[span[0] : span[1]]


def test_a_quote_is_found_exactly_or_with_spacing_case_and_quote_marks_changed() -> None:
    assert find("Finished the Westport half marathon in 2:04:51!") == (
        "Finished the Westport half marathon in 2:04:51!"
    )
    assert find("finished THE westport half\nmarathon") == "Finished the Westport half marathon"
    assert find("Dinner at Mario's tonight?") == "Dinner at Mario’s tonight?"
    assert find('"Yes - and I\'m buying."') == "Yes — and I’m   buying."
    assert find("Finished the Westport ... in 2:04:51") == (
        "Finished the Westport half marathon in 2:04:51"
    )


def test_a_near_miss_a_short_quote_or_one_from_elsewhere_is_refused() -> None:
    assert find("Finished the Westport full marathon in 2:04:51") is None
    assert find("Finished the Westport half marathon in 2:04:15") is None
    assert find("Yes") is None
    assert find("Ran the Dublin marathon in 2018") is None


def part(doc: int, text: str, start: int = 0) -> Part:
    return Part(doc, f"source {doc}", "chat", start, start + len(text), 10_000, text)


def test_each_note_is_checked_against_its_own_part_and_keeps_the_exact_span() -> None:
    a = part(1, TEXT, start=500)
    b = part(2, "Dear diary. Moved to Lisbon in May 2021 for the studio job.\n")
    notes = [
        {
            "source": 1,
            "kind": "event",
            "statement": "Ran a half marathon",
            "date": "2019-04-07",
            "people": [],
            "quote": "half marathon in 2:04:51",
        },
        {
            "source": 2,
            "kind": "event",
            "statement": "Moved to Lisbon",
            "date": "May 2021",
            "people": "Tom and Ana",
            "quote": "moved to lisbon in may 2021",
        },
        {
            "source": 1,
            "kind": "fact",
            "statement": "Moved to Lisbon",
            "date": "",
            "people": [],
            "quote": "Moved to Lisbon in May 2021",
        },  # the quote is from #2
        {
            "source": 2,
            "kind": "feeling",
            "statement": "Invented",
            "date": "",
            "people": [],
            "quote": "I never liked running",
        },
    ]
    checked = reader.verify(notes, [a, b])
    (run,) = checked.found[1]
    assert (run.start, run.end) == (500 + TEXT.index("half"), 500 + TEXT.index("!"))
    assert run.quote == "half marathon in 2:04:51" and run.date == "2019-04-07"
    (moved,) = checked.found[2]
    assert moved.quote == "Moved to Lisbon in May 2021" and moved.date == "2021"
    assert moved.people == ("Tom", "Ana") and moved.kind == "event"
    assert checked.dropped == {1: 1, 2: 1}


@pytest.mark.parametrize(
    "reply",
    [
        '{"notes": [{"quote": "Q1 is here", "statement": "s"}]}',
        'Here are the notes:\n```json\n{"notes": [{"quote": "Q1 is here", "statement": "s"}]}\n```',
        'Sure! {"notes": [{"quote": "Q1 is here", "statement": "s"}]} Hope it helps.',
        '[{"quote": "Q1 is here", "statement": "s"}]',
    ],
)
def test_a_reply_is_read_plain_fenced_with_text_around_or_as_a_bare_list(reply: str) -> None:
    assert reader.parse(reply) == [{"quote": "Q1 is here", "statement": "s"}]


def test_a_reply_cut_short_inside_its_list_keeps_every_whole_note_before_the_cut() -> None:
    # the stream's loop guard (or the length limit) cuts a long list of notes mid-note: the
    # whole notes before the cut are kept, not only the first (as a real 1.5B reader's were)
    whole = [{"quote": f"line {i}", "statement": "Maya was busy."} for i in range(5)]
    reply = json.dumps({"notes": whole}, indent=2)
    cut = reply[: reply.index('"line 4"') + 3]
    assert reader.parse(cut) == whole[:4]
    assert reader.parse("```json\n" + cut) == whole[:4]


@pytest.mark.parametrize("reply", ["", "I could not find anything.", '{"notes": [{"quote": "x"'])
def test_a_reply_with_no_notes_object_is_unreadable(reply: str) -> None:
    with pytest.raises(Unreadable):
        reader.parse(reply)


def test_parts_cover_the_gaps_left_and_small_parts_share_a_call() -> None:
    assert reader.plan(100, [], 40) == [(0, 40), (40, 80), (80, 100)]
    assert reader.plan(100, [(0, 30), (50, 60)], 40) == [(30, 50), (60, 100)]
    assert reader.plan(100, [(0, 100)], 40) == []
    text = "line one\nline two is longer\nline three\n"
    assert reader.cut(text, 0, 30, 1_000) == text.index("line three")
    small = [part(i, "x" * 300) for i in range(1, 6)]
    assert [len(b) for b in reader.batches(small, 1_000)] == [3, 2]
    assert [len(b) for b in reader.batches([part(9, "y" * 5_000), *small], 1_000)] == [1, 3, 2]


# -- end to end, on the fake endpoint ---------------------------------------------------


def settings_for(tmp_path: Path, minilm_path: Path, llm: FakeLLM, **extra: Any) -> Settings:
    return llm_settings(tmp_path, minilm_path, llm, **extra)


async def ingest(engine: Engine, tmp_path: Path, name: str, text: str) -> int:
    doc = await engine.sources.keep_text(text, name)
    pages, at = [], 0
    while at < len(text):
        page = await engine.sources.read(doc, at, 8_000)
        assert page.end > at, f"#{doc} ends at {at}: kept as another source's twin?"
        pages.append(page.text)
        at = page.end
    assert "".join(pages) == text  # so spans can be checked against `text`
    return doc


@pytest.mark.slow
async def test_a_source_is_noted_once_the_notes_fed_to_a_reading_turn_and_it_is_read(
    tmp_path: Path, minilm_path: Path, llm: FakeLLM
) -> None:
    settings = settings_for(tmp_path, minilm_path, llm, reading_placement="model")
    llm.notes.append(
        notes_reply(
            {
                "kind": "event",
                "statement": "Ran the Westport half marathon in 2:04:51",
                "date": "2019-04-07",
                "quote": "Finished the Westport half marathon in 2:04:51!",
            },
            {
                "kind": "person",
                "statement": "Tom is proud of her",
                "people": ["Tom"],
                "quote": "So proud of you",
            },
            {"kind": "fact", "statement": "Invented", "quote": "I moved to Mars"},
        )
    )
    line = "- 2019-04-07: Ran the Westport half marathon in 2:04:51"
    llm.reply_with(
        tool_reply(("edit_profile", {"section": "Timeline", "old_text": "", "new_text": line})),
        "Placed the marathon.",
    )
    async with await Engine.open(settings) as engine:
        doc = await ingest(engine, tmp_path, "WhatsApp Chat with Tom.txt", TEXT)
        results = await read_round(engine)
        assert await unread(engine) == []
        bio = await engine.profile.load()
        cost = cost_text(await engine.usage.account()).splitlines()
        by_word = await engine.searcher.notes.search("marathon", 5)
        by_meaning = await engine.searcher.notes.search("a long running race", 1)
        llm.reply_with(tool_reply(("search_notes", {"about": "Tom"})), "Tom is proud of her [#1].")
        await engine.biographer.chat.ask("What does Tom think of me?")
    assert cost[-2] == "Reading, estimated before against what it cost (newest first):"
    assert re.fullmatch(
        r"\d{4}-\d\d-\d\d, 1 source: estimated [\d,]+ tokens \(\$0\.0000\);"
        r" 3 calls, [\d,]+ tokens \(\$0\.0000\), [+-]\d+%",
        cost[-1],
    ), cost[-1]
    (body,) = llm.reader_bodies
    assert body["response_format"]["type"] == "json_schema"
    assert "Finished the Westport half marathon" in body["messages"][1]["content"]
    notes = db.notes(settings.db_path)
    assert len(notes) == 2
    for note in notes:
        assert TEXT[note.start : note.end] == note.quote
        assert note.integrated_turn == results[0].turn_id
    assert [(p.kept, p.dropped) for p in db.parts(settings.db_path)] == [(2, 1)]
    request = llm.bodies[0]["messages"][-1]["content"]
    assert "Ran the Westport half marathon" in request and "Tom (1)" in request
    assert "buying" not in request  # notes, not the source's pages
    assert f"{line} [#{doc}]" in bio  # cited to the source its notes came from
    assert "1 dropped" in results[-1].reading
    assert by_word[0].statement == "Ran the Westport half marathon in 2:04:51"
    assert by_meaning[0].statement == "Ran the Westport half marathon in 2:04:51"
    assert db.count(settings.db_path, "note_vectors") == 2
    found = llm.bodies[-1]["messages"][-1]["content"]
    assert f'- undated person (Tom): Tom is proud of her — "So proud of you" [#{doc}]' in found


@pytest.mark.slow
async def test_a_server_without_structured_output_still_gives_notes(
    tmp_path: Path, minilm_path: Path, llm: FakeLLM
) -> None:
    llm.structured = False
    fenced = notes_reply({"statement": "Tom asks her to dinner", "quote": "Dinner at Mario's"})
    llm.notes.append(f"Here you go:\n```json\n{fenced}\n```")
    llm.notes.append(notes_reply({"statement": "She pays", "quote": "and I'm buying"}))
    settings = settings_for(tmp_path, minilm_path, llm)
    async with await Engine.open(settings) as engine:
        await ingest(engine, tmp_path, "chat.txt", TEXT)
        await read_round(engine)
        await ingest(engine, tmp_path, "chat2.txt", TEXT + "[2019-04-08 10:00] Tom: Again?\n")
        await read_round(engine)
    formats = [b.get("response_format") is not None for b in llm.reader_bodies]
    assert formats == [True, False, False]  # refused once, then not asked again
    assert len(db.notes(settings.db_path)) == 2


@pytest.mark.slow
async def test_a_malformed_reply_is_retried_then_the_source_waits_with_the_reason(
    tmp_path: Path, minilm_path: Path, llm: FakeLLM
) -> None:
    settings = settings_for(tmp_path, minilm_path, llm, read_attempts=2)
    llm.notes.append("I'm not sure what you want.")
    async with await Engine.open(settings) as engine:
        doc = await ingest(engine, tmp_path, "chat.txt", TEXT)
        await read_round(engine)
        (waiting,) = await unread(engine)
        assert waiting.document_id == doc
        (queued,) = db.reading_queue(settings.db_path)
        assert "not the notes JSON" in (queued.error or ""), queued
        llm.notes.append("still no JSON")
        await read_round(engine)
        assert await unread(engine) == []
        (aside,) = await given_up(engine)
        assert "could not take notes" in aside.why and "2 tries" in aside.why
        await read_round(engine, retry=True)  # the fake now notes it
        assert await given_up(engine) == []
        assert await unread(engine) == []
    assert db.notes_waiting(settings.db_path) == 0, "the notes were taken in"


@pytest.mark.slow
async def test_at_an_8k_window_every_part_reaches_the_reader_whole_before_it_counts(
    tmp_path: Path, minilm_path: Path, llm: FakeLLM
) -> None:
    lines = [
        f"[2020-01-{1 + i % 28:02d} 10:{i % 60:02d}] Grace (owner): Entry {i}: the kiln at the"
        f" studio reached {900 + i} degrees and the blue glaze number {i} came out well."
        for i in range(400)
    ]
    text = "\n".join(lines) + "\n"
    settings = settings_for(
        tmp_path, minilm_path, llm, llm_context_tokens=8192, reading_placement="model"
    )
    async with await Engine.open(settings) as engine:
        await engine.profile.replace(
            "# bio.md\n\n## Timeline\n" + "- filler line [#1]\n" * 400,
            turn_id=None,
            mode="manual",
            reason="setup",
        )
        doc = await ingest(engine, tmp_path, "journal.txt", text)
        await read_round(engine)
        assert await unread(engine) == []
    parts = [(p.start, p.end) for p in db.parts(settings.db_path)]
    assert len(parts) >= 3 and parts[0][0] == 0 and parts[-1][1] == len(text)
    assert all(a[1] == b[0] for a, b in itertools.pairwise(parts))
    sent = "\n".join(b["messages"][1]["content"] for b in llm.reader_bodies)
    for start, end in parts:
        assert text[start:end].strip() in sent
        assert (end - start) / 3.2 < 8192
    assert db.notes_waiting(settings.db_path) == 0 and len(llm.bodies) >= 1
    for body in llm.bodies:  # every reading turn fits the window with its notes whole
        assert len(json.dumps(body["messages"])) / 3.2 < 8192, doc


@pytest.mark.slow
async def test_parts_are_sized_by_the_servers_own_token_count(
    tmp_path: Path, minilm_path: Path, llm: FakeLLM
) -> None:
    """At -c 8192 a part may hold 4,944 tokens; llama.cpp's /tokenize says this text runs at
    2 characters a token (dates and numbers), so parts sized at 3.2 would not fit."""
    llm.routes["/tokenize"] = lambda body: {"tokens": [0] * (len(body["content"]) // 2)}
    lines = [
        f"[2020-01-{1 + i % 28:02d} 10:{i % 60:02d}] Grace (owner): kiln {i} {i * 7}"
        for i in range(700)
    ]  # fmt: skip (a word each: lines of numbers alone are filler)
    text = "\n".join(lines) + "\n"
    settings = settings_for(tmp_path, minilm_path, llm, llm_context_tokens=8192)
    async with await Engine.open(settings) as engine:
        await ingest(engine, tmp_path, "numbers.txt", text)
        await read_round(engine)
        assert await unread(engine) == []
    assert "POST /tokenize" in llm.other
    sent = [b["messages"][1]["content"] for b in llm.reader_bodies]
    assert len(sent) >= 3 and all(len(s) // 2 <= 4_944 + 400 for s in sent)  # + the framing
    parts = [(p.start, p.end) for p in db.parts(settings.db_path)]
    assert parts[0][0] == 0 and parts[-1][1] == len(text)
    assert all(a[1] == b[0] and (b[1] - b[0]) // 2 <= 4_944 for a, b in itertools.pairwise(parts))


@pytest.mark.slow
async def test_a_server_that_cannot_count_is_sized_from_what_its_calls_were_counted_at(
    tmp_path: Path, minilm_path: Path, llm: FakeLLM
) -> None:
    settings = settings_for(tmp_path, minilm_path, llm)
    async with await Engine.open(settings) as engine:
        model = engine.biographer.backend.reader()
        assert await model.count_tokens("x" * 3_000) is None  # no /tokenize, no call yet
        await model.complete_json([{"role": "user", "content": "y" * 30}], {}, "notes")
        assert await model.count_tokens("x" * 3_000) == 1_000  # 30 characters, 10 tokens


@pytest.mark.slow
async def test_forgetting_a_source_forgets_its_notes(
    tmp_path: Path, minilm_path: Path, llm: FakeLLM
) -> None:
    settings = settings_for(tmp_path, minilm_path, llm)
    async with await Engine.open(settings) as engine:
        doc = await ingest(engine, tmp_path, "chat.txt", TEXT)
        await read_round(engine)
        assert db.notes(settings.db_path)
        assert db.word_hits(settings.db_path, "notes_fts", "westport") > 0
        await engine.sources.forget(doc)
    for table in ("notes", "noted_parts", "note_vectors"):
        assert db.count(settings.db_path, table) == 0
    assert db.word_hits(settings.db_path, "notes_fts", "westport") == 0


# -- what it costs, and the owner's choice ------------------------------------------------

CHAT = "".join(
    f"[2023-0{1 + i // 10}-{1 + i % 10:02d} 10:00] {'Grace (owner)' if i % 5 == 0 else 'Tom'}: "
    f"message {i} about the studio, the kiln and the glazes we tried that week.\n"
    for i in range(60)
)


@pytest.mark.slow
async def test_a_costly_source_waits_for_the_owner_and_reads_what_they_chose(
    tmp_path: Path, minilm_path: Path, llm: FakeLLM
) -> None:
    settings = settings_for(tmp_path, minilm_path, llm, read_confirm_tokens=100)
    async with await Engine.open(settings) as engine:
        mine_doc = await ingest(engine, tmp_path, "chat-mine.txt", CHAT)
        # other chats (the same one again would be refused as the same text)
        since_doc = await ingest(
            engine, tmp_path, "chat-since.txt", CHAT.replace("message", "note")
        )
        later_doc = await ingest(
            engine, tmp_path, "chat-later.txt", CHAT.replace("message", "line")
        )
        assert await read_round(engine) == [] and llm.reader_bodies == []
        choices = {c.reading.document_id: c for c in await engine.biographer.cost.choices()}
        assert set(choices) == {mine_doc, since_doc, later_doc}
        whole = choices[mine_doc]
        assert whole.all.prompt_tokens > whole.mine.prompt_tokens > 0
        assert whole.all.usd == 0.0  # a local endpoint: free, so tokens decide
        rows = {r.source.id: r for r in await engine.sources.states()}
        assert rows[mine_doc].estimate == whole.all
        assert rows[mine_doc].reading and "waits for your choice" in str(rows[mine_doc].reading.why)

        await engine.biographer.cost.choose(mine_doc, "mine")
        await engine.biographer.cost.choose(since_doc, "since:2023-05")
        await engine.biographer.cost.hold(later_doc)
        await read_round(engine)
        pending = [r.document_id for r in await unread(engine)]
        assert pending == [later_doc], "not now: it waits"
        choices = await engine.biographer.cost.choices()
        assert [c.reading.document_id for c in choices] == [later_doc]
    sent = {doc: "" for doc in (mine_doc, since_doc, later_doc)}
    for body in llm.reader_bodies:
        for doc, block in re.findall(
            r"<source_data id=(\d+)>\n(.*?)\n</source_data>", body["messages"][1]["content"], re.S
        ):
            sent[int(doc)] += block
    mine_lines = [ln for ln in sent[mine_doc].splitlines() if ln]
    owner = [i for i, ln in enumerate(CHAT.splitlines()) if "(owner)" in ln]
    for i, ln in enumerate(CHAT.splitlines()):
        near = any(abs(i - j) <= 3 for j in owner)
        assert (ln in mine_lines) == near, ln
    since_lines = [ln for ln in sent[since_doc].splitlines() if ln]
    assert since_lines and all(
        ln.startswith("[2023-05") or ln.startswith("[2023-06") for ln in since_lines
    )
    assert sent[later_doc] == ""


@pytest.mark.slow
async def test_an_anthropic_model_gets_cache_marks_after_the_stable_parts(
    tmp_path: Path, minilm_path: Path, llm: FakeLLM
) -> None:
    settings = settings_for(
        tmp_path,
        minilm_path,
        llm,
        llm_model="anthropic/claude-sonnet-4.5",
        reading_placement="model",
    )
    llm.reply_with(
        tool_reply(("read_source", {"document_id": 1, "offset": 0, "length": 100})), "Read."
    )
    async with await Engine.open(settings) as engine:
        await ingest(engine, tmp_path, "chat.txt", TEXT)
        await read_round(engine)
    mark = {"type": "ephemeral"}
    (reader_body,) = llm.reader_bodies
    assert reader_body["messages"][0]["content"][0]["cache_control"] == mark
    first, second = llm.bodies
    for body in (first, second):
        system, opening = body["messages"][0], body["messages"][1]
        assert system["content"][0]["cache_control"] == mark
        assert opening["content"][0]["cache_control"] == mark
        assert opening["content"][0]["text"].startswith("New notes on 1 source")
    assert "cache_control" not in json.dumps(second["messages"][2:])


@pytest.mark.slow
async def test_calls_side_by_side_stop_starting_once_the_days_limit_is_spent(
    tmp_path: Path, minilm_path: Path, llm: FakeLLM
) -> None:
    settings = settings_for(
        tmp_path,
        minilm_path,
        llm,
        reading_part_chars=1000,
        reader_concurrency=3,
        daily_spend_limit_usd=0.001,
        llm_price_prompt_per_mtok=1000.0,  # each call costs $0.01: one spends the day
    )
    text = "".join(
        f"[2020-01-01 10:00] Grace (owner): line {i} about the kiln.\n" for i in range(150)
    )
    llm.notes.extend(Slow(0.3, notes_reply()) for _ in range(20))
    async with await Engine.open(settings) as engine:
        await ingest(engine, tmp_path, "long.txt", text)
        assert await read_round(engine) == [], "so costly it waits for a choice"
        await engine.biographer.cost.choose(1, "all")
        with pytest.raises(SpendLimitReached):
            await read_round(engine)
        assert len(llm.reader_bodies) == 3, "the first three ran side by side; no more began"
        with pytest.raises(SpendLimitReached):
            await read_round(engine)
        assert len(llm.reader_bodies) == 3 and llm.bodies == []
    noted = [p for p in db.parts(settings.db_path) if p.noted]
    assert len(noted) == 3, "what the calls under way brought back is kept"


@pytest.mark.slow
def test_a_crash_in_the_notes_pass_resumes_with_no_duplicate_and_no_lost_note(
    tmp_path: Path, minilm_path: Path, llm: FakeLLM
) -> None:
    env = {
        **os.environ,
        "BIOMD_DATA_DIR": str(tmp_path / "data"),
        "BIOMD_EMBED_MODEL": MINILM_NAME,
        "BIOMD_EMBED_MODEL_PATH": str(minilm_path),
        "BIOMD_LLM_BASE_URL": llm.base_url,
        "BIOMD_LLM_API_KEY": "sk-test",
        "BIOMD_LLM_MODEL": "test/model",
        "BIOMD_READING_PART_CHARS": "1000",
        "BIOMD_OWNER_NAMES": "Grace",
    }
    text = "".join(
        f"[2020-01-{1 + i % 28:02d} 10:00] Grace (owner): day {i} at the kiln.\n"
        for i in range(120)
    )
    source = tmp_path / "journal.txt"
    source.write_text(text)
    biomd = [
        sys.executable,
        "-m",
        "biomd",
        "ingest",
        str(source),
        "--no-read",
        "--no-embed",
    ]
    subprocess.run(biomd, env=env, check=True, capture_output=True, timeout=120)
    path = tmp_path / "data" / "biomd.sqlite3"
    llm.notes.extend(Slow(0.4, json.dumps({"notes": []})) for _ in range(2))
    llm.notes.append(Slow(60, "never"))  # the process is killed while it waits for this
    with subprocess.Popen(
        [sys.executable, "-m", "biomd", "analyse", "--pending"],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    ) as child:
        deadline = time.monotonic() + 60
        while len(llm.reader_bodies) < 3 and time.monotonic() < deadline:
            time.sleep(0.05)
        os.kill(child.pid, signal.SIGKILL)
    before = [(p.start, p.end) for p in db.parts(path) if p.noted]
    assert len(before) == 2, "two parts were noted before the crash"
    llm.notes.clear()  # from now on each part gets a note quoting its first line
    subprocess.run(
        [*biomd[:3], "analyse", "--pending"], env=env, check=True, capture_output=True, timeout=120
    )
    parts = [(p.start, p.end) for p in db.parts(path)]
    assert parts[0][0] == 0 and parts[-1][1] == len(text)
    assert all(a[1] == b[0] for a, b in itertools.pairwise(parts)), "no gap, no overlap"
    assert set(before) <= set(parts)
    spans = [(n.start, n.end, n.statement) for n in db.notes(path)]
    assert len(spans) == len(set(spans)) == len(parts) - 2, "one note per part noted after"
    assert [q.done for q in db.reading_queue(path)] == [True]


def test_a_note_that_copied_the_source_into_its_statement_rests_on_those_words() -> None:
    notes = [
        {"statement": "Finished the Westport half marathon in 2:04:51 and was proud", "quote": ""},
        {"statement": "Ran a marathon somewhere once", "quote": ""},  # no five words of it
    ]
    checked = reader.verify(notes, [part(1, TEXT)])
    (kept,) = checked.found[1]
    assert kept.quote == "Finished the Westport half marathon in 2:04:51"
    assert checked.dropped[1] == 1


@pytest.mark.slow
async def test_a_part_whose_every_quote_is_missing_is_not_counted_as_read(
    tmp_path: Path, minilm_path: Path, llm: FakeLLM
) -> None:
    settings = settings_for(tmp_path, minilm_path, llm, read_attempts=2)
    invented = notes_reply({"statement": "Went to Mars", "quote": "I went to Mars in 2019"})
    llm.notes.extend([invented, invented])
    async with await Engine.open(settings) as engine:
        await ingest(engine, tmp_path, "chat.txt", TEXT)
        await read_round(engine)
        (waiting,) = await unread(engine)
        assert waiting.next_offset == 0 and llm.bodies == []
        await read_round(engine)
        (aside,) = await given_up(engine)
    assert "none of the reader's 1 quotes was found" in aside.why


@pytest.mark.slow
async def test_a_source_passed_over_in_a_shared_call_gets_a_call_of_its_own(
    tmp_path: Path, minilm_path: Path, llm: FakeLLM
) -> None:
    settings = settings_for(tmp_path, minilm_path, llm)
    llm.notes.append(notes_reply({"source": 1, "statement": "A race", "quote": "half marathon"}))
    async with await Engine.open(settings) as engine:
        await ingest(engine, tmp_path, "a.txt", TEXT)
        await ingest(engine, tmp_path, "b.txt", "Dear diary. Moved to Lisbon in May 2021.\n")
        await read_round(engine)
    shared, alone = (b["messages"][1]["content"] for b in llm.reader_bodies)
    assert "<source_data id=1>" in shared and "<source_data id=2>" in shared
    assert "<source_data id=2>" in alone and "<source_data id=1>" not in alone
    assert sorted(n.document_id for n in db.notes(settings.db_path)) == [1, 2]


@pytest.mark.slow
async def test_a_source_whose_notes_in_a_shared_call_all_quote_another_gets_a_call_of_its_own(
    tmp_path: Path, minilm_path: Path, llm: FakeLLM
) -> None:
    # as the 1.5B reader did on the sample life: one note for the chat with Mum, quoting a
    # journal; the chat was left for a next round, and its facts were missing
    settings = settings_for(tmp_path, minilm_path, llm)
    race = {"statement": "A race", "quote": "half marathon"}
    llm.notes.append(notes_reply({"source": 1} | race, {"source": 2} | race))
    async with await Engine.open(settings) as engine:
        await ingest(engine, tmp_path, "a.txt", TEXT)
        await ingest(engine, tmp_path, "b.txt", "Dear diary. Moved to Lisbon in May 2021.\n")
        await read_round(engine)
        assert await unread(engine) == []
    shared, alone = (b["messages"][1]["content"] for b in llm.reader_bodies)
    assert "<source_data id=1>" in shared and "<source_data id=2>" in shared
    assert "<source_data id=2>" in alone and "<source_data id=1>" not in alone
    assert sorted(n.document_id for n in db.notes(settings.db_path)) == [1, 2]


MARATHON = {
    "kind": "event",
    "statement": "She ran the Westport half marathon in 2:04:51",
    "date": "2019-04-07",
    "quote": "Finished the Westport half marathon in 2:04:51!",
}


@pytest.mark.slow
async def test_rules_place_the_notes_first_and_the_biographer_tidies(
    tmp_path: Path, minilm_path: Path, llm: FakeLLM
) -> None:
    settings = settings_for(tmp_path, minilm_path, llm, reading_placement="rules")
    llm.notes.append(
        notes_reply(
            MARATHON,
            {
                "kind": "person",
                "statement": "Proud of her, asks her to dinner",
                "people": ["Tom"],
                "quote": "So proud of you",
            },
            {"kind": "gap", "statement": "Who is Mario", "quote": "Dinner at Mario's tonight?"},
        )
    )
    llm.reply_with("Tidied.")
    async with await Engine.open(settings) as engine:
        doc = await ingest(engine, tmp_path, "chat.txt", TEXT)
        await read_round(engine)
        bio = await engine.profile.load()
        history = await engine.profile.history()
    assert f"- 2019-04-07: She ran the Westport half marathon in 2:04:51 [#{doc}]" in bio
    assert f"- Tom: Proud of her, asks her to dinner [#{doc}]" in bio
    assert re.search(rf"- \[Q\d+\] Who is Mario\? \[#{doc}\]", bio)
    assert [h.reason for h in history[:2]] == [
        "questions and contradictions by rules",  # "Where did you grow up, … before 2019?"
        "notes placed by rules",
    ]
    assert "Do not add them again" in llm.bodies[0]["messages"][-1]["content"]


@pytest.mark.slow
async def test_a_reading_turn_that_places_nothing_leaves_its_notes_placed_by_rules(
    tmp_path: Path, minilm_path: Path, llm: FakeLLM
) -> None:
    settings = settings_for(tmp_path, minilm_path, llm, reading_placement="model")
    llm.notes.append(notes_reply(MARATHON))
    llm.reply_with("I read the notes.")  # the weak model's whole turn: no edit
    async with await Engine.open(settings) as engine:
        doc = await ingest(engine, tmp_path, "chat.txt", TEXT)
        (result,) = await read_round(engine)
        bio = await engine.profile.load()
        history = await engine.profile.history()
    assert f"- 2019-04-07: She ran the Westport half marathon in 2:04:51 [#{doc}]" in bio
    assert history[1].reason == "the model placed none of its notes"
    assert "the model placed none of its 1 note; 1 went in by rules" in result.reading


def test_the_default_places_notes_by_rules_first_as_setup_does_for_a_local_server() -> None:
    assert Settings(_env_file=None).reading.placement == "rules"  # type: ignore[call-arg]


@pytest.mark.slow
async def test_a_part_too_long_for_the_window_is_halved_and_read_not_left_waiting(
    tmp_path: Path, minilm_path: Path, llm: FakeLLM
) -> None:
    settings = settings_for(tmp_path, minilm_path, llm, reading_part_chars=8_000)
    too_long = Status(
        400, message="the request exceeds the available context size, try increasing it"
    )
    llm.notes.append(too_long)  # what llama.cpp answers at -c 16384 to 17,691 tokens
    llm.reply_with("Placed.")
    text = "".join(f"[2019-04-{d:02d} 10:00] Ana (owner): ran {d} km by the river today\n"
                   for d in range(1, 29)) * 3  # fmt: skip
    assert 2 * 1_500 < len(text) < 8_000  # one part, long enough to halve
    async with await Engine.open(settings) as engine:
        doc = await ingest(engine, tmp_path, "chat.txt", text)
        await read_round(engine)
        (pending,) = [
            r for r in await unread(engine, include_set_aside=True) if r.document_id == doc
        ] or [None]
    whole, *halves = [b["messages"][1]["content"] for b in llm.reader_bodies]
    assert len(halves) == 2 and all(len(h) < len(whole) * 0.7 for h in halves)
    assert pending is None  # every part was noted after the split: read, not waiting


async def test_an_older_databases_extracts_are_its_notes_still_found_and_linked(
    tmp_path: Path,
) -> None:
    """The `notes` migration renames the reader's extracts to notes: each keeps its vector,
    its noted part, the mirror candidate resting on it, and is found by its words."""
    from biomd.storage.store import Store

    path = tmp_path / "biomd.sqlite3"
    db.old_database(path, before="notes")
    doc_id = db.old_source(path, "mum.txt", ["Mum moved to Westport in 2019."], index_words=True)
    said = "Mum moved to Westport"
    note_id = db.old_note(path, doc_id, said, said, b"\0" * 8)

    store = await Store.open(path)
    try:
        assert [n.statement for n in await store.notes.of_ready()] == ["Mum moved to Westport"]
        assert [i for i, _ in await store.notes.match('"westport"', 5)] == [note_id]
        assert await store.notes.vectors() == [(note_id, b"\0" * 8)]
        assert [p.kept for p in await store.notes.parts(doc_id)] == [1]
        (judged,) = await store.mirror.judged()
        assert judged.notes_for == (note_id,)
        await store.documents.delete(doc_id)
        assert await store.notes.match('"westport"', 5) == [], "forgotten with its source"
    finally:
        await store.close()
    assert db.user_version(path) == len(db.MIGRATIONS)
