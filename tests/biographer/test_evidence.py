"""A chat turn starts from evidence: before the model's first call biomd searches the sources
for the message and puts what it found in the request (the fake server records it), with
dates, and relative times resolved; a social message gets no search; what was shown may be
cited without the model calling a tool."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest

from biomd.app.engine import Engine
from biomd.app.replies import first_sentence_first
from biomd.biographer.answer_check import ASK
from biomd.biographer.evidence import ShownPassage, is_question, render, wants_sources
from biomd.retrieval.relative import resolve, resolve_lines
from biomd.settings import Settings
from tests.conftest import llm_settings
from tests.support.fake_llm import FakeLLM, answer_reply, notes_reply
from tests.support.reading import read_round
from tests.support.samples import add_sources

CHAT = (
    "[2023-05-07 10:02] Maya: did you get the keys for the boat?\n"
    "[2023-05-07 10:05] Grace (owner): yes, I picked them up yesterday at the marina in Cork\n"
)


@pytest.mark.slow
async def test_a_chat_turn_starts_from_the_passages_found_for_its_message(
    bio_engine: Engine, llm: FakeLLM
) -> None:
    (diary, _chat) = await add_sources(
        bio_engine,
        ["Grace adopted a grey lurcher called Biscuit from the shelter in Sligo.", CHAT],
    )
    await bio_engine.sources.embed_pending()
    llm.reply_with(answer_reply("Your dog is called Biscuit.", (diary, "called biscuit")), "Hi!")
    answer = await bio_engine.biographer.chat.ask("What is my dog called?")
    first = llm.bodies[0]["messages"][-1]["content"]
    assert first.startswith("Passages biomd found in the owner's sources")
    # the question last, then how to reply: the answer and the words it rests on
    assert first.endswith(
        f"\n\nThe owner's question:\nWhat is my dog called?\n\n{ASK} Write the answer in English."
    )
    assert f"[#{diary} 'note-0.txt'" in first and "grey lurcher called Biscuit" in first
    assert "<source_data>" in first and first.index("<source_data>") < first.index("Biscuit")
    schema = llm.bodies[0]["response_format"]["json_schema"]["schema"]
    assert schema["required"] == ["answer", "quotes", "silent"]
    # a chat turn is told how to answer, not how to write bio.md
    system = llm.bodies[0]["messages"][0]["content"]
    assert "Your first sentence answers the question" in system
    assert "detective method" not in system and "grey lurcher" not in system
    # the answer first, then its quote as the source has it (case and all), and where
    assert answer.report == f"Your dog is called Biscuit.\n- “called Biscuit” [#{diary}]"
    assert len(llm.bodies) == 1
    # the chat tail keeps the owner's words, not the evidence
    tail = await bio_engine.biographer.chat.tail()
    assert tail[0] == {"role": "user", "content": "What is my dog called?"}

    await bio_engine.biographer.chat.ask("thanks!")
    assert llm.bodies[1]["messages"][-1]["content"] == "thanks!"  # nothing to look up
    # a local model answers from what was found without the tools (it answered better so);
    # with nothing found, or "thanks", they are offered
    assert "tools" not in llm.bodies[0] and "tools" in llm.bodies[1]
    llm.reply_with("Noted.")  # news, not a question: the tools, to put it in bio.md
    await bio_engine.biographer.chat.ask("Biscuit died last week, he was fourteen")
    assert "tools" in llm.bodies[2] and "Passages biomd found" in str(llm.bodies[2]["messages"])


def test_a_question_is_told_from_news() -> None:
    for asked in ("What is my dog called?", "when did I move", "¿Dónde vivía?", "wo war das"):
        assert is_question(asked), asked
    for told in ("I moved to Porto in July", "Add that to my open questions.", "Biscuit died"):
        assert not is_question(told), told


def test_auto_offers_the_tools_beside_the_evidence_to_a_cloud_model_only() -> None:
    def offered(base: str, setting: str = "auto") -> bool:
        settings = Settings(_env_file=None, llm_base_url=base, chat_tools=setting)  # type: ignore[call-arg]
        return settings.chat_tools_with_evidence

    assert offered("https://openrouter.ai/api/v1")
    assert not offered("http://127.0.0.1:8080/v1")
    assert offered("http://127.0.0.1:8080/v1", "always")
    assert not offered("https://openrouter.ai/api/v1", "never")


@pytest.mark.slow
async def test_always_keeps_the_tools_beside_the_evidence_for_a_local_model(
    tmp_path: Path, minilm_path: Path, llm: FakeLLM
) -> None:
    settings = llm_settings(tmp_path / "on", minilm_path, llm, chat_tools="always")
    async with await Engine.open(settings) as engine:
        await add_sources(engine, ["Grace adopted a grey lurcher called Biscuit."])
        await engine.sources.embed_pending()
        llm.reply_with("Biscuit [#1].")
        await engine.biographer.chat.ask("What is my dog called?")
    assert "Passages biomd found" in llm.bodies[-1]["messages"][-1]["content"]
    assert "tools" in llm.bodies[-1]


@pytest.mark.slow
async def test_relative_times_in_the_evidence_are_resolved_against_their_messages_dates(
    bio_engine: Engine, llm: FakeLLM
) -> None:
    await add_sources(bio_engine, [CHAT])
    llm.reply_with("On 6 May 2023 [#1].")
    await bio_engine.biographer.chat.ask("When did I pick up the keys for the boat?")
    first = llm.bodies[0]["messages"][-1]["content"]
    assert "picked them up yesterday (2023-05-06) at the marina" in first


@pytest.mark.slow
async def test_a_question_nothing_answers_is_told_so_before_the_model_answers(
    bio_engine: Engine, llm: FakeLLM
) -> None:
    await add_sources(bio_engine, ["Grace swam at Lahinch in June."])
    llm.reply_with("Your sources don't say what your first car was.")
    await bio_engine.biographer.chat.ask("What was my first car?")
    first = llm.bodies[0]["messages"][-1]["content"]
    assert "found nothing" in first and first.endswith("What was my first car?")
    system = llm.bodies[0]["messages"][0]["content"]
    assert "say plainly that their sources don't say" in system


@pytest.mark.slow
async def test_an_invented_citation_is_still_flagged(bio_engine: Engine, llm: FakeLLM) -> None:
    await add_sources(bio_engine, ["Grace adopted a lurcher called Biscuit."])
    llm.reply_with(
        answer_reply(
            "Your dog is Biscuit [#1], born in Cork [#7].",
            (1, "a lurcher called Biscuit"),
            (7, "born in Cork"),
        )
    )
    answer = await bio_engine.biographer.chat.ask("What is my dog called?")
    assert answer.report.startswith("Your dog is Biscuit [#1], born in Cork [#7?].")
    assert "- “a lurcher called Biscuit” [#1]" in answer.report
    assert "(biomd found no “born in Cork” in your sources.)" in answer.report
    assert "#7 is not among your sources" in answer.report


@pytest.mark.slow
async def test_an_answer_whose_quote_is_not_in_the_sources_is_not_given_as_fact(
    bio_engine: Engine, llm: FakeLLM
) -> None:
    (swim,) = await add_sources(bio_engine, ["Grace swam at Lahinch in June 2019."])
    await bio_engine.sources.embed_pending()
    llm.reply_with(answer_reply("You swam at Kilkee.", (swim, "I swam at Kilkee every summer")))
    answer = await bio_engine.biographer.chat.ask("Where did I swim?")
    assert answer.report.startswith("Your sources don't say.\nThe nearest passages:\n")
    assert f"- #{swim} note-0.txt" in answer.report and "Kilkee" not in answer.report
    assert "add it to my open questions" in answer.report
    # the offer taken up: the question goes to Open questions by rules, no model call
    calls = len(llm.bodies)
    kept = await bio_engine.biographer.chat.ask("ok, add it to my open questions")
    assert (
        kept.report
        == "Added to your open questions as Q1: “Where did I swim?”. I'll ask you about it."
    )
    assert len(llm.bodies) == calls and kept.sections_changed == ["Open questions"]
    assert "- [Q1] Where did I swim?" in await bio_engine.profile.load()


@pytest.mark.slow
async def test_an_answer_about_one_person_from_what_another_did_says_whose_it_is(
    bio_engine: Engine, llm: FakeLLM
) -> None:
    chat = (
        "[2023-07-03 18:10] Melanie: I finally painted the lake at sunrise\n"
        "[2023-07-03 18:12] Grace (owner): it's beautiful!\n"
    )
    (doc,) = await add_sources(bio_engine, [chat])
    llm.reply_with(answer_reply("Caroline painted a lake at sunrise.", (doc, "painted the lake")))
    answer = await bio_engine.biographer.chat.ask("What did Caroline paint?")
    assert answer.report.startswith(
        "Your sources say this of Melanie, not Caroline: “painted the lake”"
    )
    llm.reply_with(answer_reply("Melanie painted the lake at sunrise.", (doc, "painted the lake")))
    answer = await bio_engine.biographer.chat.ask("What did Melanie paint?")
    assert answer.report.startswith("Melanie painted the lake at sunrise.\n- “painted the lake”")
    assert f"[#{doc}, 2023-07-03, Melanie]" in answer.report


@pytest.mark.slow
async def test_a_when_question_gets_the_day_its_quote_names_not_the_models(
    bio_engine: Engine, llm: FakeLLM
) -> None:
    chat = "[2023-08-21 09:00] Grace (owner): we went to the pottery fair last Friday\n"
    (doc,) = await add_sources(bio_engine, [chat])
    llm.reply_with(answer_reply("On 21 August 2023.", (doc, "went to the pottery fair")))
    answer = await bio_engine.biographer.chat.ask("When did I go to the pottery fair?")
    # the model's date is the message's; the day "last Friday" names takes its place
    first_line = answer.report.splitlines()[0]
    assert first_line == f"On 2023-08-18. (from the message of 2023-08-21, #{doc})"
    llm.reply_with(answer_reply("You went.", (doc, "went to the pottery fair")))
    answer = await bio_engine.biographer.chat.ask("When did I go to the pottery fair?")
    assert answer.report.startswith("2023-08-18: You went. (from the message of 2023-08-21")
    llm.reply_with(answer_reply("On August 18th, 2023.", (doc, "went to the pottery fair")))
    answer = await bio_engine.biographer.chat.ask("When did I go to the pottery fair?")
    assert answer.report.startswith("On August 18th, 2023.\n")  # right: as the model said it


def test_social_messages_need_no_sources_and_questions_do() -> None:
    for social in ("hello", "Thanks!", "ok thanks", "merci", "ha ha", "good night", ""):
        assert not wants_sources(social), social
    for question in ("What is my dog called?", "wo habe ich 2019 gewohnt?", "Maya?"):
        assert wants_sources(question), question


def test_relative_times_name_their_dates() -> None:
    sunday = date(2023, 5, 7)
    cases = {
        "I saw her yesterday.": "I saw her yesterday (2023-05-06).",
        "We met last Saturday at noon": "We met last Saturday (2023-05-06) at noon",
        "next month we move": "next month (2023-06) we move",
        "two weeks ago": "two weeks ago (week of 2023-04-17)",
        "see you on Friday": "see you on Friday (2023-05-12)",
        "3 years ago": "3 years ago (2020)",
        "gestern war schön": "gestern (2023-05-06) war schön",
        "Last Fri I took the kids": "Last Fri (2023-05-05) I took the kids",
        "this Tues at 5": "this Tues (2023-05-09) at 5",
        "we lay on sun loungers": "we lay on sun loungers",  # "on" takes whole names only
        "today's plan": "today's plan",  # a possessive is left alone
        "yesterday (2023-05-06)": "yesterday (2023-05-06)",  # resolved once
        "on Friday 31 May at 14:00": "on Friday 31 May at 14:00",  # a date already
        "on Friday, 12 May": "on Friday, 12 May",
    }
    for said, shown in cases.items():
        assert resolve(said, sunday) == shown
    lines = resolve_lines(
        "[2023-05-07 10:00] Ana (owner): see you tomorrow\n[2023-05-09 11:00] Maya: yesterday!"
    )
    assert lines.endswith("tomorrow (2023-05-08)\n[2023-05-09 11:00] Maya: yesterday (2023-05-08)!")


def test_passages_that_share_their_neighbours_show_each_line_once() -> None:
    chat = "\n".join(f"[2023-05-0{d} 10:00] Maya: line {d}" for d in range(1, 7))
    one = ShownPassage(3, "chat.txt", "2023-05-01 to 2023-05-06", None, chat)
    overlapping = ShownPassage(3, "chat.txt", "", None, "\n".join(chat.splitlines()[3:]))
    other = ShownPassage(4, "diary.md", "2023-05-02", date(2023, 5, 2), "line 4")  # another source
    text, shown = render([one, overlapping, other], [], 6000)
    assert text.count("Maya: line 4") == 1 and text.count("[#3 ") == 1
    assert "[#4 'diary.md', 2023-05-02]\nline 4" in text and shown == {3, 4}


def test_a_long_answer_is_sent_as_its_first_sentence_then_the_rest() -> None:
    detail = "You adopted him from the shelter in Sligo in 2019, after the move. " * 5
    assert first_sentence_first("Your dog is called Biscuit [#3]. " + detail) == [
        "Your dog is called Biscuit [#3].",
        detail.strip(),
    ]
    said = "You saw Dr. Kelly about it in March 2019 [#3]. " + detail
    assert first_sentence_first(said)[0] == "You saw Dr. Kelly about it in March 2019 [#3]."
    assert first_sentence_first("Biscuit [#3].") == ["Biscuit [#3]."]  # short: whole
    assert first_sentence_first("x" * 400) == ["x" * 400]  # no sentence to split at
    checked = "He is Biscuit. He came from Sligo.\n- “a lurcher called Biscuit” [#3]\n" * 6
    first, quotes = first_sentence_first(checked)  # a checked answer: then its quotes
    assert first == "He is Biscuit. He came from Sligo." and quotes.startswith("- “a lurcher")


@pytest.mark.slow
async def test_an_answer_finds_what_bio_md_holds_and_shows_the_source_words_behind_it(
    tmp_path: Path, minilm_path: Path, llm: FakeLLM
) -> None:
    settings = llm_settings(tmp_path, minilm_path, llm, owner_names="Nina Castell, Nina")
    llm.notes.append(
        notes_reply(
            {"kind": "fact", "statement": "Nina has a cat called Biscuit",
             "quote": "My cat Biscuit hates the stairs."},
        )
    )  # fmt: skip
    async with await Engine.open(settings) as engine:
        journal = (
            "Ten days in Lisbon. The flat has a lemon tree.\n\nMy cat Biscuit hates the stairs.\n"
        )
        doc = await engine.sources.keep_text(journal, "2021-02-10.md")
        await read_round(engine)
        assert f"- Nina has a cat called Biscuit [#{doc}]" in await engine.profile.load()
        llm.reply_with(answer_reply("Biscuit.", (doc, "Nina has a cat called Biscuit")))
        answer = await engine.biographer.chat.ask("What is my cat called?")
    asked = llm.bodies[-1]["messages"][-1]["content"]
    assert (
        "My cat Biscuit hates the stairs." in asked
    )  # the source behind bio.md's line, in the evidence
    # the quote is bio.md's wording; what is shown is the source's own words behind it
    assert answer.report.startswith("Biscuit.\n- “My cat Biscuit hates the stairs.” [#")
    assert "bio.md's line" not in answer.report
