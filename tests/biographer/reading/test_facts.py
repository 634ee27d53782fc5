"""A reader's note cut into its facts, each worded as a line of its own (issue 51): one line
for a paragraph keeps one fact and loses the rest."""

from __future__ import annotations

from biomd.biographer.reading.facts import MOST, facts, of
from biomd.biographer.reading.placement import months_covered, place
from biomd.storage.notes import Note
from biomd.storage.reading import Reading

NOTICE = "Handed in my notice today. Daniel took it well, better than I did. Last day is the 31st."


def test_each_sentence_that_says_something_is_a_fact_of_its_own() -> None:
    assert facts(NOTICE) == [
        "Handed in my notice today.",
        "Daniel took it well, better than I did.",
        "Last day is the 31st.",
    ]
    assert facts("Ran the Westport 10k in 52:10.") == ["Ran the Westport 10k in 52:10."]


def test_a_sentence_that_leans_on_the_one_before_stays_with_it() -> None:
    tom = "The thing with Tom is still sitting in my chest. He sold Dad's tools without asking."
    assert facts(tom) == [tom]
    never = "I asked if I'd ever go back to an agency. Never. I spent seven years in that room."
    assert facts(never) == ["I asked if I'd ever go back to an agency. Never.",
                            "I spent seven years in that room."]  # fmt: skip
    german = "Miriam heiratet im September. Sie hat es mir gestern gesagt. Ich freue mich sehr."
    assert facts(german)[0] == "Miriam heiratet im September. Sie hat es mir gestern gesagt."


def test_words_alone_are_no_fact_and_a_long_note_keeps_its_most_telling_facts() -> None:
    assert facts("Alive! Sorry. I have a lemon tree and a cat who hates stairs.") == [
        "I have a lemon tree and a cat who hates stairs."
    ]
    assert facts("Oh well. So it goes.") == []
    long = (
        "I keep waiting to feel like a runner. Work was slow this week. Ana and Rui came "
        "for dinner. The rent is 950 a month now. I should sleep more. Biscuit hates Rui."
    )
    kept = facts(long)
    assert len(kept) == MOST
    assert kept == ["Ana and Rui came for dinner.", "The rent is 950 a month now.",
                    "Biscuit hates Rui."]  # fmt: skip


def test_a_note_of_several_facts_gets_a_line_for_each_and_counts_once() -> None:
    x = Note(7, 2, "event", NOTICE, "2020-12-18", (), NOTICE, 0, len(NOTICE), None)
    assert [f.statement for f in of(x)] == facts(NOTICE)
    assert of(Note(8, 2, "event", "Ran a 10k.", None, (), "Ran a 10k.", 0, 9, None))[0].id == 8
    bio = "# bio.md\n\n## Timeline\n"
    lines = ["Nina handed in her notice at Fieldnote", "Her last day is 31 December"]
    placed, n = place(bio, [x], worded={7: lines})
    assert n == 1
    assert "- 2020-12-18: Nina handed in her notice at Fieldnote [#2]\n" in placed
    assert "- 2020-12-18: Her last day is 31 December [#2]" in placed
    assert place(bio, [x], worded={7: []}) == (bio, 0)


def test_the_timeline_room_is_shared_by_the_months_the_sources_cover() -> None:
    def source(start: str | None, end: str | None = None) -> Reading:
        return Reading(1, "j.md", "markdown", 100, 0, start, end)

    journals = [source(f"{y}-04-07") for y in range(2019, 2024)]
    assert months_covered(journals) == 5  # five entries over five years: not sixty months
    assert months_covered([source("2021-01-01", "2023-12-30")]) == 36  # a chat of three years
    assert months_covered([*journals, source("2019-04-01", "2019-05-02")]) == 6
    assert months_covered([source(None)]) == 1


def test_a_question_or_a_greeting_is_no_fact_and_a_letter_s_greeting_comes_off() -> None:
    letter = "Liebe Aylin, ja, ich lebe noch. Kommst du im Mai? Mit sportlichen Grüßen, Jonas"
    assert facts(letter) == ["ja, ich lebe noch."]
    assert facts("I will be at the wedding. Can I bring Krümel?") == ["I will be at the wedding."]
