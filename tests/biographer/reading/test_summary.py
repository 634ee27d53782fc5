"""The Summary and Identity, written from bio.md's lines once it has facts and no Summary;
a sentence its lines don't support is dropped (issue 51)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from biomd.app.engine import Engine
from biomd.biographer.profile_text import section, skeleton
from biomd.biographer.reading.summary import into, kept, numbered, wanted
from tests.conftest import llm_settings
from tests.support.fake_llm import FakeLLM, content, notes_reply
from tests.support.reading import read_round

BIO = skeleton().replace(
    "## Timeline\n",
    "## Timeline\n- 2020-12-18: Nina handed in her notice at Fieldnote [#2]\n"
    "- 2021-02: Nina moved to Lisbon with her cat Biscuit [#3]\n",
)


def test_a_bio_md_with_facts_and_no_summary_wants_one() -> None:
    assert wanted(BIO) and not wanted(skeleton())
    assert numbered(BIO) == {
        1: "2020-12-18: Nina handed in her notice at Fieldnote [#2]",
        2: "2021-02: Nina moved to Lisbon with her cat Biscuit [#3]",
    }
    assert not wanted(
        into(BIO, kept(_reply(("Nina left Fieldnote for Lisbon.", [1, 2])), numbered(BIO)))
    )


def test_a_summary_biomd_wrote_is_written_again_once_bio_md_has_grown_and_the_owners_never() -> (
    None
):
    ours = into(BIO, kept(_reply(("Nina left Fieldnote for Lisbon.", [1, 2])), numbered(BIO)))
    text = section(ours, "summary")
    assert not wanted(ours, text, 2)
    grown = ours.replace(
        "## Timeline\n", "## Timeline\n- 2022-01: Nina took Portuguese lessons [#4]\n"
    )
    assert wanted(grown, text, 2)  # 3 lines from 2
    mine = grown.replace(text, "I am Nina, and this is my life. [#2]")
    assert not wanted(mine, text, 2)


def _reply(
    *summary: tuple[str, list[int]], identity: tuple[tuple[str, list[int]], ...] = ()
) -> str:
    return json.dumps(
        {
            "summary": [{"text": t, "lines": n} for t, n in summary],
            "identity": [{"text": t, "lines": n} for t, n in identity],
        }
    )


def test_each_sentence_must_rest_on_the_lines_it_names_and_cites_their_sources() -> None:
    reply = _reply(
        ("Nina left Fieldnote in 2020 and moved to Lisbon.", [1, 2]),
        ("Nina moved to Lisbon in 2019.", [2]),  # a year no line gives
        ("Nina lives with Inês.", [2]),  # a name no line gives
        ("Nina has a cat.", [7]),  # a line that isn't there
        identity=(("Nina has a cat called Biscuit.", [2]),),
    )
    top = kept(reply, numbered(BIO))
    assert top.summary == ["Nina left Fieldnote in 2020 and moved to Lisbon. [#2, #3]"]
    assert top.identity == ["Nina has a cat called Biscuit. [#3]"]
    assert len(top.refused) == 3
    bio = into(BIO, top)
    assert section(bio, "summary") == "Nina left Fieldnote in 2020 and moved to Lisbon. [#2, #3]"
    assert section(bio, "identity") == "- Nina has a cat called Biscuit. [#3]"


@pytest.mark.slow
async def test_a_reading_round_writes_the_summary_once(
    tmp_path: Path, minilm_path: Path, llm: FakeLLM
) -> None:
    settings = llm_settings(tmp_path, minilm_path, llm, owner_names="Nina Castell, Nina")
    journal = "Handed in my notice today. Daniel took it well.\n"
    llm.notes.append(
        notes_reply(
            {"kind": "event", "date": "2020-12-18", "people": ["Daniel"],
             "statement": "Nina handed in her notice", "quote": "Handed in my notice today."},
        )
    )  # fmt: skip
    llm.summaries.append(_reply(("Nina handed in her notice in 2020.", [1])))
    async with await Engine.open(settings) as engine:
        await engine.sources.keep_text(journal, "2020-12-18.md")
        (result,) = await read_round(engine)
        bio = await engine.profile.load()
        assert section(bio, "summary") == "Nina handed in her notice in 2020. [#1]"
        assert "a Summary of 1 sentence written" in result.reading
        await engine.sources.keep_text("Ten days in Lisbon.\n", "2021-02-10.md")
        await read_round(engine)  # bio.md grows from 1 line to 2: biomd's Summary is redone
        bio = await engine.profile.load()
        mine = bio.replace(section(bio, "summary"), "Nina, in her own words. [#1]")
        await engine.profile.replace(mine, turn_id=None, mode="manual", reason="owner")
        for i, text in enumerate(("Porto next?\n", "Rent is up.\n", "Biscuit is fine.\n")):
            await engine.sources.keep_text(text, f"2022-0{i + 1}-01.md")
        await read_round(engine)
        assert section(await engine.profile.load(), "summary") == "Nina, in her own words. [#1]"
    asked = [
        b for b in llm.writer_bodies if content(b["messages"][0]).startswith("You write the top")
    ]
    assert len(asked) == 2  # the owner's Summary stays, however bio.md grows
    assert "L1: 2020-12-18: Nina handed in her notice [#1]" in content(asked[0]["messages"][-1])


def test_a_sentence_that_misstates_who_someone_is_is_dropped() -> None:
    bio = BIO.replace(
        "## People & relationships\n",
        "## People & relationships\n- Werner: Nina's father [#2]\n- Inês: Nina's partner [#3]\n",
    )
    lines = numbered(bio)
    top = kept(
        _reply(
            ("Nina is a father of Werner.", [1]),  # L1, L2: the People lines
            ("Nina is married to Inês.", [2]),
            ("Nina lives with her partner Inês.", [2]),
        ),
        lines,
        bio,
    )
    assert [x.split(" [")[0] for x in top.summary] == ["Nina lives with her partner Inês."]
    assert len(top.refused) == 2


def test_a_reply_cut_off_inside_its_json_keeps_the_whole_sentences_that_rest_on_lines() -> None:
    ran_on = (
        '{"summary": [{"text": "Nina Castell is a British designer. Nina moved to Lisbon with '
        "her cat Biscuit. Nina moved to Lisbon with her cat Biscuit. Nina is currently wor"
    )
    top = kept(ran_on, numbered(BIO), BIO, ("Nina Castell", "Nina"))
    assert top.summary == ["Nina moved to Lisbon with her cat Biscuit. [#3]"]  # once, cited
    assert top.refused == ["'Nina Castell is a British designer.': it names no line"]
