"""More pure seams, each tested alone and fast: packing items into batches under a budget, a
tool call's period, a chat transcript's line stamps, a note's longest run of its source's
words, and the evidence a chat turn starts from."""

from __future__ import annotations

import itertools
from datetime import date

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import TypeAdapter, ValidationError

from biomd.biographer.evidence import NOTHING, ShownPassage, query, render, with_evidence
from biomd.biographer.period import Day, overlaps, phrase, within
from biomd.biographer.reading.packing import pack
from biomd.biographer.reading.quotes import RUN_WORDS, longest_run
from biomd.fold import fold_mapped
from biomd.ingest.timestamps import (
    line_facts,
    line_months,
    line_speakers,
    line_stamps,
    span,
    strip_line_stamps,
)
from biomd.storage.notes import Note

# -- packing.pack -----------------------------------------------------------------------------


@given(st.lists(st.integers(min_value=0, max_value=50)), st.integers(min_value=1, max_value=60))
def test_batches_keep_the_order_and_each_fits_unless_one_item_is_bigger_alone(
    sizes: list[int], budget: int
) -> None:
    batches = pack(sizes, lambda n: n, budget)
    assert list(itertools.chain.from_iterable(batches)) == sizes
    assert all(batch for batch in batches)
    for batch in batches:
        assert sum(batch) <= budget or len(batch) == 1
    for a, b in itertools.pairwise(batches):  # a batch ends only where the next item won't fit
        assert sum(a) + b[0] > budget


def test_an_item_bigger_than_the_budget_goes_alone_between_the_others() -> None:
    assert pack([3, 3, 9, 3], lambda n: n, 6) == [[3, 3], [9], [3]]
    assert pack([], len, 5) == []


# -- period ----------------------------------------------------------------------------------


def test_a_date_is_within_a_period_to_the_precision_the_period_was_given_in() -> None:
    assert within("2019-04-07", "2019", "2019")
    assert within("2019-04-07", "2019-04", "")
    assert not within("2019-03-31", "2019-04", "")
    assert within("2019-04-30 23:59", "", "2019-04")
    assert not within("2019-05-01", "", "2019-04")
    assert within(None, "", ""), "no period: everything, undated too"
    assert not within(None, "2019", ""), "an undated thing is in no period"


def test_a_span_meets_a_period_when_any_of_it_falls_in_it() -> None:
    assert overlaps("2018-11-02", "2019-02-10", "2019", "2019")
    assert overlaps("2019-12-30", "2020-01-02", "2020-01", "2020-01")
    assert not overlaps("2017-01-01", "2018-12-31", "2019", "")
    assert not overlaps("2020-02-01", "2020-03-01", "", "2020-01")
    assert overlaps("1990-01-01", "1990-01-02", "", "")


def test_a_period_in_words_and_its_argument_type() -> None:
    assert phrase("2019", "2021") == " from 2019 to 2021"
    assert phrase("2019-04", "") == " since 2019-04"
    assert phrase("", "2021") == " until 2021"
    assert phrase("", "") == ""
    days = TypeAdapter(Day)
    for ok in ("", "2019", "2019-04", "2019-04-07"):
        assert days.validate_python(ok) == ok
    for bad in ("19", "2019-4", "April 2019", "2019-04-07T10:00"):
        with pytest.raises(ValidationError):
            days.validate_python(bad)


# -- timestamps ------------------------------------------------------------------------------

chat_line = st.builds(
    lambda day, minute, who, owner, text, system: (
        f"[2021-03-{day:02d}{minute}] "
        + ("(system) joined" if system else f"{who}{' (owner)' if owner else ''}: {text}")
    ),
    st.integers(min_value=1, max_value=28),
    st.sampled_from(["", " 10:00", " 23:59"]),
    st.sampled_from(["Ana", "Bo Li", "Мама", "李"]),
    st.booleans(),
    st.text(
        st.characters(blacklist_characters="\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"), max_size=30
    ),
    st.booleans(),
)


