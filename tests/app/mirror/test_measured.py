"""The mirror's measured side: the figures per person and month against values computed by
hand, the dynamics planted in a generated life found (and a steady chat giving none), group
chats left out, quotes that don't verify dropped, and the owner's word kept."""

from __future__ import annotations

import asyncio
import json
import shutil
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from bench.mirror_life import write_life
from biomd.app.engine import Engine
from biomd.app.mirror.findings import Finding
from biomd.app.mirror.messages import VERSION, ParsedChats
from biomd.errors import BiomdError, NotFound
from biomd.frontends.cli import app
from biomd.retrieval.embedding import FastEmbedder
from biomd.settings import Settings
from biomd.storage.mirror import ParsedChat
from tests.conftest import make_settings
from tests.support import db
from tests.support.model_files import MINILM_NAME

# A WhatsApp (iOS) export, written by hand; 14/02 tells the reader the dates are day first.
HAND = (
    "[05/01/23, 09:00:00] Ana: hello there\n"
    "how are you\n"
    "[05/01/23, 09:10:00] Maya: fine thanks\n"
    "[05/01/23, 09:12:00] Maya: and you?\n"
    "[05/01/23, 10:00:00] Ana: good\n"
    "[05/01/23, 10:01:00] Ana: <attached: 00000001-PHOTO-2023-01-05-10-01-00.jpg>\n"
    "[06/01/23, 01:30:00] Ana: cant sleep\n"
    "[14/02/23, 12:00:00] Maya: hey\n"
    "[14/02/23, 12:03:00] Ana: hi!\n"
)


def life_settings(data: Path, minilm_path: Path, **extra: Any) -> Settings:
    return make_settings(data, minilm_path, owner_names="Ana", timezone="UTC", **extra)


@pytest.fixture(scope="session")
def life_template(tmp_path_factory: pytest.TempPathFactory, minilm_path: Path) -> Path:
    """A data dir holding the generated life (ingested once; each test gets a copy)."""
    root = tmp_path_factory.mktemp("life")
    files = write_life(root / "exports")

    async def build() -> None:
        async with await Engine.open(life_settings(root / "data", minilm_path)) as engine:
            async for r in engine.sources.ingest(list(files.values())):
                assert r.status == "added", r.error

    asyncio.run(build())
    return root / "data"


@pytest.fixture
async def life(
    life_template: Path, tmp_path: Path, minilm_path: Path, embedder: FastEmbedder
) -> AsyncIterator[Engine]:
    data = tmp_path / "data"
    shutil.copytree(life_template, data)
    async with await Engine.open(life_settings(data, minilm_path), embedder) as engine:
        yield engine


async def ingest_text(engine: Engine, tmp_path: Path, name: str, text: str) -> int:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    results = [r async for r in engine.sources.ingest([path])]
    assert results[0].status == "added", results[0].error
    doc_id = results[0].document_id
    assert doc_id is not None
    return doc_id


async def test_the_figures_of_a_chat_are_what_a_hand_count_gives(
    tmp_path: Path, minilm_path: Path
) -> None:
    async with await Engine.open(life_settings(tmp_path / "data", minilm_path)) as engine:
        doc = await ingest_text(engine, tmp_path, "WhatsApp Chat with Maya.txt", HAND)
        view = await engine.mirror.view()
    [maya] = view.people
    assert maya.name == "Maya" and maya.sources == (doc,)
    jan, feb = (json.loads(json.dumps(m)) for m in maya.as_json()["months"])  # type: ignore[attr-defined]
    assert jan == {
        "month": "2023-01",
        "messages_owner": 4,  # 09:00, 10:00, the photo at 10:01, 01:30
        "messages_them": 2,
        "started_owner": 2,  # the first message, and 01:30 after 15 h of silence
        "started_them": 0,
        "reply_median_owner_s": 2880.0,  # 10:00 answers Maya's 09:12
        "reply_median_them_s": 600.0,  # 09:10 answers 09:00
        "chars_median_owner": 10.0,  # 23 ("hello there", a line break, "how are you"), 4, 10
        "chars_median_them": 9.5,  # 11 and 8
        "late_night_owner": 1,  # 01:30
        "double_texts_owner": 1,  # 10:00, 10:01, 01:30: one run
    }
    assert jan.get("month") == "2023-01" and feb == {
        "month": "2023-02",
        "messages_owner": 1,
        "messages_them": 1,
        "started_owner": 0,
        "started_them": 1,
        "reply_median_owner_s": 180.0,
        "reply_median_them_s": None,
        "chars_median_owner": 3.0,
        "chars_median_them": 3.0,
        "late_night_owner": 0,
        "double_texts_owner": 0,
    }
    assert view.findings == []  # a few messages are no pattern


