"""bench/locomo_answers.py: its rules score answers as the issue defines them, and a run asks
each question through `Biography.ask` against the fake server, with the passages found."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from bench import locomo_answers as la
from tests.support.fake_llm import FakeLLM


def test_the_rules_score_words_dates_and_silence() -> None:
    assert la.right("She went to the LGBTQ support group on 7 May 2023.", "7 May 2023", 2)
    assert la.right("That was on May 3, 2023 [#1].", "7 May 2023", 2)  # within a week
    assert not la.right("In June 2023.", "7 May 2023", 2)
    assert la.right("She painted it in 2022.", "2022", 2)
    assert not la.right("In 2021.", "2022", 2)
    echoed = "She joined last Tues.\n[2023-07-20 20:56] Caroline: Hey Melanie!"
    assert not la.right(echoed, "The Tuesday before 20 July 2023", 2)  # a stamp, not an answer
    assert la.right(
        "Psychology, and a counseling certification.", "Psychology, counseling certification", 3
    )
    assert not la.right("Psychology.", "Psychology, counseling certification", 3)
    assert la.right("Your sources don't say what she realised.", "self-care is important", 5)
    assert not la.right("She realised self-care is important.", "self-care is important", 5)
    assert la.token_f1("Psychology and counseling", "Psychology, counseling certification") > 0.7
    assert la.token_f1("", "x") == 0.0


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
    llm.reply_with("Caroline went on 7 May 2023 [#1].", "Your sources don't say what she realised.")
    totals = await la.main(
        ["--data", str(data), "--base-url", llm.base_url, "--model", "scripted",
         "--per-category", "1", "--models", str(minilm_path.parent)]
    )  # fmt: skip
    assert [a.right for a in totals.asked] == [True, True]
    asked = llm.bodies[0]["messages"][-1]["content"]
    assert "support group yesterday (2023-05-07)" in asked  # found, and its time resolved
    assert len(llm.bodies) == 2 and "| temporal | 1 | 100% |" in totals.table()