@given(
    st.lists(st.one_of(chat_line, st.just("a line with no stamp"), st.just("")), max_size=12),
    st.integers(min_value=0, max_value=200),
)
def test_the_one_pass_over_a_chunk_finds_what_the_three_separate_readings_do(
    lines: list[str], start: int
) -> None:
    text = "\n".join(lines)
    assert line_facts(text, start) == (
        line_stamps(text),
        line_speakers(text),
        line_months(text, start),
    )


def test_stamps_speakers_and_months_of_a_transcript() -> None:
    text = (
        "[2021-03-01 10:00] Ana (owner): hi\n"
        "[2021-03-01 10:01] (system) Bo joined\n"
        "a second line of Ana's message\n"
        "[2021-04-02] Bo: hello: again\n"
    )
    assert line_stamps(text) == ["2021-03-01 10:00", "2021-03-01 10:01", "2021-04-02"]
    assert line_speakers(text) == ["Ana", "Bo"]
    assert line_months(text) == [("2021-03", "Ana"), ("2021-03", ""), ("2021-04", "Bo")]
    assert line_months(text, start=text.index("[2021-04")) == [("2021-04", "Bo")]
    assert span(line_stamps(text)) == ("2021-03-01 10:00", "2021-04-02")
    assert span([]) == (None, None)
    assert strip_line_stamps(text).splitlines()[0] == "Ana (owner): hi"
    assert "[2021" not in strip_line_stamps(text)


# -- quotes.longest_run ----------------------------------------------------------------------

SOURCE = "On Sunday I finally finished the Westport half marathon in 2:04:51, legs like jelly."


def test_the_longest_run_of_a_statements_words_is_found_in_its_source() -> None:
    statement = "She FINISHED the Westport half marathon in 2:04:51 and was proud."
    found = longest_run(statement, fold_mapped(SOURCE))
    assert found is not None
    assert SOURCE[found[0] : found[1]] == "finished the Westport half marathon in 2:04:51"


def test_fewer_words_than_a_run_or_words_not_in_a_row_are_no_quote() -> None:
    short = " ".join(SOURCE.split()[4 : 4 + RUN_WORDS - 1])
    assert longest_run(short, fold_mapped(SOURCE)) is None
    assert longest_run("Sunday finished Westport marathon legs jelly", fold_mapped(SOURCE)) is None
    cut = "finished the Westport half … marathon in 2:04:51"  # never across a cut
    assert longest_run(cut, fold_mapped(SOURCE)) is None


# -- evidence --------------------------------------------------------------------------------


def _note(doc: int, statement: str) -> Note:
    return Note(1, doc, "fact", statement, "2023-05-02", (), statement, 0, len(statement), None)


def test_no_passage_and_no_note_is_said_plainly() -> None:
    assert render([], [], 5000) == (NOTHING, set())


def test_the_evidence_keeps_the_best_first_within_its_budget() -> None:
    best = ShownPassage(1, "a.md", "2023-05-01", date(2023, 5, 1), "x" * 900)
    next_ = ShownPassage(2, "b.md", "", None, "y" * 900)
    small = ShownPassage(3, "c.md", "", None, "a short line")
    text, shown = render([best, next_, small], [_note(4, "moved to Porto")], 1600)
    assert shown == {1, 3, 4}, "the second does not fit; a shorter one after it still does"
    assert text.index("[#1 ") < text.index("[#3 ") < text.index("moved to Porto")
    assert "y" * 50 not in text
    alone, shown = render([ShownPassage(5, "long.md", "", None, "z" * 5000)], [], 1000)
    assert shown == {5} and alone.count("z") < 1000 and "z …" in alone, "the best is cut"


def test_a_short_follow_up_is_searched_with_the_message_before_it() -> None:
    assert query("and the year?", "I ran a race in Westport") == (
        "I ran a race in Westport and the year?"
    )
    assert query("where did I run the Westport half marathon?", "earlier") == (
        "where did I run the Westport half marathon?"
    )
    asked = with_evidence("where?", "EVIDENCE")
    assert asked.startswith("EVIDENCE") and asked.endswith("\nwhere?"), "the message comes last"
    assert with_evidence("hello", "") == "hello"
