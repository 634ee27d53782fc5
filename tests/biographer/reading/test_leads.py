"""Open questions and contradictions found by rules from the reader's notes (issue 33): the
years before the first source, a person named often with no word on who they are, a decision
left open, two counts of one thing and a statement with its denial; each raised once, even
after the owner removes it, with any model (the reading turn's own model added nothing)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from biomd.app.engine import Engine
from biomd.biographer.profile_text import section
from biomd.biographer.reading.disagreements import count_conflicts, denials
from biomd.biographer.reading.leads import (
    before_record,
    leads,
    open_decisions,
    people_without_context,
)
from biomd.storage.notes import Note
from tests.conftest import llm_settings
from tests.support.fake_llm import FakeLLM, notes_reply
from tests.support.reading import read_round

BIO = "# bio.md\n\n## People & relationships\n- Maya: sister [#3]\n\n## Open questions\n"


def note(
    i: int, doc: int, quote: str, date: str | None = "2021-03-01", people: tuple[str, ...] = ()
) -> Note:
    return Note(i, doc, "fact", quote, date, people, quote, 0, len(quote), None)


def test_the_years_before_the_first_source_are_asked_about() -> None:
    (lead,) = before_record("2019-04-07", 4)
    assert lead.section == "Open questions"
    assert "before 2019?" in lead.line and "begin in April 2019 [#4]" in lead.line
    assert before_record(None, None) == []


def test_a_person_named_often_without_context_is_asked_about_and_no_one_else() -> None:
    notes = [
        note(1, 2, "The thing with Tom: he sold Dad's tools", people=("Tom", "Dad")),
        note(2, 4, "Tom's new baby, Rosie", "2022-01-09", ("Tom", "Rosie")),
        note(3, 5, "Maya rang again", people=("Maya",)),  # in People already
        note(4, 6, "Maya came over", people=("Maya",)),
        note(5, 6, "Flew to Lisbon", people=("Lisbon",)),  # a place, by its quotes
        note(6, 7, "Moved to Lisbon", people=("Lisbon",)),
        note(7, 7, "Grace ran", people=("Grace",)),  # the owner
        note(8, 8, "Grace swam", people=("Grace",)),
        note(9, 8, "Dad again", people=("Dad",)),  # a role, not a name
        note(10, 9, "Ana called", people=("Ana",)),  # named once
        note(11, 6, "In-house, a team of eight", people=("In-house",)),  # a capital at the start
        note(12, 6, "In-house. Porto.", people=("In-house",)),
    ]
    (lead,) = people_without_context(notes, BIO, ["Grace"])
    assert lead.line.startswith("- Who is Tom to you, and where do things stand")
    assert "2 notes from 2021 to 2022" in lead.line and "[#2, #4]" in lead.line
    said = BIO + "- Tom, my brother, lives in Bristol [#2]\n"  # a line says who he is
    assert people_without_context(notes, said, ["Grace"]) == []


def test_a_decision_left_open_is_asked_about_until_a_later_note_takes_it_up() -> None:
    open_one = note(1, 6, "I haven't answered.", "2024-01-03", ("Lumen Health",))
    (lead,) = open_decisions([open_one])
    assert "what did you decide (about Lumen Health)?" in lead.line
    assert "On 2024-01-03 you wrote “I haven't answered.” [#6]" in lead.line
    later = note(2, 9, "Second interview with Lumen Health", "2024-05-21", ("Lumen Health",))
    assert open_decisions([open_one, later]) == []


def test_two_counts_of_one_thing_disagree_unless_time_explains_them() -> None:
    six = note(1, 1, "six years in the same room in Hackney is a long time", "2019-04-07")
    seven = note(2, 8, "I spent seven years in that room in Hackney", "2021-03-21")
    (lead,) = count_conflicts([six, seven])
    assert lead.section == "Hypotheses"
    assert "on 2019-04-07, “six years" in lead.line and "[#1]" in lead.line
    assert "on 2021-03-21, “I spent seven years" in lead.line and "[#8]" in lead.line
    smoke_free = note(3, 2, "Two years without a cigarette in Hackney", "2019-04-07")
    later = note(4, 3, "Three years without a cigarette in Hackney", "2020-04-10")
    assert count_conflicts([smoke_free, later]) == []  # a year went by


def test_a_statement_and_its_denial_in_two_sources_are_set_side_by_side() -> None:
    told = note(1, 7, "I'm fine for money, honestly. Just busy", "2023-10-15", ("Mum",))
    wrote = note(2, 5, "I am not fine for money.", "2023-10-15")
    (lead,) = denials([told, wrote])
    assert "“I'm fine for money" in lead.line and "“I am not fine for money.”" in lead.line
    other = note(3, 9, "Not sure about the money for the flat", "2023-11-01")
    assert denials([told, other]) == []  # no three words in a row in common


def test_a_lead_is_raised_once() -> None:
    (lead,) = before_record("2019-04-07", 4)
    assert leads([], BIO, [], "2019-04-07", 4, [lead.key]) == []
    assert leads([], BIO + lead.line + "\n", [], "2019-04-07", 4, []) == []
    assert "2019" not in lead.key  # a digest: no name or year stays behind


TEXT = (
    "[2021-03-01 09:00] Grace (owner): Tom sold Dad's tools without asking\n"
    "[2022-01-09 10:00] Grace (owner): Mum says Tom's new baby is called Rosie\n"
    "[2023-10-15 18:26] Grace (owner): I'm fine for money, honestly\n"
)


@pytest.mark.slow
async def test_a_reading_round_raises_them_with_a_model_that_raises_nothing(
    tmp_path: Path, minilm_path: Path, llm: FakeLLM
) -> None:
    settings = llm_settings(tmp_path, minilm_path, llm)
    llm.notes.append(
        notes_reply(
            {"date": "2021-03-01", "people": ["Tom"], "quote": "Tom sold Dad's tools",
             "statement": "Tom sold Dad's tools"},
            {"date": "2022-01-09", "people": ["Tom", "Rosie"], "statement": "Tom has a baby",
             "quote": "Mum says Tom's new baby is called Rosie"},
        )
    )  # fmt: skip
    llm.reply_with("Read.")  # the reading turn: no edit, no question
    async with await Engine.open(settings) as engine:
        doc = await engine.sources.keep_text(TEXT, "chat.txt")
        (result,) = await read_round(engine)
        bio = await engine.profile.load()
        questions = section(bio, "Open questions")
        assert re.search(rf"\[Q\d+\] Who is Tom to you, .* \[#{doc}\]", questions)
        assert re.search(rf"\[Q\d+\] Where did you grow up, .*before 2021\? .*\[#{doc}\]", bio)
        assert "2 open questions and 0 possible contradictions found by rules" in result.reading
        history = await engine.profile.history()
        assert "questions and contradictions by rules" in [h.reason for h in history]
        # the owner removes one; another round does not raise it again
        tom = next(x for x in bio.splitlines() if "Who is Tom" in x)
        await engine.profile.replace(
            bio.replace(tom + "\n", ""), turn_id=None, mode="manual", reason="owner"
        )
        assert await engine.biographer.reading.raise_leads() == ""
        assert "Who is Tom" not in await engine.profile.load()
