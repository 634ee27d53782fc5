"""The pure seams of the biographer and the bots, each tested alone and fast: reading tool
calls out of text, keeping a turn inside the context window, how far reading got, splitting
replies for a platform, the loop's decision after each reply, and a tool made from one
function."""

from __future__ import annotations

import json
from typing import Annotated

from hypothesis import given
from hypothesis import strategies as st
from pydantic import Field

from biomd.app.channels import split_message
from biomd.biographer.context import ELIDED, RESULTS_HEAD, estimate, fit
from biomd.biographer.reading.reading_round import covered_to
from biomd.biographer.steps import CONTINUATIONS, Broken, Continue, Final, RunTools, decide
from biomd.biographer.tools import PARAMS
from biomd.errors import NotFound
from biomd.models.llm import Reply, ToolCall
from biomd.models.text_calls import parse
from biomd.models.tools import Done, Failed, aliased, openai_tools, tool

# -- text_calls.parse ---------------------------------------------------------------------------


def test_a_json_call_in_a_fence_is_a_call_and_the_text_around_it_is_kept() -> None:
    text = 'Let me look.\n```json\n{"name": "search", "arguments": {"query": "kiln"}}\n```'
    parsed = parse(text, PARAMS)
    assert [(c.name, json.loads(c.arguments)) for c in parsed.calls] == [
        ("search", {"query": "kiln"})
    ]
    assert parsed.problems == [] and parsed.text == "Let me look."


def test_bare_arguments_are_matched_to_the_tool_whose_parameters_they_are() -> None:
    parsed = parse('{"document_id": 3, "offset": 0}', PARAMS)
    assert [c.name for c in parsed.calls] == ["read_source"]


def test_a_call_that_cannot_be_read_is_a_problem_not_a_report() -> None:
    parsed = parse('<tool_call>{"name": "search", "arguments": {"query": </tool_call>', PARAMS)
    assert parsed.calls == [] and parsed.problems


def test_plain_prose_has_no_calls_and_no_problems() -> None:
    parsed = parse("You moved to Lisbon in 2021 [#1].", PARAMS)
    assert parsed.calls == [] and parsed.problems == []


# -- context.fit --------------------------------------------------------------------------------


def _turn(results: int, size: int) -> list[dict[str, str]]:
    messages = [
        {"role": "system", "content": "rules and bio.md"},
        {"role": "user", "content": "an earlier question"},
        {"role": "user", "content": "the new message"},
    ]
    for i in range(results):
        messages.append({"role": "assistant", "content": f"call {i}"})
        messages.append({"role": "user", "content": f"{RESULTS_HEAD}\n" + "x" * size})
    return messages


def test_what_fits_is_left_alone() -> None:
    messages = _turn(2, 100)
    assert fit(messages, estimate(messages), opening=2) == messages


def test_the_oldest_results_go_first_and_the_newest_stay_whole() -> None:
    messages = _turn(4, 4000)
    budget = estimate(messages) - 2000
    fitted = fit(messages, budget, opening=2)
    assert estimate(fitted) <= budget
    assert ELIDED in fitted[4]["content"], "the oldest result is elided"
    assert fitted[-1] == messages[-1], "the newest result is kept whole"
    assert fitted[0] == messages[0] and fitted[2] == messages[2], "rules and message stay"
    assert messages[4]["content"].endswith("x"), "the turn's own messages are not changed"


def test_then_the_chat_tail_goes_and_at_last_the_newest_result_is_cut() -> None:
    messages = _turn(1, 40_000)
    fitted = fit(messages, 3000, opening=2)
    assert {"role": "user", "content": "an earlier question"} not in fitted
    assert "cut here to fit the context window" in fitted[-1]["content"]


# -- covered_to --------------------------------------------------------------------------------


def test_reading_counts_only_up_to_the_first_gap() -> None:
    assert covered_to([(0, 100), (100, 250)], 0) == 250
    assert covered_to([(0, 100), (150, 250)], 0) == 100, "a gap stops the count"
    assert covered_to([(120, 300), (0, 130)], 0) == 300, "in any order, overlapping"
    assert covered_to([(500, 900)], 400) == 400, "nothing read from the start"
    assert covered_to([], 7) == 7