async def test_the_silence_that_starts_a_conversation_is_a_setting(
    tmp_path: Path, minilm_path: Path
) -> None:
    settings = life_settings(tmp_path / "data", minilm_path, mirror_silence_hours=0.5)
    async with await Engine.open(settings) as engine:
        await ingest_text(engine, tmp_path, "WhatsApp Chat with Maya.txt", HAND)
        jan = (await engine.mirror.view()).people[0].months[0]
    # 10:00 comes 48 minutes after 09:12: past half an hour it starts a conversation
    assert jan.started_owner == 3 and jan.reply_median_owner_s is None


def by_kind(findings: list[Finding], kind: str, person: str | None) -> list[Finding]:
    return [f for f in findings if f.kind == kind and f.person == person]


@pytest.mark.slow
async def test_the_dynamics_planted_in_a_life_are_found_and_a_steady_chat_gives_none(
    life: Engine,
) -> None:
    view = await life.mirror.view()
    names = {p.name: p for p in view.people}
    assert set(names) == {"Maya", "Leo", "Sam"}  # the family group is not a person
    assert [x.chat for x in view.left_out] == ["WhatsApp chat: Família"]
    assert "group chat (3 people)" in view.left_out[0].reason
    assert all(len(p.months) == 36 for p in names.values())

    [slower] = by_kind(view.findings, "reply_delay_owner", "Maya")
    assert slower.up and slower.after.first == "2022-07"
    assert 200 <= slower.before.value <= 420 and 2.5 * 3600 <= slower.after.value <= 3.5 * 3600
    assert slower.statement.startswith("Since July 2022, you take much longer to answer Maya")
    [starts] = by_kind(view.findings, "starts", "Maya")
    assert not starts.up and starts.after.first == "2022-07"
    assert starts.before.value > 0.6 and starts.after.value < 0.3
    [shorter] = by_kind(view.findings, "length_them", "Leo")  # Portuguese, Telegram JSON
    assert not shorter.up and shorter.after.first == "2022-03"
    late = by_kind(view.findings, "late_night", None)
    assert [(f.up, f.after.first, f.after.last) for f in late] == [
        (True, "2022-10", "2023-01"),
        (False, "2023-02", "2023-12"),
    ]
    assert not [f for f in view.findings if f.person == "Sam"]
    assert len(view.findings) == 5

    for f in view.findings:  # every quote is the source's text at its span, on both sides
        assert {q.side for q in f.evidence} == {"before", "after"}
        for q in f.evidence:
            part = await life.sources.read(q.source_id, q.start, q.end - q.start)
            assert part.text == q.quote and q.quote
        for side in ("before", "after"):  # a side's quotes say different things
            said = [q.quote for q in f.evidence if q.side == side]
            assert len(said) == len(set(said)), said
        replies = [q for q in f.evidence if q.to is not None]
        assert bool(replies) == (f.unit == "seconds")  # a reply comes with what it answers
        for q in replies:
            assert q.to is not None and q.to.date <= q.date and q.to.start < q.start
            part = await life.sources.read(q.to.source_id, q.to.start, q.to.end - q.to.start)
            assert part.text == q.to.quote and q.to.quote
            between = await life.sources.read(q.source_id, q.to.end, q.start - q.to.end)
            assert between.text.count("\n") == 1  # the message just before


