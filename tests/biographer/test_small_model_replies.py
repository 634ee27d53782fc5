"""The biographer against replies shaped like a real small model's. Every shape here was sent
by Qwen2.5-Coder-1.5B-Instruct behind llama.cpp's llama-server (see bench/RESULTS.md), and
each is played back by the fake OpenAI-compatible server."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from biomd.app.engine import Engine
from biomd.biographer.context import ELIDED, RESULTS_HEAD
from biomd.biographer.loop import CUT_OFF_NOTE
from biomd.errors import LLMError
from tests.conftest import llm_settings
from tests.support import db
from tests.support.fake_llm import FakeLLM, Status, text_reply, tool_reply
from tests.support.reading import read_round, unread
from tests.support.samples import add_sources
from tests.support.waiting import wait_until

pytestmark = pytest.mark.slow  # whole Engines reading and answering through the fake LLM


def results_message(body: dict[str, Any]) -> str:
    (message,) = [
        m for m in body["messages"] if str(m.get("content") or "").startswith(RESULTS_HEAD)
    ]
    return str(message["content"])


async def hung_up(llm: FakeLLM) -> None:
    """Wait for the fake server to notice that biomd closed the stream early."""
    await wait_until(lambda: llm.streams_abandoned == 1, lambda: [str(llm.streams_finished)], 5)


SEARCH = '{"name": "search", "arguments": {"query": "kiln"}}'
SHAPES = {
    "fenced json": f"I will search.\n```json\n{SEARCH}\n```",
    "tools tag": f"<tools>{SEARCH}</tools>",
    "tool_call tag": f"<tool_call>\n{SEARCH}\n</tool_call>",
    "type function": (
        '{"type": "function", "function": {"name": "search", '
        '"arguments": "{\\"query\\": \\"kiln\\"}"}}'
    ),
    "function element": (
        '<function><name>search</name><arguments>{"query": "kiln"}</arguments></function>'
    ),
    "function with xml arguments": (
        "<tools>\n  <function>\n    <name>search</name>\n    <arguments>\n"
        "      <query>kiln</query>\n    </arguments>\n  </function>\n</tools>"
    ),
    "function attributes": (
        '<tools>\n    <function name="search" arguments=\'{"query": "kiln"}\'/>\n</tools>\n'
        "<response>\n    <summary>\n        <p>Nothing is known"
    ),
    "function equals": '<function=search>{"query": "kiln"}</function>',
    "function parameters": "<function=search><parameter=query>kiln</parameter></function>",
    "tag named for the tool": '<search>\n{"query": "kiln"}\n</search>',
    "bare arguments": '{"query": "kiln"}',
}


@pytest.mark.parametrize("shape", list(SHAPES))
async def test_a_tool_call_written_as_text_is_run_in_every_shape_the_model_used(
    bio_engine: Engine, llm: FakeLLM, shape: str
) -> None:
    (doc,) = await add_sources(bio_engine, ["The kiln in the shed reached 1,200 degrees."])
    llm.reply_with(text_reply(SHAPES[shape]), "The kiln reached 1,200 degrees [#1].")
    result = await bio_engine.biographer.chat.ask("Look up how hot the kiln got.")
    assert result.text_calls == 1 and result.steps == 2
    assert result.report == "The kiln reached 1,200 degrees [#1]."
    results = results_message(llm.bodies[1])
    assert f'<tool_result name="search">\n[#{doc} ' in results
    assert "<source_data>\nThe kiln in the shed" in results
    assert llm.bodies[1]["messages"][-2] == {"role": "assistant", "content": SHAPES[shape]}


async def test_a_tool_definition_echoed_back_is_not_taken_for_a_call(
    bio_engine: Engine, llm: FakeLLM
) -> None:
    await add_sources(bio_engine, ["The kiln in the shed reached 1,200 degrees."])
    echo = (  # as the model sent it: the schema, then the call
        '<tools>\n  {"type": "function", "function": {"name": "read_source", "description": '
        '"Read an exact slice.", "parameters": {"additionalProperties": false, "properties": '
        '{"document_id": {"type": "integer"}}, "required": ["document_id"], "type": "object"}}}'
        '\n</tools>\n\n```\n{\n  "name": "read_source",\n  "arguments": {\n    '
        '"document_id": 1,\n    "offset": 0\n  }\n}\n```'
    )
    llm.reply_with(echo, "1,200 degrees [#1].")
    result = await bio_engine.biographer.chat.ask("How hot?")
    assert result.text_calls == 1
    assert "#1 'note-0.txt'" in results_message(llm.bodies[1])


async def test_several_text_calls_in_one_reply_all_run_in_order(
    bio_engine: Engine, llm: FakeLLM
) -> None:
    await add_sources(bio_engine, ["The kiln in the shed reached 1,200 degrees."])
    two = (
        '<tool_call>\n{"name": "grep", "arguments": {"pattern": "shed"}}\n</tool_call>\n'
        '<tool_call>\n{"name": "read_source", "arguments": {"document_id": 1}}\n</tool_call>'
    )
    llm.reply_with(two, "In the shed [#1].")
    result = await bio_engine.biographer.chat.ask("Look up where the kiln is.")
    assert result.text_calls == 2
    results = results_message(llm.bodies[1])
    assert results.index('<tool_result name="grep">') < results.index('name="read_source">')
    assert "1 mention of 'shed'" in results and "#1 'note-0.txt', text" in results


async def test_a_broken_text_call_goes_back_as_an_error_and_is_never_the_report(
    bio_engine: Engine, llm: FakeLLM
) -> None:
    broken = '<tool_call>{"name": "search", "arguments": {"query": "kiln"</tool_call>'
    unknown = '```json\n{"name": "teleport", "arguments": {"to": "Paris"}}\n```'
    llm.reply_with(broken, unknown, "Nothing in the sources about that.")
    result = await bio_engine.biographer.chat.ask("Where is the kiln?")
    assert result.report == "Nothing in the sources about that."
    first_error = llm.bodies[1]["messages"][-1]
    assert first_error["role"] == "user"
    assert first_error["content"].startswith(
        "Error: This looks like a tool call, but it could not be read as JSON"
    )
    assert "names no tool biomd has" in llm.bodies[2]["messages"][-1]["content"]


async def test_thinking_and_tool_result_echoes_are_not_shown_to_the_owner(
    bio_engine: Engine, llm: FakeLLM
) -> None:
    llm.reply_with(
        "<think>The owner wants the kiln.</think>I could not find it."
        "<tool_response>\nNo passages found.\n</tool_response>"
    )
    result = await bio_engine.biographer.chat.ask("Where is the kiln?")
    assert result.report == "I could not find it."


async def test_a_text_call_ends_the_streamed_reply_before_the_model_imagines_the_result(
    bio_engine: Engine, llm: FakeLLM
) -> None:
    await add_sources(bio_engine, ["The kiln in the shed reached 1,200 degrees."])
    call = '```json\n{"name": "read_source", "arguments": {"document_id": 1}}\n```'
    imagined = "\n\n# note-0.txt\n\nNina (owner): I have a friend in New York who" * 60
    llm.stream_delay = 0.002
    llm.reply_with(text_reply(call + imagined, "length"), "The kiln reached 1,200 degrees [#1].")
    # a request, not a question: even a local model is offered the tools
    result = await bio_engine.biographer.chat.ask("Look up how hot the kiln got")
    await hung_up(llm)  # once the call was complete
    assert result.report == "The kiln reached 1,200 degrees [#1]." and not result.cut_off
    echoed = llm.bodies[1]["messages"][-2]
    assert echoed == {"role": "assistant", "content": call}, "the imagined result is not kept"
    assert "New York" not in json.dumps(llm.bodies[1])


# -- reading is done only when it was done --------------------------------------------------


async def test_a_reading_turn_that_breaks_leaves_its_notes_waiting_for_the_next_round(
    tmp_path: Path, minilm_path: Path, llm: FakeLLM, embedder: object
) -> None:
    settings = llm_settings(tmp_path, minilm_path, llm, llm_max_retries=0)
    note = tmp_path / "kiln.txt"
    note.write_text("The kiln in the shed reached 1,200 degrees.")
    async with await Engine.open(settings, embedder) as engine:  # type: ignore[arg-type]
        [r async for r in engine.sources.ingest([note])]
        llm.reply_with(Status(503))
        with pytest.raises(LLMError, match="503"):
            await read_round(engine)
        assert [p.document_id for p in await unread(engine)] == [1]
        assert db.notes_waiting(settings.db_path) == 1
        llm.reply_with("A note about the kiln.")
        (second,) = await read_round(engine)
        assert second.reading.startswith("read #1 kiln.txt")
        assert await unread(engine) == []
    assert len(llm.reader_bodies) == 1, "the notes were kept, not taken again"
    assert db.notes_waiting(settings.db_path) == 0


def every_line(body: dict[str, Any]) -> list[dict[str, Any]]:
    """A reader that notes every line of what it is given."""
    text = body["messages"][-1]["content"].split("\n", 2)[-1]
    return [
        {"source": 1, "kind": "habit", "statement": ln, "date": "", "people": [], "quote": ln}
        for ln in text.splitlines()
        if ln.startswith("Day ")
    ]


async def test_a_source_read_halfway_keeps_its_progress(
    tmp_path: Path, minilm_path: Path, llm: FakeLLM, embedder: object
) -> None:
    settings = llm_settings(
        tmp_path,
        minilm_path,
        llm,
        reading_part_chars=1000,
        reading_notes_chars=1000,
        llm_max_retries=0,
    )
    note = tmp_path / "long.txt"
    note.write_text("".join(f"Day {i}: glazed pots in the shed.\n" for i in range(100)))
    total = len(note.read_text())
    llm.notes_for = every_line
    async with await Engine.open(settings, embedder) as engine:  # type: ignore[arg-type]
        [r async for r in engine.sources.ingest([note])]
        llm.reply_with("Took the first notes in.", Status(503))
        with pytest.raises(LLMError):
            await read_round(engine)
        (waiting,) = await unread(engine)
        assert 0 < waiting.next_offset < total
        (row,) = await engine.sources.states()
        assert row.reading is not None and row.reading.state == "reading"
        assert 0 <= row.reading.parts_done < row.reading.parts == 4
        llm.default_reply = "Took the rest in."
        results = await read_round(engine)
        assert await unread(engine) == []
    assert results[-1].reading.startswith("read #1 long.txt")
    integrated = {n.integrated_turn for n in db.notes(settings.db_path)}
    assert None not in integrated and len(integrated) == len(results) + 1


# -- edits -----------------------------------------------------------------------------------


async def test_edit_arguments_under_the_names_models_reach_for(
    bio_engine: Engine, llm: FakeLLM
) -> None:
    llm.reply_with(
        tool_reply(("edit_profile", {"new": "- Designer", "section": "Identity"})),
        tool_reply(("edit_profile", {"old_string": "- Designer", "new_string": "- A designer"})),
        tool_reply(("edit_profile", {"find": "- A designer", "replace": "- A type designer"})),
        tool_reply(("edit_profile", {"old_text": "", "new_text": "- Likes tea"})),
        "Noted.",
    )
    result = await bio_engine.biographer.chat.ask("I am a type designer and I like tea.")
    bio = await bio_engine.profile.load()
    assert "## Identity\n- A type designer\n" in bio and "Likes tea" not in bio
    assert result.edits == 3 and len(result.refused) == 1
    refusal = llm.bodies[4]["messages"][-1]["content"]
    assert refusal.startswith("Error: An append (empty old_text) needs a section")
    assert "Summary, Identity, Timeline, People & relationships" in refusal
    assert result.outcome == "3 edits (Identity), 1 refused"


async def test_an_edit_citing_a_source_it_never_saw_or_that_does_not_exist_is_refused(
    bio_engine: Engine, llm: FakeLLM
) -> None:
    await add_sources(bio_engine, ["Moved to Lisbon in February 2021.", "Sam is an old friend."])
    append = lambda text: ("edit_profile", {"new_text": text, "section": "Timeline"})  # noqa: E731
    llm.reply_with(
        tool_reply(("read_source", {"document_id": 1})),
        tool_reply(append("- 2021-02: Moved to Lisbon [#3, #8]")),
        tool_reply(append("- 2021-02: Moved to Lisbon [#2]")),
        tool_reply(append("- 2021-02-25: Talked about Lisbon [chat 2021-02-25]")),
        tool_reply(append("- 2021-02: Moved to Lisbon [#1]")),
        "Added the move [#1].",
    )
    result = await bio_engine.biographer.chat.ask("Put my move in the timeline.")
    errors = [b["messages"][-1]["content"] for b in llm.bodies[2:5]]
    assert errors[0].startswith("Error: Refused: this edit cites #3, #8, which this turn")
    assert "you may cite: #1." in errors[0]
    assert errors[1].startswith("Error: Refused: this edit cites #2")
    assert errors[2].startswith("Error: Refused: there is no chat message from the owner on")
    assert "2021-02-25" in errors[2]
    assert "- 2021-02: Moved to Lisbon [#1]" in await bio_engine.profile.load()
    assert result.edits == 1 and len(result.refused) == 3


async def test_loosely_written_source_ids_are_citations_and_are_checked_as_such(
    bio_engine: Engine, llm: FakeLLM
) -> None:
    await add_sources(bio_engine, ["Handed in my notice today."])
    add = lambda text: ("edit_profile", {"new_text": text, "section": "Timeline"})  # noqa: E731
    llm.reply_with(
        tool_reply(("read_source", {"document_id": 1})),
        tool_reply(add("- 2020-12-18: Handed in her notice. #10")),  # as the model wrote it
        tool_reply(add("- 2020-12-18: Handed in her notice (#1).")),
        "<tools>",  # the model's way of ending its turn
    )
    result = await bio_engine.biographer.chat.ask("When did I resign?")
    refused = llm.bodies[2]["messages"][-1]["content"]
    assert refused.startswith("Error: Refused: this edit cites #10")
    assert "- 2020-12-18: Handed in her notice [#1]." in await bio_engine.profile.load()
    assert result.steps == 4
    assert result.report.startswith("(The biographer ended the turn without a word.)")


async def test_invented_ids_in_an_answer_are_flagged_and_not_fed_back_as_true(
    bio_engine: Engine, llm: FakeLLM
) -> None:
    await add_sources(bio_engine, ["Moved to Lisbon in February 2021."])
    llm.reply_with(
        tool_reply(("search", {"query": "Lisbon"})),
        "Three sources mention the move [#1, #25], and we spoke of it [chat 2021-02-25].",
        "Sure.",
    )
    result = await bio_engine.biographer.chat.ask("Look up my move.")
    assert result.report.startswith(
        "Three sources mention the move [#1, #25?], and we spoke of it [chat 2021-02-25?]."
    )
    assert result.report.endswith(
        "(biomd: #25, chat 2021-02-25 are not among your sources or chat; what rests on it "
        "is unsupported.)"
    )
    await bio_engine.biographer.chat.ask("And then?")
    tail = llm.bodies[-1]["messages"][2]
    assert tail["role"] == "assistant" and "[#1, #25?]" in tail["content"]


async def test_a_claim_of_edits_that_did_not_happen_is_corrected(
    bio_engine: Engine, llm: FakeLLM
) -> None:
    llm.reply_with("I updated bio.md with your new job.")
    result = await bio_engine.biographer.chat.ask("I have a new job.")
    assert result.report == (
        "I updated bio.md with your new job.\n\n(biomd: no change was made to bio.md in this turn.)"
    )


# -- bounded replies -------------------------------------------------------------------------


async def test_a_reply_cut_off_at_its_limit_is_continued_or_marked_as_cut_off(
    bio_engine: Engine, llm: FakeLLM
) -> None:
    llm.reply_with(text_reply("You moved to Lis", "length"), "bon in 2021.")
    whole = await bio_engine.biographer.chat.ask("Tell me about my move.")
    assert whole.report == "You moved to Lisbon in 2021." and not whole.cut_off
    assert llm.bodies[1]["messages"][-1]["content"].startswith("Your reply was cut off")
    assert all(b["max_tokens"] == 1024 for b in llm.bodies)

    llm.reply_with(*[text_reply("\n\n\n", "length")] * 3)
    cut = await bio_engine.biographer.chat.ask("Tell me everything.")
    assert cut.cut_off
    assert cut.report.endswith(f"({CUT_OFF_NOTE})")


@pytest.mark.parametrize(
    "loop",
    ["\n" * 6000, '"new_text": "- 2024-06-02: Mum posted the old cycling maps" - #26", ' * 60],
    ids=["newlines", "the same line"],
)
async def test_a_reply_that_repeats_itself_is_cut_short(
    bio_engine: Engine, llm: FakeLLM, loop: str
) -> None:
    llm.stream_delay = 0.002
    llm.reply_with(text_reply("Here is what I found." + loop, "length"))
    result = await bio_engine.biographer.chat.ask("Tell me everything.")
    await hung_up(llm)
    assert result.steps == 1 and result.cut_off
    assert result.report.startswith("Here is what I found.")
    assert len(result.report) < 3000, "cut well before the 6,000 characters it would run to"


async def test_the_same_call_three_times_is_not_run_a_third_time(
    bio_engine: Engine, llm: FakeLLM
) -> None:
    same = tool_reply(("search", {"query": "kiln"}))
    llm.reply_with(same, same, same, "Nothing found.")
    await bio_engine.biographer.chat.ask("Where is the kiln?")
    outputs = [b["messages"][-1]["content"] for b in llm.bodies[1:4]]
    assert outputs[0] == outputs[1] == "No passages found."
    assert outputs[2].startswith("Error: you have made exactly this search call 3 times")


@pytest.mark.parametrize(
    ("reply", "report"),
    [
        (
            '```json\n{"name": "report", "arguments": {"text": "Read the race entry; '
            'nothing new."}}\n```',
            "Read the race entry; nothing new.",
        ),
        (
            '{"name": "edit_profile", "arguments": {"section": "", "old_text": "", '
            '"new_text": "", "reason": "No changes needed."}}',
            "No changes needed.",
        ),
    ],
    ids=["a made-up report tool", "an edit that changes nothing"],
)
async def test_the_ways_a_small_model_ends_its_turn_are_taken_as_its_report(
    bio_engine: Engine, llm: FakeLLM, reply: str, report: str
) -> None:
    llm.reply_with(reply)
    result = await bio_engine.biographer.chat.ask("Anything new?")
    assert result.report == report and result.steps == 1


async def test_a_model_going_round_in_circles_is_stopped_and_asked_for_its_report(
    bio_engine: Engine, llm: FakeLLM
) -> None:
    missing = [
        tool_reply(("edit_profile", {"old_text": f"line {i}", "new_text": "x"})) for i in range(3)
    ]
    broken = '<tool_call>{"name": "search", "arguments": {"query": "a"</tool_call>'
    llm.reply_with(*missing, broken, "Nothing new in this one.")
    result = await bio_engine.biographer.chat.ask("Anything new?")
    assert result.report.startswith("Nothing new in this one.") and result.steps == 5
    assert llm.bodies[1]["messages"][-1]["content"].startswith(
        "Error: old_text was not found in bio.md"
    )
    last = llm.bodies[4]
    assert "tools" not in last, "the report is asked for without tools"
    assert last["messages"][-1]["content"].startswith("Your last steps all failed")


async def test_a_turn_that_outgrows_the_context_window_drops_old_results_first(
    tmp_path: Path, minilm_path: Path, llm: FakeLLM, embedder: object
) -> None:
    settings = llm_settings(
        tmp_path, minilm_path, llm, llm_context_tokens=3000, llm_max_tokens=256, chat_tail=4
    )
    big = "".join(f"Line {i}: the shed, the kiln and the glazes, again.\n" for i in range(400))
    async with await Engine.open(settings, embedder) as engine:  # type: ignore[arg-type]
        await add_sources(engine, [big])
        llm.reply_with("One.", "Two.")
        await engine.biographer.chat.ask("first")
        await engine.biographer.chat.ask("second")
        reads = [
            tool_reply(("read_source", {"document_id": 1, "offset": o, "length": 2500}))
            for o in range(0, 10000, 2500)
        ]
        llm.reply_with(*reads, "Read it all.")
        await engine.biographer.chat.ask("read the notes")
    budget_chars = (3000 - 256 - 256) * 3.2
    bodies = llm.bodies[2:]
    for body in bodies:
        chars = sum(len(str(m.get("content") or "")) + 16 for m in body["messages"])
        chars += sum(len(json.dumps(m.get("tool_calls", ""))) for m in body["messages"])
        assert chars <= budget_chars + 100
    last = bodies[-1]["messages"]
    assert any(m.get("content") == ELIDED for m in last), "the oldest results went first"
    assert last[-1]["role"] == "tool" and last[-1]["content"].startswith("#1 'note-0.txt'")


async def test_the_context_window_is_asked_of_ollama_and_llama_cpp(
    tmp_path: Path, minilm_path: Path, llm: FakeLLM, embedder: object
) -> None:
    from biomd.models.context_window import context_tokens

    root = llm.base_url.removesuffix("/v1")
    local = llm_settings(tmp_path, minilm_path, llm, llm_base_url=f"{root}/v1").endpoint()
    assert await context_tokens(local) == 8192, "a local server that says nothing"
    llm.routes["/props"] = {"default_generation_settings": {"n_ctx": 16384}}
    assert await context_tokens(local) == 16384, "llama.cpp's /props"
    llm.routes["/api/version"] = {"version": "0.12.0"}
    assert await context_tokens(local) == 4096, "Ollama without num_ctx: its default"
    llm.routes["/api/show"] = {"parameters": "stop <|im_end|>\nnum_ctx 32768"}
    assert await context_tokens(local) == 32768, "the model's num_ctx"
    override = llm_settings(tmp_path, minilm_path, llm, llm_context_tokens=12000)
    assert await context_tokens(override.endpoint()) == 12000


async def test_a_bio_md_too_big_for_the_context_window_is_consolidated_first(
    tmp_path: Path, minilm_path: Path, llm: FakeLLM, embedder: object
) -> None:
    settings = llm_settings(tmp_path, minilm_path, llm, llm_context_tokens=2048, llm_max_tokens=256)
    lines = "".join(f"- 20{10 + i % 10}: an event, number {i} [#1]\n" for i in range(120))
    async with await Engine.open(settings, embedder) as engine:  # type: ignore[arg-type]
        await add_sources(engine, ["A note."])
        big = (await engine.profile.load()).replace("## Timeline\n", "## Timeline\n" + lines)
        await engine.profile.replace(big, turn_id=None, mode="manual", reason="setup")
        tighter = big.replace(lines, "- 2010–2019: a hundred and twenty events [#1]\n")
        llm.reply_with(tighter, "Hello.")
        result = await engine.biographer.chat.ask("hi")
    first, second = llm.bodies
    assert first["messages"][0]["content"].startswith("You are the biographer of one person")
    assert "tidying their biography" in first["messages"][0]["content"], "consolidation first"
    assert result.report == "Hello."
    assert "a hundred and twenty events" in second["messages"][0]["content"]


async def test_while_reading_a_source_every_added_line_cites_it(
    tmp_path: Path, minilm_path: Path, llm: FakeLLM, embedder: object
) -> None:
    settings = llm_settings(tmp_path, minilm_path, llm)
    note = tmp_path / "2019-04-07.md"
    note.write_text("Ran the Bath half marathon this morning. 2:04:51.\n\nTwo years, no cigarette.")
    pasted = "- 2019-04-07: " + note.read_text()  # the source, copied as the model did
    async with await Engine.open(settings, embedder) as engine:  # type: ignore[arg-type]
        [r async for r in engine.sources.ingest([note])]
        llm.reply_with(
            tool_reply(("edit_profile", {"section": "Timeline", "new_text": "- Ran a race"})),
            tool_reply(("read_source", {"document_id": 1})),
            tool_reply(("edit_profile", {"section": "Timeline", "new_text": pasted})),
            tool_reply(
                (
                    "edit_profile",
                    {
                        "section": "Timeline",
                        "new_text": "- 2019-04-07: Ran the Bath half in 2:04:51",
                    },
                )
            ),
            tool_reply(
                (
                    "edit_profile",
                    {
                        "section": "Identity",
                        "new_text": "- Stopped smoking around 2017 (as per [1]) <source_data>",
                    },
                )
            ),
            "Read it.",
        )
        (result,) = await read_round(engine)
        bio = await engine.profile.load()
    given = llm.bodies[1]["messages"][-1]["content"]
    assert given.startswith("Done: bio.md changed"), "the notes of #1 were in the request"
    copied = llm.bodies[3]["messages"][-1]["content"]
    assert copied.startswith("Error: Refused: that looks like the source's text copied")
    assert "- Ran a race [#1]" in bio, "cited to the source whose notes the turn was given"
    assert "- 2019-04-07: Ran the Bath half in 2:04:51 [#1]" in bio, "cited to what it read"
    assert "- Stopped smoking around 2017 (as per [#1])\n" in bio, "the echoed wrapper is gone"
    assert result.edits == 3 and len(result.refused) == 1
