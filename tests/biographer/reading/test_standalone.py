"""A line of bio.md that stands alone, and the rules' third person."""

from __future__ import annotations

import pytest

from biomd.biographer.reading.standalone import fault, third_person

NINA = ("Nina Castell", "Nina")


@pytest.mark.parametrize(
    ("line", "why"),
    [
        ("- 2021-02: I said maybe [#3]", "a fragment"),
        ("- Subject: Re: are you actually alive [#8]", "an e-mail header"),
        ("From: Nina Castell <nina@example.com>", "an e-mail header"),
        ("- Mit sportlichen Grüßen, der Vorstand [#3]", "a greeting or a sign-off"),
        ("- Lieber Jonas, [#3]", "a greeting or a sign-off"),
        (
            "- 2020-08-14: Lieber Jonas, welcome to the Ruderclub Leipzig! [#3]",
            "opened by a greeting",
        ),
        ("- Dear Nina, the team loved her portfolio [#9]", "opened by a greeting"),
        ("- 2019-04-07: Ran the Bath half marathon in 2:04:51 [#1]", "without a subject"),
        ("- 2021-05: I met Inês at the pottery class [#4]", "in the first person of its source"),
        ("- Ich habe Deniz im Ruderclub kennengelernt [#4]", "in the first person of its source"),
        ("- Write to nina.castell@example.com about the flat [#8]", "an address, not a statement"),
        ("- Nina knows you think she should ring Tom first [#8]", "spoken to someone ('you')"),
        ("- Mum is the owner's mother, in Bristol [#7]", "about 'the owner', not by name"),
        ("- Handed in Nina's notice today [#2]", "without a subject"),
    ],
)
def test_lines_that_cannot_stand_alone_say_why(line: str, why: str) -> None:
    assert fault(line, NINA) == why


@pytest.mark.parametrize(
    "line",
    [
        "- 2019-04-07: Nina ran the Bath half marathon in 2:04:51 [#1]",
        "- 2023-10: Nina told Mum “I am fine for money” while short of it [#5, #7]",
        "- Miriam und Paul heiraten am 14. September in Warnemünde [#2]",
        "- Thanks to Rui, Nina got the job in Porto [#9]",
        "- Nina moved to the US in 2020 with Ana, Tom says (confidence: low) [#2]",
    ],
)
def test_a_statement_with_a_subject_stands_alone(line: str) -> None:
    assert fault(line, NINA) is None


def test_rules_put_english_and_german_into_the_third_person_where_a_table_can() -> None:
    assert third_person("I've met someone", NINA) == "Nina has met someone"
    assert third_person("I handed in my notice", NINA) == "Nina handed in Nina's notice"
    assert third_person("Ich bin ab Februar Stationsleitung", ["Jonas Berger"]) == (
        "Jonas ist ab Februar Stationsleitung"
    )
    assert (
        third_person("Meine Schwester wohnt in Rostock", ["Jonas"])
        == "Jonas' Schwester wohnt in Rostock"
    )
    assert (
        third_person("Ich mache nur noch Nachtdienste", ["Jonas"]) is None
    )  # the verb would change
    assert third_person("Nina moved to Lisbon", NINA) == "Nina moved to Lisbon"
    assert (
        third_person("I keep waiting and I miss the sea", NINA)
        == "Nina keeps waiting and Nina misses the sea"
    )
    assert (
        third_person("I went home and I never called", NINA)
        == "Nina went home and Nina never called"
    )
