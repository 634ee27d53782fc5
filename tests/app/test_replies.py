"""Text for the chat platforms: search snippets around what was asked."""

from __future__ import annotations

from biomd.app.replies import snippet

TEXT = (
    "# Sunday 7 April 2019 Ran the Bath half marathon this morning. Legs like wet cardboard. "
    "Two years without a cigarette now. Dad would have stood at mile ten with a flask of tea. "
    "Work is fine. Daniel gave the Ordnance project to me, which means late nights until June. "
    "Fieldnote has been good to me, but six years in the same room in Hackney is a long time."
)


def test_a_snippet_shows_where_most_of_the_question_is_and_marks_the_cuts() -> None:
    cut = snippet(TEXT, "what did Daniel give me, the Ordnance project?", 120)
    assert "Daniel gave the Ordnance project" in cut
    assert cut.startswith("…") and cut.endswith("…")
    assert len(cut) <= 122
    assert "cigarette" not in cut and "marathon" not in cut  # far from the question: left out


def test_words_match_by_their_stem_and_text_without_a_match_starts_at_the_top() -> None:
    assert "without a cigarette" in snippet(TEXT, "cigarettes", 100)
    assert snippet(TEXT, "zebra", 60).startswith("# Sunday 7 April")
    assert snippet("short\n\n  text  here", "x") == "short\ntext here"


CHAT = "\n".join(
    f"[2022-05-{d:02d} 10:00] {who}: {said}"
    for d, who, said in [
        (1, "Saoirse", "are you coming to the market on saturday morning with everyone"),
        (2, "Grace (owner)", "maybe, I have to finish the shelves for the studio first"),
        (3, "Saoirse", "bring Tadhg, the potter stall is back and he will love it"),
        (4, "Grace (owner)", "Tadhg sold three bowls at the potter stall last year"),
        (5, "Saoirse", "then we have to go early before the crowds arrive at ten"),
        (6, "Grace (owner)", "fine, see you at nine at the gate by the old church"),
    ]
)


def test_a_chat_snippet_keeps_its_messages_apart_and_holds_the_matching_one() -> None:
    cut = snippet(CHAT, "How many bowls did Tadhg sell?", 200)
    lines = cut.strip("…").split("\n")
    assert "[2022-05-04 10:00] Grace (owner): Tadhg sold three bowls" in lines[0] or any(
        line.startswith("[2022-05-04 10:00] Grace (owner): Tadhg sold three bowls")
        for line in lines
    )
    assert all(line.startswith("[2022-05-0") for line in lines), "one message a line, whole"
    assert len(cut) <= 202 and cut.startswith("…") and cut.endswith("…")