@pytest.mark.slow
def test_the_json_has_the_documented_shape_and_an_unknown_person_is_an_error(
    life_template: Path, tmp_path: Path, minilm_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = tmp_path / "data"
    shutil.copytree(life_template, data)
    for key, value in {
        "BIOMD_DATA_DIR": str(data),
        "BIOMD_EMBED_MODEL": MINILM_NAME,
        "BIOMD_EMBED_MODEL_PATH": str(minilm_path),
        "BIOMD_OWNER_NAMES": "Ana",
        "BIOMD_TIMEZONE": "UTC",
    }.items():
        monkeypatch.setenv(key, value)
    result = CliRunner().invoke(app, ["mirror", "--person", "maya", "--json"])
    assert result.exit_code == 0, result.output
    shown = json.loads(result.output)
    [maya] = shown["people"]
    assert maya["name"] == "Maya" and isinstance(maya["sources"], list)
    assert set(maya["months"][0]) == {
        "month", "messages_owner", "messages_them", "started_owner", "started_them",
        "reply_median_owner_s", "reply_median_them_s", "chars_median_owner",
        "chars_median_them", "late_night_owner", "double_texts_owner",
    }  # fmt: skip
    assert {f["person"] for f in shown["findings"]} == {"Maya"}
    finding = shown["findings"][0]
    assert set(finding) >= {"id", "kind", "person", "statement", "before", "after", "evidence"}
    assert set(finding["before"]) == {"from", "to", "value"} and finding["status"] == "new"
    assert set(finding["evidence"][0]) >= {"source_id", "start", "end", "quote", "date"}
    assert shown["patterns"] == []

    result = CliRunner().invoke(app, ["mirror", "--since", "2023-01", "--json"])
    months = [m["month"] for p in json.loads(result.output)["people"] for m in p["months"]]
    assert min(months) == "2023-01"

    result = CliRunner().invoke(app, ["mirror", "--person", "Zoë"])
    assert result.exit_code == 1
    assert "knows no one called 'Zoë'" in result.output and "Maya" in result.output


async def test_a_quote_whose_span_is_not_a_message_is_dropped_with_its_finding(
    life: Engine,
) -> None:
    before = await life.mirror.view()
    [leo] = by_kind(before.findings, "length_them", "Leo")
    doc = leo.sources[0]
    [kept] = (await life.store.mirror.parsed([doc])).values()
    parsed = ParsedChats.load(kept.chats, kept.data)
    parsed.arrays["start"] = parsed.arrays["start"] + 3  # every span off by three characters
    chats, data = parsed.dump()
    await life.store.mirror.keep_parsed(ParsedChat(doc, VERSION, chats, data))
    life.mirror.measured._memo = None  # what a restart does
    after = await life.mirror.view()
    assert not by_kind(after.findings, "length_them", "Leo")
    assert after.dropped["findings"] >= 1
    assert by_kind(after.findings, "reply_delay_owner", "Maya")  # other sources unharmed


@pytest.mark.slow
async def test_a_dismissed_finding_stays_dismissed_until_a_new_source_adds_to_it(
    life: Engine, tmp_path: Path, minilm_path: Path
) -> None:
    [slower] = by_kind((await life.mirror.view()).findings, "reply_delay_owner", "Maya")
    assert "comes back only if a new source" in await life.mirror.dismiss(slower.id)
    data = life.settings.data_dir
    await life.close()
    async with await Engine.open(life_settings(data, minilm_path)) as engine:
        [again] = by_kind((await engine.mirror.view()).findings, "reply_delay_owner", "Maya")
        assert again.status == "dismissed"
        # a source about someone else changes nothing
        await ingest_text(
            engine, tmp_path, "WhatsApp Chat with Zed.txt", HAND.replace("Maya", "Zed")
        )
        [still] = by_kind((await engine.mirror.view()).findings, "reply_delay_owner", "Maya")
        assert still.status == "dismissed"
        # more of the chat with Maya, from another export: new evidence, shown again
        more = "".join(
            f"[{d:02d}/01/24, 10:00:00] Maya: are you there?\n"
            f"[{d:02d}/01/24, 13:30:00] Ana: sorry\n"
            for d in range(13, 29)
        )
        await ingest_text(engine, tmp_path, "WhatsApp Chat with Maya 2024.txt", more)
        [shown] = by_kind((await engine.mirror.view()).findings, "reply_delay_owner", "Maya")
        assert shown.status == "new" and len(shown.sources) == 2


async def test_a_confirmed_finding_goes_into_bio_md_with_its_sources_and_undo_takes_it_out(
    life: Engine,
) -> None:
    [slower] = by_kind((await life.mirror.view()).findings, "reply_delay_owner", "Maya")
    said = await life.mirror.confirm(slower.id)
    assert "bio.md's Patterns" in said
    bio = await life.profile.load()
    patterns = bio.split("## Patterns", 1)[1].split("##", 1)[0]
    assert slower.statement in patterns and f"[#{slower.sources[0]}]" in patterns
    [again] = by_kind((await life.mirror.view()).findings, "reply_delay_owner", "Maya")
    assert again.status == "confirmed"
    assert "confirmed already" in await life.mirror.confirm(slower.id)
    assert await life.profile.undo() is not None
    assert slower.statement not in await life.profile.load()


async def test_taking_back_or_dismissing_a_confirmed_finding_takes_its_line_out_of_bio_md(
    life: Engine,
) -> None:
    [slower] = by_kind((await life.mirror.view()).findings, "reply_delay_owner", "Maya")
    await life.mirror.confirm(slower.id)
    assert slower.statement in await life.profile.load()
    assert "new again" in await life.mirror.take_back(slower.id.lower())
    assert slower.statement not in await life.profile.load()
    [again] = by_kind((await life.mirror.view()).findings, "reply_delay_owner", "Maya")
    assert again.status == "new"
    await life.mirror.confirm(slower.id)  # confirmed again: the line comes back, once
    assert (await life.profile.load()).count(slower.statement) == 1
    await life.mirror.dismiss(slower.id)
    assert slower.statement not in await life.profile.load()
    [gone] = by_kind((await life.mirror.view()).findings, "reply_delay_owner", "Maya")
    assert gone.status == "dismissed"
    with pytest.raises(NotFound, match="nothing to take back"):
        await life.mirror.take_back("F00000000")


@pytest.mark.slow
async def test_forgetting_a_source_takes_its_findings_and_its_parse_with_it(life: Engine) -> None:
    [shorter] = by_kind((await life.mirror.view()).findings, "length_them", "Leo")
    assert shorter.sources[0] in db.mirror_parsed(life.settings.db_path)
    await life.sources.forget(shorter.sources[0])
    view = await life.mirror.view()
    assert not [f for f in view.findings if f.person == "Leo"]
    assert "Leo" not in {p.name for p in view.people}
    assert shorter.sources[0] not in db.mirror_parsed(life.settings.db_path)


async def test_unknown_person_is_a_clear_error_in_the_api_too(life: Engine) -> None:
    with pytest.raises(NotFound, match="knows no one called 'Nobody'"):
        await life.mirror.view(person="Nobody")
    view = await life.mirror.view(person="leo")
    assert [p.name for p in view.people] == ["Leo"]
    with pytest.raises(NotFound, match="only in group chats"):
        await life.mirror.view(person="Mãe")
    with pytest.raises(BiomdError, match="comes after the end"):
        await life.mirror.view(since="2023", until="2021")


async def test_a_chat_with_no_line_of_the_owners_says_to_name_them(
    tmp_path: Path, minilm_path: Path, embedder: FastEmbedder
) -> None:
    settings = make_settings(tmp_path / "data", minilm_path, owner_names="", timezone="UTC")
    async with await Engine.open(settings, embedder) as engine:
        await ingest_text(engine, tmp_path, "WhatsApp Chat with Maya.txt", HAND)
        with pytest.raises(NotFound, match="none of its lines is marked as yours") as said:
            await engine.mirror.view(person="Maya")
    assert "BIOMD_OWNER_NAMES" in said.value.user_message
    assert "group chat" not in said.value.user_message
