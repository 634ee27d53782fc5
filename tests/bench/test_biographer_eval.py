"""bench/biographer_eval.py runs end to end against the fake OpenAI-compatible server: the
sample life is ingested and read, the ten questions are asked, and the score is what the
scripted model earned."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from bench import biographer_eval as ev
from tests.support.fake_llm import FakeLLM, answer_reply, tool_reply

pytestmark = pytest.mark.slow  # a benchmark run end to end

KEY = json.loads(ev.KEY.read_text(encoding="utf-8"))


def script(llm: FakeLLM) -> None:
    """The reading turns: the first places one cited Timeline line, about source #3, then
    each reports. The answers: the first right and cited, the second citing a source that
    does not exist (its quote is of a real one), the rest a shrug."""
    line = "- 2021-02: Moved to a flat in Graça, Lisbon [#3]."
    answers = [
        answer_reply(
            "You worked at Fieldnote Studio in Hackney [#1].",
            (1, "Fieldnote has been good to me, but six years in the same room in Hackney"),
        ),
        answer_reply("You moved in 2021 [#25].", (3, "First freelance invoice paid")),
    ]
    placed: list[bool] = []

    def play(body: dict[str, Any]) -> dict[str, Any] | str:
        last = body["messages"][-1]
        if str(last["content"]).startswith("New notes") and last["role"] == "user":
            if not placed:
                placed.append(True)
                edit = {"old_text": "## Timeline\n", "new_text": f"## Timeline\n{line}\n"}
                return tool_reply(("edit_profile", edit))
            return "Read the notes."
        if last["role"] == "tool":
            return "Placed it."
        return answers.pop(0) if answers else "I don't know."

    llm.responder = play


async def test_the_eval_scores_a_scripted_run_and_appends_a_dated_row(
    tmp_path: Path, llm: FakeLLM, monkeypatch: object
) -> None:
    script(llm)
    results = tmp_path / "RESULTS.md"
    results.write_text("# Results\n\nEarlier text.\n", encoding="utf-8")
    argv = [
        "--base-url",
        llm.base_url,
        "--api-key",
        "sk-test",
        "--model",
        "scripted",
        "--label",
        "test",
        "--results",
        str(results),
        "--keep",
        str(tmp_path / "out"),
    ]
    s, r = await ev.main(argv)
    # the Lisbon line, cited [#3], and what the rules placed from the notes (the default)
    assert s.facts >= 1 and s.facts_cited == s.facts
    assert (s.answers, s.answers_total) == (2, 10), "Fieldnote, and 2021"
    assert (s.invented_in_bio, s.invented_in_answers) == (0, 1), "[#25] does not exist"
    assert r.edits_made == 1 and r.unread_queue == 0 and r.never_opened == 0
    assert r.notes_kept >= KEY["sources"] and r.notes_dropped == 0
    assert [t for t in r.turns if t.mode == "reading"]
    text = results.read_text(encoding="utf-8")
    assert text.startswith("# Results\n\nEarlier text.\n")
    assert ev.HEADING in text
    row, portrait = [line for line in text.splitlines() if "| test |" in line]
    assert f"| scripted | {s.facts}/17 | {s.facts_cited}/17 |" in row
    assert ev.PORTRAIT_HEADING in text and f"| sample | test | {s.facts_cited}/17 |" in portrait
    assert "| 2/2 |" in portrait  # Mum and Inês, with relations from the sample's own words
    await ev.main([*argv[:-2], "--label", "second"])
    rows = [line for line in results.read_text().splitlines() if line.startswith("| 20")]
    assert len(rows) == 4, "a second run adds a row to each table"
    assert (tmp_path / "out" / "bio.md").read_text(encoding="utf-8") == r.bio
