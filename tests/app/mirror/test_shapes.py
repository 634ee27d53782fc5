"""The rules that find the shapes of patterns in the owner's own lines: each finds its planted
shape in three languages (the planted lives of bench/, in English, Spanish and German), with the
lines that show it and one small question each, and none fires on a near miss."""

from __future__ import annotations

from datetime import date

import pytest

from bench import mirror_life_de, mirror_life_es, mirror_notes_life
from biomd.app.mirror.lines import Line, chat_lines, owner_spans, prose_lines
from biomd.app.mirror.messages import parse_text
from biomd.app.mirror.shapes import Shape, shapes


def lines_of(
    journal: dict[str, str], chats: dict[str, list[tuple[str, str, str]]], owner: str
) -> list[Line]:
    """A life's lines as the mirror reads them from its sources: the journal's sentences, and
    the owner's chat messages."""
    out: list[Line] = []
    for n, (day, text) in enumerate(journal.items(), 1):
        out += prose_lines(n, f"# {day}\n\n{text}\n", date.fromisoformat(day).toordinal())
    for n, (_person, messages) in enumerate(chats.items(), len(journal) + 1):
        text = "".join(
            f"[{stamp}] {who}{' (owner)' if who == owner else ''}: {said}\n"
            for stamp, who, said in messages
        )
        parsed = parse_text(text)
        picked = owner_spans(parsed)
        a = parsed.arrays
        texts = [text[int(a["start"][i]) : int(a["start"][i] + a["length"][i])] for i in picked]
        out += chat_lines(n, parsed, picked, texts)
    return out


def journal_and_chat(journal: dict[str, str], chats: dict[str, list[str]]) -> list[Line]:
    """A small life: journal entries, and the owner's messages to each person by date."""
    return lines_of(
        journal,
        {
            person: [
                (f"{said[:10]} 10:00", "Me", said[11:]) for said in messages
            ]  # "YYYY-MM-DD text"
            for person, messages in chats.items()
        },
        "Me",
    )


def kinds(found: list[Shape]) -> dict[str, Shape]:
    return {s.kind: s for s in found}


LIVES = [
    pytest.param(mirror_notes_life, ("Sam", "Maya", "Leo", "Rui"), "en", id="english"),
    pytest.param(mirror_life_es, ("Carmen", "Marta", "Javi", "Elena"), "es", id="spanish"),
    pytest.param(mirror_life_de, ("Petra", "Lena"), "de", id="german"),
]


@pytest.mark.parametrize(("life", "people", "language"), LIVES)
def test_each_planted_shape_is_found_with_the_lines_that_show_it(
    life: object, people: tuple[str, ...], language: str
) -> None:
    owner = life.OWNER  # type: ignore[attr-defined]
    lines = lines_of(life.JOURNAL, life.CHATS, owner)  # type: ignore[attr-defined]
    found = shapes(lines, owner, {p: p for p in people}, [language])
    by_kind = kinds(found)
    for planted in life.PLANTED:  # type: ignore[attr-defined]
        shape = by_kind.get(planted.kind)
        assert shape is not None, planted.kind
        held = {w for w in planted.lines for x in shape.lines if w.lower() in x.text.lower()}
        assert len(held) >= 2, (planted.kind, [x.text for x in shape.lines])
        for x in shape.lines:  # each line is its source's exact span, in time order
            assert x.end - x.start == len(x.text)
        assert [x.day for x in shape.lines] == sorted(x.day for x in shape.lines)
        assert shape.asks and all(1 <= len(a.lines) <= 2 for a in shape.asks)
    assert len(found) == len(life.PLANTED)  # type: ignore[attr-defined]
    crisis = life.CRISIS.lower()  # type: ignore[attr-defined]
    # a line of crisis is kept out before the rules run (ShapePass); here it makes no shape
    assert not any(crisis in x.text.lower() for s in found for x in s.lines)


def test_someone_the_chats_dont_name_is_found_in_the_owners_lines() -> None:
    # Javi writes in none of Lucía's chats, and no note names him: "con Javi" in her lines
    # makes him someone, "Javi y yo …" at a sentence's start included
    life = mirror_life_es
    lines = lines_of(life.JOURNAL, life.CHATS, life.OWNER)
    chats_only = {p: p for p in life.CHATS}
    [told] = [s for s in shapes(lines, life.OWNER, chats_only, ["es"]) if s.kind == "told_apart"]
    assert told.about == "Javi"
    assert {x.to for x in told.lines} == {"Marta", "Carmen"}


def test_a_contradiction_is_about_one_thing_not_two() -> None:
    lines = journal_and_chat(
        {"2021-03-04": "I never want to live in London again, that city wore me out."},
        {"Leo": ["2023-05-11 Honestly I miss Paris so much, I love it there."]},
    )
    assert "self_contradiction" not in kinds(shapes(lines, "Me", {"Leo": "Leo"}, ["en"]))


def test_a_contradiction_needs_months_between_its_sides() -> None:
    lines = journal_and_chat(
        {"2021-03-04": "I never want to live in London again, that city wore me out."},
        {"Leo": ["2021-03-20 Honestly I miss London so much, I love it there."]},
    )
    assert "self_contradiction" not in kinds(shapes(lines, "Me", {"Leo": "Leo"}, ["en"]))


def test_growth_with_no_conflict_before_it_is_no_stated_reason() -> None:
    lines = journal_and_chat(
        {
            "2021-08-01": "A long walk by the sea with Sam, the light was beautiful.",
            "2021-09-20": "Rui criticised my work in front of the whole team. I felt humiliated.",
        },
        {"Sam": ["2021-09-06 I've decided to quit my job at the agency. It's time for growth."]},
    )
    assert "stated_reason" not in kinds(shapes(lines, "Me", {"Sam": "Sam", "Rui": "Rui"}, ["en"]))


def test_a_reassurance_with_no_worry_elsewhere_is_no_avoidance() -> None:
    lines = journal_and_chat(
        {"2022-03-24": "Lovely dinner with Maya, we laughed all evening."},
        {
            "Maya": ["2022-03-21 all good, don't worry about it"],
            "Sam": ["2022-03-20 Maya is coming round on Friday, can't wait."],
        },
    )
    found = kinds(shapes(lines, "Me", {"Maya": "Maya", "Sam": "Sam"}, ["en"]))
    assert "avoidance" not in found and "told_apart" not in found


def test_a_worry_months_from_any_reassurance_is_no_avoidance() -> None:
    lines = journal_and_chat(
        {"2022-09-24": "Still upset that Maya forgot my birthday."},
        {"Maya": ["2022-03-21 all good, don't worry about it"]},
    )
    assert "avoidance" not in kinds(shapes(lines, "Me", {"Maya": "Maya"}, ["en"]))


def test_a_plan_followed_by_something_else_again_is_no_said_vs_did() -> None:
    lines = journal_and_chat(
        {
            "2021-01-02": "This year I will run every morning before work.",
            "2021-04-10": "Worked all weekend again on the pitch.",
        },
        {},
    )
    assert "said_vs_did" not in kinds(shapes(lines, "Me", {}, ["en"]))


def test_a_plan_made_once_is_no_cycle() -> None:
    lines = journal_and_chat(
        {
            "2021-01-01": "I'm going to stop working weekends, that is my promise.",
            "2021-04-10": "Worked all weekend again on the pitch.",
            "2022-04-09": "Worked the whole weekend again.",
        },
        {},
    )
    assert "cycle" not in kinds(shapes(lines, "Me", {}, ["en"]))
