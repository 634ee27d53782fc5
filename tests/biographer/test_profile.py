"""bio.md: the skeleton, every edit_profile case, revisions, undo, reconciliation with the
file on disk, question ids, and the consolidation guard."""

from __future__ import annotations

import os
import stat
import time
from pathlib import Path

from biomd.app.engine import Engine
from biomd.biographer.consolidate import losses, unfence
from biomd.biographer.profile_text import (
    SECTIONS,
    SKELETON,
    changed_sections,
    citations,
    number_questions,
    open_questions,
    timeline,
)

BIO = """# bio.md

## Summary
Grace, a potter from Galway [#3].

## Timeline
- 2016-09: Left Galway for Dublin [#3, #8]
- 2019-06: Moved to Reykjavik with Tadhg [#12]

## Open questions
- [Q1] Why did you leave Galway in 2016? [#3]
- What was the first thing you made on a wheel?
"""


def test_sections_citations_questions_and_timeline_are_read_from_the_text() -> None:
    assert citations(BIO) == {3, 8, 12}
    assert open_questions(BIO)[0].id == "Q1"
    assert timeline(BIO) == [
        "2016-09: Left Galway for Dublin [#3, #8]",
        "2019-06: Moved to Reykjavik with Tadhg [#12]",
    ]
    numbered, next_id = number_questions(BIO, 2)
    assert "- [Q2] What was the first thing you made on a wheel?" in numbered
    assert next_id == 3
    assert [q.id for q in open_questions(numbered)] == ["Q1", "Q2"]
    assert changed_sections(BIO, BIO.replace("potter", "ceramicist")) == ["Summary"]
    assert all(f"## {s}" in SKELETON for s in SECTIONS)


async def test_the_first_load_writes_the_skeleton_privately(engine: Engine) -> None:
    assert await engine.profile.load() == SKELETON
    path = engine.profile.path
    assert path.read_text() == SKELETON
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    (rev,) = await engine.profile.history()
    assert (rev.mode, rev.reason) == ("init", "the skeleton")


async def test_every_edit_is_a_revision_and_undo_reverts_the_last_turns_edits(
    engine: Engine,
) -> None:
    profile = engine.profile
    await profile.load()
    await profile.edit(
        "", "- first turn line [#1]", section="Timeline", turn_id=1, mode="reading", reason="a"
    )
    await profile.edit(
        "", "- second turn line [#2]", section="Timeline", turn_id=2, mode="chat", reason="b"
    )
    await profile.edit("second turn", "2nd turn", turn_id=2, mode="chat", reason="c")
    history = await engine.profile.history()
    assert [(r.turn_id, r.mode, r.reason) for r in history[:3]] == [
        (2, "chat", "c"),
        (2, "chat", "b"),
        (1, "reading", "a"),
    ]
    assert history[0].old_text == "second turn" and history[0].new_text == "2nd turn"

    undone = await engine.profile.undo()
    assert undone is not None and undone.turn_id == 2
    text = profile.path.read_text()
    assert "first turn line" in text and "2nd turn" not in text
    again = await engine.profile.undo()
    assert again is not None and again.turn_id == 1
    assert profile.path.read_text() == SKELETON
    assert await engine.profile.undo() is None
    assert "2nd turn" in await profile.version(history[0].id), "nothing written is lost"


async def test_a_hand_edit_is_kept_as_a_revision_and_a_missing_file_is_restored(
    engine: Engine,
) -> None:
    profile = engine.profile
    await profile.edit(
        "", "- from a turn [#1]", section="Timeline", turn_id=1, mode="chat", reason="x"
    )
    profile.path.write_text(profile.path.read_text() + "- typed by the owner\n")
    assert "typed by the owner" in await profile.load()
    assert (await engine.profile.history())[0].mode == "manual"
    profile.path.unlink()
    assert "typed by the owner" in await profile.load()
    assert profile.path.exists()


async def test_a_crash_between_the_log_and_the_file_is_rolled_forward(engine: Engine) -> None:
    profile = engine.profile
    old = await profile.load()
    new = await profile.edit(
        "", "- new line [#1]", section="Timeline", turn_id=1, mode="chat", reason="x"
    )
    profile.path.write_text(old)  # as if the process died before the rename
    assert await profile.load() == new
    assert profile.path.read_text() == new
    assert [r.mode for r in await engine.profile.history()] == ["chat", "init"], (
        "no false hand edit"
    )