@given(st.lists(st.tuples(st.integers(0, 50), st.integers(0, 50)), max_size=8), st.integers(0, 50))
def test_covered_to_never_goes_back_and_every_character_to_it_was_read(
    ranges: list[tuple[int, int]], start: int
) -> None:
    spans = [(min(a, b), max(a, b)) for a, b in ranges]
    reached = covered_to(spans, start)
    assert reached >= start
    assert all(any(lo <= i < hi for lo, hi in spans) for i in range(start, reached))


# -- split_message ------------------------------------------------------------------------------


def test_a_reply_is_split_at_paragraphs_then_lines_then_sentences() -> None:
    text = "First paragraph.\n\nSecond one, longer than the first.\nIts second line."
    assert split_message(text, 40) == [
        "First paragraph.",
        "Second one, longer than the first.",
        "Its second line.",
    ]
    assert split_message("A short one. Then a much longer sentence.", 30) == [
        "A short one.",
        "Then a much longer sentence.",
    ]
    assert split_message("x" * 25, 10) == ["x" * 10, "x" * 10, "x" * 5], "no break: a hard cut"


@given(st.text(alphabet=st.sampled_from("ab .\n"), max_size=400), st.integers(5, 60))
def test_every_piece_fits_and_nothing_but_whitespace_is_lost(text: str, limit: int) -> None:
    pieces = split_message(text, limit)
    assert all(len(p) <= limit for p in pieces)
    assert "".join(pieces).replace(" ", "").replace("\n", "") == text.replace(" ", "").replace(
        "\n", ""
    )


# -- the loop's decision -------------------------------------------------------------------------


def test_a_native_call_is_run() -> None:
    call = ToolCall("c1", "search", '{"query": "kiln"}')
    assert decide(Reply("", [call]), 0) == RunTools([call])


def test_a_call_written_as_text_is_run_as_text() -> None:
    step = decide(Reply('{"name": "grep", "arguments": {"pattern": "kiln"}}'), 3)
    assert isinstance(step, RunTools) and step.as_text
    assert [(c.id, c.name) for c in step.calls] == [("text_3_0", "grep")]


def test_a_call_that_cannot_be_read_is_broken() -> None:
    step = decide(Reply('<tool_call>{"name": "grep", "arguments": </tool_call>'), 1)
    assert isinstance(step, Broken) and step.problems


def test_prose_is_the_report_and_a_cut_off_report_is_continued_then_joined() -> None:
    assert decide(Reply("All done."), 2) == Final("All done.")
    assert decide(Reply("Half of it", finish_reason="length"), 2) == Continue("Half of it")
    parts = ["a"] * CONTINUATIONS
    assert decide(Reply("b", finish_reason="length"), 4, parts) == Final(
        "a" * CONTINUATIONS + "b", cut_off=True
    )


def test_a_small_models_way_of_ending_the_turn_is_its_report() -> None:
    report = '{"name": "final_answer", "arguments": {"text": "You moved in 2021, says [#1]."}}'
    assert decide(Reply(report), 5) == Final("You moved in 2021, says [#1].")
    empty_edit = ToolCall("c", "edit_profile", '{"old_text": "", "new_text": "", "reason": "x"}')
    assert decide(Reply("", [empty_edit]), 5) == Final("x")


# -- a tool is one function ---------------------------------------------------------------------


@tool
async def look_up(
    shelf: dict[int, str],
    item: Annotated[int, aliased("item", "id", description="Which one.")],
    upper: Annotated[bool, Field(description="Shout it.")] = False,
) -> str:
    """Look one thing up
    on the shelf."""
    if item not in shelf:
        raise NotFound(f"There is no item {item}.")
    return shelf[item].upper() if upper else shelf[item]


async def test_a_functions_name_docstring_and_parameters_are_the_tool() -> None:
    (offered,) = openai_tools([look_up])
    assert offered["function"]["name"] == "look_up"
    assert offered["function"]["description"] == "Look one thing up on the shelf."
    params = offered["function"]["parameters"]
    assert params["required"] == ["item"] and params["additionalProperties"] is False
    assert params["properties"]["upper"] == {
        "default": False,
        "description": "Shout it.",
        "type": "boolean",
    }
    shelf = {1: "kiln"}
    assert await look_up(shelf, {"id": 1, "upper": True}) == Done("KILN")
    assert await look_up(shelf, '{"item": 2}') == Failed("There is no item 2.")
    wrong = await look_up(shelf, {"item": 1, "colour": "red"})
    assert isinstance(wrong, Failed) and wrong.message.startswith("wrong arguments for look_up")
