"""bench/locomo_answers.py: its rules score answers as the issue defines them, and a run asks
each question through `Biography.ask` against the fake server, with the passages found."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from bench import locomo_answers as la
from tests.support.fake_llm import FakeLLM, answer_reply


def test_the_rules_score_words_dates_and_silence() -> None:
    assert la.right("She went to the LGBTQ support group on 7 May 2023.", "7 May 2023", 2)
    assert la.right("That was on May 3, 2023 [#1].", "7 May 2023", 2)  # within a week
    assert not la.right("In June 2023.", "7 May 2023", 2)
    assert la.right("She painted it in 2022.", "2022", 2)
    assert not la.right("In 2021.", "2022", 2)
    assert la.right("Last week (week of 2022-12-19).", "The week before 1 January 2023", 2)
    assert not la.right("Last week (week of 2022-12-05).", "The week before 1 January 2023", 2)
    echoed = "She joined last Tues.\n[2023-07-20 20:56] Caroline: Hey Melanie!"
    assert not la.right(echoed, "The Tuesday before 20 July 2023", 2)  # a stamp, not an answer
    assert la.right(
        "Psychology, and a counseling certification.", "Psychology, counseling certification", 3
    )
    assert not la.right("Psychology.", "Psychology, counseling certification", 3)
    assert la.right("Your sources don't say what she realised.", "self-care is important", 5)
    assert not la.right("She realised self-care is important.", "self-care is important", 5)
    premise = "Your sources say this of Melanie, not Caroline: “I ran for charity”"
    assert la.right(premise, "self-care is important", 5)
    assert not la.right("Your sources don't say.\n- #1 s, 2023-05-07", "7 May 2023", 2)
    assert la.token_f1("Psychology and counseling", "Psychology, counseling certification") > 0.7
    assert la.token_f1("", "x") == 0.0


def test_only_the_answer_is_scored_and_an_answer_without_a_verified_quote_is_counted() -> None:
    report = "She went on 7 May 2023.\n- “went to the group yesterday” [#1, 2023-05-08, Caroline]"
    assert la.answer_of(report) == "She went on 7 May 2023."
    assert not la.unsupported(report)
    assert la.unsupported("She went on 7 May 2023 [#1].")
    assert not la.unsupported("Your sources don't say.\nThe nearest passages:\n- #1 x")
    marked = f"In May.\n\n(biomd found nothing in your sources that says this: {la.UNBACKED}.)"
    assert not la.unsupported(marked)


SAMPLE: dict[str, Any] = {
    "sample_id": "conv-test",
    "conversation": {
        "speaker_a": "Caroline",
        "speaker_b": "Melanie",
        "session_1_date_time": "1:56 pm on 8 May, 2023",
        "session_1": [
            {"speaker": "Caroline", "dia_id": "D1:1",
             "text": "I went to the LGBTQ support group yesterday and it was so powerful."},
            {"speaker": "Melanie", "dia_id": "D1:2", "text": "Wow, I painted a sunrise last year."},
        ],
    },
    "qa": [
        {"question": "When did Caroline go to the LGBTQ support group?", "answer": "7 May 2023",
         "evidence": ["D1:1"], "category": 2},
        {"question": "What did Caroline realize after her charity race?", "evidence": ["D1:1"],
         "category": 5, "adversarial_answer": "self-care is important"},
    ],
}  # fmt: skip


@pytest.mark.slow
async def test_a_run_asks_each_question_through_the_chat_turn(
    tmp_path: Path, llm: FakeLLM, minilm_path: Path
) -> None:
    data = tmp_path / "locomo.json"
    data.write_text(json.dumps([SAMPLE]), encoding="utf-8")
    llm.reply_with(
        answer_reply("Caroline went on 7 May.", (1, "went to the LGBTQ support group yesterday")),
        answer_reply("She realised self-care matters.", (1, "I painted a sunrise last year")),
    )
    totals = await la.main(
        ["--data", str(data), "--base-url", llm.base_url, "--model", "scripted",
         "--per-category", "1", "--models", str(minilm_path.parent)]
    )  # fmt: skip
    assert [a.right for a in totals.asked] == [True, True]
    when, premise = totals.asked
    assert when.answer == "Caroline went on 2023-05-07."  # the day "yesterday" names
    assert premise.answer.startswith("Your sources say this of Melanie, not Caroline")
    assert not when.unsupported and not when.false_alarm
    asked = llm.bodies[0]["messages"][-1]["content"]
    assert "support group yesterday (2023-05-07)" in asked  # found, and its time resolved
    assert len(llm.bodies) == 2 and "| temporal | 1 | 100% |" in totals.table()