async def test_a_killed_writes_temp_file_is_swept_but_not_one_being_written(engine: Engine) -> None:
    folder = engine.profile.path.parent
    stale, fresh = folder / ".bio-dead.tmp", folder / ".bio-live.tmp"
    stale.write_text("half a bio")
    fresh.write_text("being written")
    os.utime(stale, (time.time() - 3600, time.time() - 3600))
    await engine.profile.load()
    assert not stale.exists()
    assert fresh.exists()


async def test_new_open_questions_get_stable_ids_that_are_never_reused(engine: Engine) -> None:
    profile = engine.profile
    await profile.load()
    await profile.edit(
        "", "- Where did you grow up?", section="Open questions", turn_id=1, mode="chat", reason="q"
    )
    await profile.edit(
        "",
        "- Who taught you pottery?",
        section="Open questions",
        turn_id=1,
        mode="chat",
        reason="q",
    )
    assert [(q.id, q.text) for q in await engine.questions.open()] == [
        ("Q1", "Where did you grow up?"),
        ("Q2", "Who taught you pottery?"),
    ]
    await profile.edit("- [Q1] Where did you grow up?\n", "", turn_id=2, mode="chat", reason="x")
    await profile.edit(
        "",
        "- What is your earliest memory?",
        section="Open questions",
        turn_id=2,
        mode="chat",
        reason="q",
    )
    assert [q.id for q in await engine.questions.open()] == ["Q2", "Q3"]


async def test_a_question_added_by_hand_is_an_open_question_with_an_id(engine: Engine) -> None:
    profile = engine.profile
    await profile.edit(
        "", "- Where did you grow up?", section="Open questions", turn_id=1, mode="chat", reason="q"
    )
    typed = "* Who taught you pottery?\n2. Why Reykjavik?\nWhat did Tadhg do there?\n"
    profile.path.write_text(profile.path.read_text() + typed)
    asked = [(q.id, q.text) for q in await engine.questions.open()]
    assert asked == [
        ("Q1", "Where did you grow up?"),
        ("Q2", "Who taught you pottery?"),
        ("Q3", "Why Reykjavik?"),
        ("Q4", "What did Tadhg do there?"),
    ]
    assert profile.path.read_text().endswith(typed), "reading never writes bio.md"
    assert (await profile.history())[0].mode == "manual"
    assert await engine.questions.get("q3")  # answering one gives them their ids in the file
    assert "- [Q4] What did Tadhg do there?" in profile.path.read_text()
    await profile.edit(
        "", "- Who was at the wedding?", section="Open questions", turn_id=2, mode="chat",
        reason="q",
    )  # fmt: skip
    assert [q.id for q in await engine.questions.open()][-1] == "Q5", "never an id twice"
    # bio.md kept so by an older biomd (its revision holds a question without an id)
    await profile.replace(await profile.load(), turn_id=None, mode="manual", reason="x")
    older = profile.path.read_text() + "- Is the kiln still yours?\n"
    await engine.store.revisions.add(older, turn_id=None, mode="manual", reason="old")
    profile.path.write_text(older)
    assert [q.id for q in await engine.questions.open()][-1] == "Q6"
    numbered, _ = number_questions("## Open questions\n_Nothing yet._\n  more of Q1?\n", 1)
    assert numbered == "## Open questions\n_Nothing yet._\n  more of Q1?\n", "not a question"


def test_the_consolidation_guard_names_what_a_rewrite_dropped() -> None:
    fine = BIO.replace("Grace, a potter", "Grace is a potter")
    assert not losses(BIO, fine)
    dropped = BIO.replace(" [#12]", "").replace(
        "- [Q1] Why did you leave Galway in 2016? [#3]\n", ""
    )
    lost = losses(BIO, dropped.replace("## Timeline", "## Dates"))
    assert lost.citations == [12]
    assert lost.questions == ["Q1"]
    assert lost.sections == ["Timeline"]
    assert lost.describe().startswith("citations [#12]; open questions [Q1]; sections ")
    assert unfence("```markdown\n# bio.md\n```") == "# bio.md\n"


async def test_bio_md_lives_in_the_private_data_dir(engine: Engine, tmp_path: Path) -> None:
    await engine.profile.load()
    assert engine.profile.path.parent == engine.settings.data_dir
