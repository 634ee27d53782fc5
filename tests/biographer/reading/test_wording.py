"""A note put in words one line at a time: the model writes, rules check, and a line that
fails keeps the rules' wording or is not placed (issue 51)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from biomd.app.engine import Engine
from biomd.biographer.profile_text import section
from biomd.biographer.reading.wording import Shown, check, rules_line, word
from biomd.storage.notes import Note
from tests.conftest import llm_settings
from tests.support.fake_llm import FakeLLM, content, notes_reply
from tests.support.reading import read_round

JONAS = ("Jonas Berger", "Jonas")
WEDDING = "Paul und ich haben ein Datum!! Die Hochzeit ist am 14. September in Warnemünde"
CHAT = (
    "[2019-03-10 19:02] Miriam: " + WEDDING + "\n"
    "[2019-03-10 19:10] Jonas: Endlich!!! Ich bin dabei. Darf Krümel mit?\n"
    "[2019-03-10 19:11] Miriam: Nur wenn er nicht wieder den Kuchen klaut\n"
    "[2019-12-01 09:00] Miriam: Mama fragt, ob du Weihnachten kommst\n"
    "[2019-12-01 09:30] Jonas: Ich sagte vielleicht\n"
)


def note(
    statement: str, quote: str, people: tuple[str, ...] = (), date: str = "2019-03-10"
) -> Note:
    return Note(1, 1, "event", statement, date, people, quote, 0, len(quote), None)


SHOWN = Shown(CHAT, "Miriam", "WhatsApp Chat mit Miriam.txt")


@pytest.mark.parametrize(
    ("line", "why"),
    [
        ("", "it is empty"),
        ("Jonas and Paul set the date of their wedding: 14 September", "a party to what the"),
        ("Miriam and Paul set their wedding for 15 September", "does not say 15"),
        ("Miriam and Paul will marry in Warnemünde", "leaves out 14"),
        ("I am so happy: Miriam and Paul marry on 14 September", "first person"),
        ("Miriam and Paul set the date. " * 9, "longer than 220"),
    ],
)
def test_a_line_that_says_more_or_other_than_its_quote_is_refused(line: str, why: str) -> None:
    x = note("Miriam and Paul set the wedding for 14 September", WEDDING, ("Miriam", "Paul"))
    refused = check(line, x, SHOWN, JONAS)
    assert refused is not None and why in refused


def test_a_line_may_not_name_a_person_its_source_does_not() -> None:
    x = note("Miriam and Paul set the wedding for 14 September", WEDDING, ("Miriam", "Paul"))
    line = "Miriam, Paul and Lisa set the date: 14 September"
    assert check(line, x, SHOWN, JONAS) is None  # German capitalises nouns: a known name only
    assert "does not name Lisa" in (check(line, x, SHOWN, JONAS, ["Lisa"]) or "")
    tools = Note(
        2, 1, "event", "Tom sold Dad's tools", None, ("Tom",), "Tom sold Dad's tools", 0, 20, None
    )
    english = Shown(
        "The thing with Tom is still sitting in my chest. Tom sold Dad's tools", "", "journal"
    )
    assert "does not name Lisa" in (
        check("Tom and Lisa sold Dad's tools", tools, english, JONAS) or ""
    )


def test_a_line_in_the_third_person_with_who_did_what_passes() -> None:
    x = note("Miriam and Paul set the wedding for 14 September", WEDDING, ("Miriam", "Paul"))
    line = "Jonas's sister Miriam and Paul set their wedding for 14 September in Warnemünde"
    assert check(line, x, SHOWN, JONAS, ["Miriam", "Paul", "Krümel"]) is None


def test_the_rules_wording_keeps_what_stands_alone_and_drops_the_rest() -> None:
    said = Shown(CHAT, "Jonas", "chat")
    assert rules_line(note("I said maybe", "Ich sagte vielleicht"), said, JONAS) is None
    kept = rules_line(note("I joined the rowing club in August", "Ich bin dabei"), said, JONAS)
    assert kept == "Jonas joined the rowing club in August"
    wrong = note("Jonas and Paul set a date for the wedding", WEDDING)
    assert rules_line(wrong, SHOWN, JONAS) is None  # the sister's wedding, not his


@pytest.mark.slow
async def test_each_note_is_worded_by_the_model_and_checked_before_it_is_placed(
    tmp_path: Path, minilm_path: Path, llm: FakeLLM
) -> None:
    settings = llm_settings(tmp_path, minilm_path, llm, owner_names="Jonas Berger, Jonas")
    llm.notes.append(
        notes_reply(
            {"kind": "event", "date": "2019-03-10", "people": ["Miriam", "Paul"],
             "statement": "Jonas and Paul have set a date for the wedding",
             "quote": "Paul und ich haben ein Datum!!"},
            {"kind": "fact", "date": "2019-12-01", "statement": "I said maybe",
             "quote": "Ich sagte vielleicht"},
            {"kind": "event", "date": "2019-03-10", "statement": "I said I would be there",
             "quote": "Ich bin dabei"},
            {"kind": "feeling", "date": "2019-03-10", "statement": "Jonas is glad",
             "quote": "Endlich!!!"},
        )
    )  # fmt: skip
    good = "Miriam and Paul set the date of their wedding: 14 September, in Warnemünde"
    llm.lines += [
        json.dumps({"line": "Jonas and Paul have set a date for the wedding"}),
        json.dumps({"line": good}),
        json.dumps({"line": ""}),  # "I said maybe": nothing to say
        json.dumps({"line": "I will be there"}),  # refused twice: the rules' wording
        json.dumps({"line": "I will be there!"}),
    ]
    llm.reply_with(json.dumps({"edits": [], "check": [], "report": "Judged."}))
    async with await Engine.open(settings) as engine:
        await engine.sources.keep_text(CHAT, "WhatsApp Chat mit Miriam.txt")
        await read_round(engine)
        bio = await engine.profile.load()
    timeline = section(bio, "timeline")
    assert f"- 2019-03-10: {good} [#1]" in timeline
    assert "Jonas and Paul" not in bio and "said maybe" not in bio
    first, retry, maybe = (content(b["messages"][-1]) for b in llm.writer_bodies[:3])
    assert "Quote, said by Miriam to Jonas (2019-03-10): “Paul und ich haben ein Datum!!”" in first
    assert "Nur wenn er nicht wieder den Kuchen klaut" in first  # the lines around it
    system = content(llm.writer_bodies[0]["messages"][0])
    assert "Write in German, the source's language." in system  # not the reader's English
    assert "can't be used: it makes Jonas Berger a party to what the quote says of Miriam" in retry
    assert "Ich sagte vielleicht" in maybe
    # the rules' wording, marked for the reading turn to reword
    assert "- 2019-03-10: Jonas said Jonas would be there [#1]" in timeline
    turn = content(llm.bodies[0]["messages"][-1])
    assert "put in words by simple rules" in turn
    assert "- 2019-03-10: Jonas said Jonas would be there [#1]" in turn


def test_the_rules_take_the_sentence_that_says_most_and_drop_its_relative_time() -> None:
    journal = Shown("Handed in my notice today. Daniel took it well.", "", "2020-12-18.md")
    x = note(
        "I handed in my notice today. Daniel took it well, better than I did.",
        "Handed in my notice today.",
    )
    assert rules_line(x, journal, ["Nina"]) == "Daniel took it well, better than Nina did."
    y = note("I handed in my notice to Daniel today.", "Handed in my notice today.")
    assert rules_line(y, journal, ["Nina"]) == "Nina handed in Nina's notice to Daniel."


def test_a_line_keeps_the_names_its_fact_gives() -> None:
    retires = "Frau Roth geht in Rente und hat mich vorgeschlagen."
    x = note("Frau Roth is retiring and suggested me.", retires, date="2024-01-20")
    journal = Shown(retires, "", "2024-01-20.md")
    refused = check("Jonas is retiring and was suggested.", x, journal, JONAS, ["Frau Roth"])
    assert refused is not None and "leaves out Frau Roth" in refused
    bath = "Ran the Bath half marathon this morning. 2:04:51."
    y = note("I ran the Bath half marathon in 2:04:51.", bath, date="2019-04-07")
    said = Shown(bath, "", "2019-04-07.md")
    assert "leaves out Bath" in (
        check("Nina ran a half marathon in 2:04:51.", y, said, ["Nina"]) or ""
    )
    assert check("Nina ran the Bath half marathon in 2:04:51.", y, said, ["Nina"]) is None


async def test_no_line_for_a_title_and_no_weekday_or_i_counts_as_a_name() -> None:
    title = Note(
        3, 7, "fact", "Mum is a mother of Nina.", None, (), "WhatsApp chat: Mum", 0, 18, None
    )
    assert (await word(None, [title], {}, ["Nina"])).texts == {3: []}
    said = "I handed in my notice at Fieldnote today."
    first = Note(4, 2, "event", said, "2020-12-18", (), said, 0, len(said), None)
    assert (await word(None, [first], {}, ["Nina"])).texts == {
        4: ["Nina handed in Nina's notice at Fieldnote."]
    }
    said = "I signed up for a pottery class on Tuesdays. I'd like it."
    x = note("I signed up for a pottery class in Anjos on Tuesdays.", said)
    shown = Shown(said, "", "2021-02-10.md")
    assert check("Nina signed up for a pottery class in Anjos.", x, shown, ["Nina"]) is None
