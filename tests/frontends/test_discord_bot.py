"""The Discord bot against a local fake REST API and gateway, with the real discord.py,
the fake LLM server and real speech recognition."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from biomd.app.engine import Engine
from biomd.app.jobs import SourceJob
from biomd.frontends.runner import BotApp
from tests.conftest import make_settings
from tests.support import chat_fixtures as fx
from tests.support import db
from tests.support.fake_discord import FakeDiscord, fake_discord
from tests.support.fake_llm import FakeLLM, fake_llm
from tests.support.media_fixtures import HINTED_SENTENCE, encode, speak
from tests.support.model_files import whisper_dir

pytestmark = pytest.mark.slow  # the bot end to end against the fake Discord

OWNER = 311
STRANGER = 322


@dataclass
class Rig:
    app: BotApp
    dc: FakeDiscord
    llm: FakeLLM

    @property
    def dm(self) -> str:
        return self.dc.dm_channel(OWNER)


def settings_for(tmp_path: Path, minilm_path: Path, llm: FakeLLM) -> Any:
    return make_settings(
        tmp_path / "data",
        minilm_path,
        discord_token="discord-test-token",
        discord_allowed_users=str(OWNER),
        llm_base_url=llm.base_url,
        llm_api_key="sk-test",
        whisper_model=str(whisper_dir()),
        owner_names="grace",
        timezone="UTC",
    )


@pytest.fixture
async def rig(tmp_path: Path, minilm_path: Path, embedder: Any) -> AsyncIterator[Rig]:
    with fake_llm() as llm:
        async with fake_discord() as dc:
            app = BotApp(settings_for(tmp_path, minilm_path, llm), embedder)
            await app.start()
            try:
                yield Rig(app, dc, llm)
            finally:
                await app.stop()


async def test_a_forwarded_export_is_queued_reported_as_it_goes_and_summarised(rig: Rig) -> None:
    dc, llm = rig.dc, rig.llm
    llm.reply_with("A family chat from February 2021 about Sunday lunch [#1].")
    name = "WhatsApp Chat - Família Silva.txt"
    await dc.push(OWNER, attachments=[dc.attachment(name, fx.WHATSAPP_IOS.encode())])
    await dc.wait_for(lambda: any("Sunday lunch" in t for t in dc.texts()))
    texts = dc.texts(rig.dm)
    assert texts[0] == f"{name}: queued"
    assert f"{name}: downloading…" in texts and f"{name}: done" in texts
    assert f"{name}: reading it (biographer)…" in texts
    assert texts[-1].startswith("A family chat from February 2021") and "!source 1" not in texts[-1]
    edits = [p for m, p, _ in dc.calls if m == "PATCH"]
    assert edits and all(p.startswith(f"/channels/{rig.dm}/messages/") for p in edits)
    assert [(d.name, d.kind) for d in await rig.app.engine.sources.all()] == [(name, "whatsapp")]


@pytest.mark.speech
async def test_a_voice_message_is_transcribed_echoed_and_kept_as_a_source(
    rig: Rig, tmp_path: Path
) -> None:
    dc = rig.dc
    ogg = encode(speak(HINTED_SENTENCE, tmp_path / "s.wav"), tmp_path / "v.ogg", "ogg", "libopus")
    rig.llm.reply_with("A spoken note about a friend's move.")
    await dc.push(OWNER, attachments=[dc.attachment("voice-message.ogg", ogg.read_bytes(), True)])
    await dc.wait_for(lambda: any("friend's move" in t for t in dc.texts()))
    heard = next(t for t in dc.texts() if t.startswith("Heard:"))
    assert "friend" in heard.lower()
    (source,) = await rig.app.engine.sources.all()
    assert source.kind == "audio" and source.name.startswith("voice note ")


async def test_a_reply_to_a_pushed_question_is_its_answer(rig: Rig) -> None:
    dc, llm = rig.dc, rig.llm
    await rig.app.engine.profile.edit(
        "",
        "- Why did you leave Galway in 2016? (important)",
        section="Open questions",
        turn_id=None,
        mode="chat",
        reason="q",
    )
    assert await rig.app.push_questions() == 1
    question = next(m for m in dc.messages.values() if m["content"].startswith("❓ Q1"))
    assert question["channel_id"] == rig.dm and "(important)" not in question["content"]
    llm.reply_with("Thank you: the ceramics course explains the move [#1].")
    await dc.push(OWNER, "For a ceramics course in Dublin.", reply_to=question["id"])
    await dc.wait_for(lambda: any("ceramics course explains" in t for t in dc.texts()))
    (source,) = await rig.app.engine.sources.all()
    assert source.name.startswith("answer to Q1")


async def test_strangers_guilds_and_bots_get_nothing_and_change_nothing(
    rig: Rig, caplog: pytest.LogCaptureFixture
) -> None:
    dc = rig.dc
    caplog.set_level(logging.INFO)
    engine: Engine = rig.app.engine
    before = await engine.sources.stats()
    await dc.push(STRANGER, "hello?")
    await dc.push(STRANGER, "!bio")
    await dc.push(STRANGER, attachments=[dc.attachment("x.txt", b"stranger's notes")])
    await dc.push(OWNER, "!sources", guild=True)
    await dc.push(OWNER, "a question in a server", guild=True)
    await dc.push(OWNER + 1, "I am a bot", bot=True)
    sent = await dc.push(STRANGER, "hi")
    await dc.push_edit(STRANGER, sent, "!forget 1")
    await dc.push_interaction(STRANGER, "bio")
    await dc.push_interaction(OWNER, "forget")  # no slash commands exist: a forged one
    await dc.push(OWNER, "!status")
    await dc.wait_for(lambda: any(t.startswith("Sources: 0") for t in dc.texts()))
    posted = {p.split("/")[2] for m, p, _ in dc.calls if m == "POST" and p.endswith("/messages")}
    assert posted == {rig.dm}
    assert not [p for _, p, _ in dc.calls if p.startswith("/interactions/")], "no callback"
    assert not rig.llm.requests
    assert await engine.sources.stats() == before
    assert db.jobs(engine.settings.db_path) == []
    assert f"ignoring user id {STRANGER}" in caplog.text


async def test_a_job_queued_before_a_restart_is_finished(
    tmp_path: Path, minilm_path: Path, embedder: Any
) -> None:
    with fake_llm() as llm:
        async with fake_discord() as dc:
            settings = settings_for(tmp_path, minilm_path, llm)
            url = dc.add_file("diary.txt", b"Grace's diary: kiln fired at 1240C today.")
            async with await Engine.open(settings, embedder) as engine:
                payload = SourceJob(
                    platform="discord", chat=dc.dm_channel(OWNER), file=url, name="diary.txt"
                )
                await engine.job_queue({}).submit(payload)
            llm.default_reply = "Read the diary."
            app = BotApp(settings, embedder)
            await app.start()
            try:
                await dc.wait_for(lambda: any("Read the diary." in t for t in dc.texts()))
                assert "diary.txt: done" in dc.texts()
            finally:
                await app.stop()


async def test_a_long_reply_is_split_within_discords_limit(rig: Rig) -> None:
    paragraphs = [
        f"Paragraph {i}: " + " ".join(f"w{i:02d}{j:02d}x" for j in range(54)) for i in range(27)
    ]
    long_text = "\n\n".join(p.strip() for p in paragraphs)
    assert len(long_text) > 10_000
    rig.llm.reply_with(long_text)
    await rig.dc.push(OWNER, "Tell me everything")
    await rig.dc.wait_for(lambda: any("Paragraph 26" in t for t in rig.dc.texts()))
    parts = [t for t in rig.dc.texts() if t.startswith("Paragraph")]
    assert len(parts) == 6 and all(len(p) <= 2000 for p in parts)
    assert "\n\n".join(parts) == long_text


async def test_bio_md_arrives_as_a_file_with_the_summary(rig: Rig) -> None:
    await rig.app.engine.profile.edit(
        "_Nothing is known yet. This fills in as sources are read._",
        "Grace is a potter in Galway [#1].",
        turn_id=None,
        mode="chat",
        reason="x",
    )
    await rig.dc.push(OWNER, "!bio")
    await rig.dc.wait_for(lambda: any(t.startswith("Summary") for t in rig.dc.texts()))
    name, data = rig.dc.uploads[0]
    assert name == "bio.md" and b"Grace is a potter" in data


async def test_a_costly_export_waits_for_a_choice_and_a_button_reads_only_the_owners_lines(
    tmp_path: Path, minilm_path: Path, embedder: Any
) -> None:
    with fake_llm() as llm:
        async with fake_discord() as dc:
            settings = settings_for(tmp_path, minilm_path, llm).but(
                **{"read_confirm_tokens": 50, "owner_names": "Ana Silva"}
            )
            app = BotApp(settings, embedder)
            await app.start()
            try:
                name = "WhatsApp Chat - Família Silva.txt"
                await dc.push(OWNER, attachments=[dc.attachment(name, fx.WHATSAPP_IOS.encode())])
                await dc.wait_for(lambda: dc.buttons())
                ((choice, keys),) = dc.buttons()
                assert keys == [
                    ("Read all", "/scope 1 all"),
                    ("Only mine", "/scope 1 mine"),
                    ("Since 2020-02-14", "/scope 1 since 2020-02-14"),
                    ("Not now", "/scope 1 later"),
                ]
                asked = dc.messages[choice]["content"]
                assert asked.startswith(f"Reading #1 {name} costs about $0.00 (")
                await dc.press(STRANGER, "/scope 1 all", choice)
                await dc.press(OWNER, "/nonsense 1", choice)  # no such command: ignored
                llm.reply_with("Ana asks who is coming on Sunday [#1].")
                await dc.press(OWNER, "/scope 1 mine", choice)
                await dc.wait_for(lambda: any("finished reading" in t for t in dc.texts()))
            finally:
                await app.stop()
    callbacks = [(p, b) for m, p, b in dc.calls if p.startswith("/interactions/")]
    assert [b["type"] for _, b in callbacks] == [6], "the owner's press, deferred: no new text"
    (body,) = llm.reader_bodies
    sent = body["messages"][1]["content"]
    assert "Ana Silva (owner): Bom dia!" in sent and "Note: the time is 8:01" in sent
    assert [t for t in dc.texts(dc.dm_channel(STRANGER))] == []


async def test_share_by_rules_and_a_button_sends_the_file(
    tmp_path: Path, minilm_path: Path, embedder: Any
) -> None:
    from tests.app.share.test_service import BIO

    async with fake_discord() as dc:  # no model configured: the portrait is made by rules
        settings = make_settings(
            tmp_path / "data",
            minilm_path,
            discord_token="discord-test-token",
            discord_allowed_users=str(OWNER),
            owner_names="Nina Castell",
        )
        app = BotApp(settings, embedder)
        await app.start()
        try:
            await app.engine.profile.replace(BIO, turn_id=None, mode="manual", reason="test")
            await dc.push(OWNER, "!share close hide Graça format md")
            await dc.wait_for(lambda: dc.buttons())
            ((choice, keys),) = dc.buttons()
            assert ("Accept, save", "/share save accept") in keys
            preview = dc.messages[choice]["content"]
            assert "written by rules from bio.md" in preview and "phone: +351" in preview
            await dc.press(OWNER, "/share save accept", choice)
            await dc.wait_for(lambda: any(t.startswith("Saved share #1") for t in dc.texts()))
        finally:
            await app.stop()
    name, data = dc.uploads[-1]
    assert name.endswith("-close.md") and b"Gra\xc3\xa7a" not in data and b"Tom" not in data
    assert b"## People & relationships" in data
