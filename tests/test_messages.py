"""Text for the chat platforms: search snippets around what was asked."""

from __future__ import annotations

from core.app.replies import snippet

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
    assert snippet("short\n  text", "x") == "short text"
