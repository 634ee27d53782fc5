"""edit_profile can't go wrong: appends land in their section, old_text is matched loosely
but only uniquely, headings and the title are fixed, and a near miss shows the closest lines.
The replies are shaped like what Qwen2.5-Coder-1.5B sent behind llama-server."""

from __future__ import annotations

import pytest

from biomd.biographer.edits import apply_edit, find_section, removed_share
from biomd.biographer.profile_text import SKELETON, section
from biomd.errors import ProfileEditError

BIO = SKELETON.replace(
    "## Timeline\n",
    "## Timeline\n- 2019-04-07: Ran a half marathon in 2:04:51 [#1]\n"
    "- 2021-02: Moved to a flat with a lemon tree [#3]\n",
).replace("## People & relationships\n", "## People & relationships\n- Sam: old friend [#1]\n")


def test_an_append_goes_under_its_section_and_one_without_a_section_is_refused() -> None:
    after = apply_edit(BIO, "", "- 2024-01-03: Running again [#6]", "Timeline")
    assert section(after, "Timeline").splitlines()[-1] == "- 2024-01-03: Running again [#6]"
    assert section(after, "Open questions") == "", "not at the end of the file"
    with pytest.raises(ProfileEditError, match=r"needs a section.*Timeline, People"):
        apply_edit(BIO, "", "- 2024-01-03: Running again [#6]")
    with pytest.raises(ProfileEditError, match=r"no section 'Hobbies'.*Summary, Identity"):
        apply_edit(BIO, "", "- pottery", "Hobbies")
    people = apply_edit(BIO, "", "- Inês: partner [#4]", "people")  # by the title's start
    assert "- Inês: partner [#4]" in section(people, "People & relationships")
    summary = apply_edit(BIO, "", "A designer [#1].", "Summary")
    assert section(summary, "Summary") == "A designer [#1].", "the placeholder gives way"


def test_old_text_with_the_leading_newline_the_wrapper_invites_still_matches() -> None:
    after = apply_edit(
        BIO,
        "\n- 2021-02: Moved to a flat with a lemon tree [#3]\n",
        "\n- 2021-02: Moved to a flat in Graça with a lemon tree [#3]\n",
    )
    assert "- 2021-02: Moved to a flat in Graça with a lemon tree [#3]\n" in after
    assert "\n\n- 2021-02" not in after and "[#3]\n\n## People" in after


def test_a_near_miss_matches_when_unique_and_otherwise_shows_the_closest_lines() -> None:
    loose = "“2019-04-07:  Ran a half marathon in 2:04:51 [#1]”"  # quotes, spaces, no bullet
    after = apply_edit(BIO, loose, "- 2019-04-07: Ran the Bath half marathon in 2:04:51 [#1]")
    assert "- 2019-04-07: Ran the Bath half marathon in 2:04:51 [#1]\n" in after
    assert "- - 2019" not in after, "the bullet is not doubled"
    dashes = BIO.replace("old friend", "old friend – since school")
    assert "since college" in apply_edit(
        dashes, "old friend - since school", "old friend - since college"
    )
    with pytest.raises(ProfileEditError) as err:
        apply_edit(BIO, "- 2019-04-07: Ran a half marathom in 2:05", "x")
    assert "not found" in str(err.value)
    assert "closest lines in bio.md are:\n  - 2019-04-07: Ran a half marathon" in str(err.value)
    twice = BIO.replace("old friend [#1]", "old friend [#1]\n- Tom: old friend [#2]")
    with pytest.raises(ProfileEditError, match="matches 2 places"):
        apply_edit(twice, "old friend", "friend")
    narrowed = apply_edit(twice, "Tom: old friend", "Tom: brother")
    assert "- Tom: brother [#2]" in narrowed


def test_headings_and_the_title_are_fixed_and_nothing_goes_above_summary() -> None:
    with pytest.raises(ProfileEditError, match=r"inside bio\.md's title"):
        apply_edit(BIO, "bio.md", "Ran along the river this morning.")  # seen from the model
    with pytest.raises(ProfileEditError, match="inside the heading '## Timeline'"):
        apply_edit(BIO, "Timeline", "Life")
    with pytest.raises(ProfileEditError, match="remove the heading '## Patterns'"):
        apply_edit(BIO, "## Patterns\n", "")
    with pytest.raises(ProfileEditError, match="add the heading '## Hobbies'"):
        apply_edit(BIO, "", "## Hobbies\n- pottery", "Patterns")
    with pytest.raises(ProfileEditError, match="Nothing may go above the first section"):
        apply_edit(BIO, "# bio.md\n", "# bio.md\nRan along the river.\n")
    kept = apply_edit(BIO, "## Identity\n", "## Identity\n- Designer [#1]\n")
    assert section(kept, "Identity") == "- Designer [#1]", "a heading kept whole may anchor"


def test_edits_that_do_nothing_and_section_lookups() -> None:
    with pytest.raises(ProfileEditError, match="both empty"):
        apply_edit(BIO, "", "")
    assert find_section(BIO, "Open Questions").title == "Open questions"
    assert find_section(BIO, "## Inferences").title == "Inferences"
    assert removed_share("abcd", "ab") == 0.5 and removed_share("ab", "abcd") == 0.0


def test_an_append_of_what_is_already_there_is_refused() -> None:
    once = apply_edit(BIO, "", "- 2024-01-03: Running again [#6]", "Timeline")
    with pytest.raises(ProfileEditError, match="already in Timeline: nothing was added"):
        apply_edit(once, "", "- 2024-01-03:  Running again [#6]\n", "Timeline")
    twice = apply_edit(
        once, "", "- 2024-01-03: Running again [#6]\n- 2024-02: Faster [#7]", "Timeline"
    )
    assert twice.count("Running again") == 1 and "- 2024-02: Faster [#7]" in twice, "only the new"
