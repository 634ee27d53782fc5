"""What another assistant is shown before each of its model's calls, and in its system
prompt: bio.md's lines and the passages that bear on the message, within the budget, each
with its reference; nothing for a social message."""

from __future__ import annotations

from datetime import date

from biomd.app.assistants.recall import PORTRAIT_CHARS, portrait, recall
from biomd.biographer.evidence import ShownPassage
from biomd.biographer.profile_text import skeleton

BIO = (
    skeleton()
    .replace(
        "## Summary\n_Nothing is known yet. This fills in as sources are read._",
        "## Summary\nA runner and translator who moved from London to Lisbon.",
    )
    .replace(
        "## Timeline\n",
        "## Timeline\n- 2019-04-07: Ran the Bath half marathon, living in London [#1]\n"
        "- 2021-02: Moved to Lisbon for a translation job [#3]\n",
    )
    .replace(
        "## People & relationships\n",
        "## People & relationships\n- Inês: her partner since 2021, a potter [#4, #7]\n",
    )
    .replace(
        "## Patterns\n",
        "## Patterns\n- Reassures Maya while complaining about her elsewhere [#5] "
        "(the mirror, P2, confirmed by you)\n- Writes long voice notes when anxious [#6]\n",
    )
    .replace("## Open questions\n", "## Open questions\n- [Q1] Did you take the marathon job?\n")
)
RUN = ShownPassage(
    1, "2019-04-07.md", "2019-04-07", date(2019, 4, 7), "Ran the Bath half marathon today."
)
CHAT = ShownPassage(
    4,
    "WhatsApp Chat with Inês.txt",
    "2021-03-01 to 2022-05-02",
    None,
    "[2021-03-02 19:04] Inês: the kiln is finally fixed\n[2021-03-02 19:05] Ana: 🎉",
)


def test_a_question_gets_the_lines_that_bear_on_it_and_the_passages_with_their_references() -> None:
    block = recall(BIO, "When did I run a marathon?", [RUN], [], 4000)
    assert "Ran the Bath half marathon, living in London [#1]" in block
    assert "[#1 '2019-04-07.md', 2019-04-07]" in block and "<source_data>" in block
    assert "Moved to Lisbon" not in block, "a line sharing no word and citing no hit"
    assert "[Q1]" not in block, "an open question is not a fact"


def test_a_line_citing_a_found_source_comes_with_it() -> None:
    block = recall(BIO, "how is the pottery going", [CHAT], [], 4000)
    assert "Inês: her partner since 2021, a potter [#4, #7]" in block
    assert "Inês: the kiln is finally fixed" in block


def test_a_social_message_gets_nothing() -> None:
    for message in ("thanks!", "ok", "hello there", "Danke", ""):
        assert recall(BIO, message, [RUN], [], 4000) == "", message


def test_nothing_found_and_no_line_is_nothing_and_an_empty_bio_still_gives_passages() -> None:
    assert recall(BIO, "what is the capital of Peru?", [], [], 4000) == ""
    block = recall(skeleton(), "When did I run a marathon?", [RUN], [], 4000)
    assert "Ran the Bath half marathon today" in block and "bio.md" not in block.split("\n")[2]


def test_the_block_keeps_within_its_budget_and_its_wrapper_closed() -> None:
    long = ShownPassage(2, "diary.md", "2019-05-01", None, "marathon training, " * 400)
    for budget in (600, 1000, 2000, 4000):
        block = recall(BIO, "marathon", [RUN, long, CHAT], [], budget)
        assert len(block) <= budget, budget
        assert block.count("<source_data>") == block.count("</source_data>"), budget


def test_the_portrait_is_summary_identity_and_only_the_confirmed_patterns() -> None:
    text = portrait(BIO)
    assert "A runner and translator" in text
    assert "Reassures Maya" in text and "voice notes" not in text
    assert len(portrait(BIO.replace("A runner", "A runner " * 400))) <= PORTRAIT_CHARS
    assert portrait(skeleton()) == ""
