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
from biomd.biographer.evidence import ShownPassage, is_question, render, wants_sources
from biomd.retrieval.relative import resolve, resolve_lines
from biomd.settings import Settings
from tests.conftest import llm_settings
from tests.support.fake_llm import FakeLLM
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
    llm.reply_with("Your dog is called Biscuit [#1].", "You're welcome!")
    answer = await bio_engine.biographer.chat.ask("What is my dog called?")
    first = llm.bodies[0]["messages"][-1]["content"]
    assert first.startswith("Passages biomd found in the owner's sources")
    assert first.endswith("\n\nThe owner's question:\nWhat is my dog called?")  # last: heeded
    assert f"[#{diary} 'note-0.txt'" in first and "grey lurcher called Biscuit" in first
    assert "<source_data>" in first and first.index("<source_data>") < first.index("Biscuit")
    # a chat turn is told how to answer, not how to write bio.md
    system = llm.bodies[0]["messages"][0]["content"]
    assert "Your first sentence answers the question" in system
    assert "detective method" not in system and "grey lurcher" not in system
    # the model called no tool, yet its citation is of a passage the turn saw: not flagged
    assert answer.report == "Your dog is called Biscuit [#1]."
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
    llm.reply_with("Your dog is Biscuit [#1], born in Cork [#7].")
    answer = await bio_engine.biographer.chat.ask("What is my dog called?")
    assert "#7" in answer.report and "not among your sources" in answer.report


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
