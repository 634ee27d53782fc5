"""The Telegram bot against a local fake Bot API server, with the real python-telegram-bot,
the fake LLM server and real speech recognition."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pytest

from biomd.app.engine import Engine
from biomd.app.jobs import SourceJob
from biomd.frontends.runner import BotApp
from tests.conftest import make_settings
from tests.support import chat_fixtures as fx
from tests.support import db
from tests.support.fake_llm import FakeLLM, fake_llm
from tests.support.fake_telegram import FakeTelegram, fake_telegram
from tests.support.media_fixtures import HINTED_SENTENCE, encode, speak
from tests.support.model_files import whisper_dir

OWNER = 111
STRANGER = 222


@dataclass
class Rig:
    app: BotApp
    tg: FakeTelegram
    llm: FakeLLM
    settings: Any


def settings_for(tmp_path: Path, minilm_path: Path, tg: FakeTelegram, llm: FakeLLM) -> Any:
    return make_settings(
        tmp_path / "data",
        minilm_path,
        telegram_token="123456:TEST",
        telegram_allowed_users=str(OWNER),
        telegram_api_url=tg.base,
        telegram_local_mode=False,
        llm_base_url=llm.base_url,
        llm_api_key="sk-test",
        whisper_model=str(whisper_dir()),
        owner_names="Grace",
        timezone="UTC",
    )


@pytest.fixture
async def rig(tmp_path: Path, minilm_path: Path, embedder: Any) -> AsyncIterator[Rig]:
    with fake_llm() as llm:
        async with fake_telegram() as tg:
            settings = settings_for(tmp_path, minilm_path, tg, llm)
            app = BotApp(settings, embedder)
            await app.start()
            try:
                yield Rig(app, tg, llm, settings)
            finally:
                await app.stop()


def doc(tg: FakeTelegram, file_id: str, name: str, data: bytes) -> dict[str, Any]:
    meta = tg.add_file(file_id, data, f"documents/{file_id}_{name}")
    return {"document": {**meta, "file_name": name, "mime_type": "text/plain"}}


@pytest.mark.slow
async def test_a_forwarded_export_is_queued_reported_as_it_goes_and_summarised(rig: Rig) -> None:
    tg, llm = rig.tg, rig.llm
    llm.reply_with("A family chat from February 2021 about Sunday lunch [#1].")
    tg.push(OWNER, **doc(tg, "F1", "WhatsApp Chat - Família Silva.txt", fx.WHATSAPP_IOS.encode()))
    await tg.wait_for(lambda: any("Sunday lunch" in t for t in tg.texts()))
    texts = tg.texts(OWNER)
    name = "WhatsApp Chat - Família Silva.txt"
    assert texts[0] == f"{name}: queued"
    edits = [p["text"] for m, p in tg.calls if m == "editMessageText"]
    assert edits[0] == f"{name}: downloading…" and edits[-1] == f"{name}: done"
    assert f"{name}: converting…" in edits and f"{name}: reading it (biographer)…" in edits
    assert texts[-1].startswith("A family chat from February 2021 about Sunday lunch [#1].")
    assert "/source 1" in texts[-1]
    sources = await rig.app.engine.sources.all()
    assert [(d.name, d.kind) for d in sources] == [(name, "whatsapp")]
    reading_turn = llm.bodies[0]["messages"][-1]["content"]
    assert reading_turn.startswith(f"New notes on 1 source: #1 {name!r} (whatsapp,")
    assert len(llm.reader_bodies) == 1


@pytest.mark.slow
async def test_a_chat_whose_dates_read_either_way_is_reported_with_the_reading(rig: Rig) -> None:
    tg = rig.tg
    rig.llm.reply_with("Alex and Sam said hello [#1].")
    chat = b"3/5/21, 10:02 - Alex: Hi\n4/5/21, 09:00 - Sam: Hi back\n"
    tg.push(OWNER, **doc(tg, "F9", "WhatsApp Chat with Sam.txt", chat))
    await tg.wait_for(lambda: any("said hello" in t for t in tg.texts(OWNER)))
    (said,) = [t for t in tg.texts(OWNER) if "said hello" in t]
    assert said.startswith("WhatsApp Chat with Sam.txt: its dates could be read day first")
    assert "(3/5/21 is 3 May 2021)" in said and "BIOMD_CHAT_DATE_ORDER=mdy" in said


@pytest.mark.speech
@pytest.mark.slow
async def test_a_voice_note_is_transcribed_echoed_and_kept_as_a_source(
    rig: Rig, tmp_path: Path
) -> None:
    tg, llm = rig.tg, rig.llm
    ogg = encode(speak(HINTED_SENTENCE, tmp_path / "s.wav"), tmp_path / "v.ogg", "ogg", "libopus")
    meta = tg.add_file("V1", ogg.read_bytes(), "voice/file_7.oga")
    llm.reply_with("A spoken note about a friend's move.")
    tg.push(OWNER, voice={**meta, "duration": 4, "mime_type": "audio/ogg"})
    await tg.wait_for(lambda: any("friend's move" in t for t in tg.texts()))
    heard = next(t for t in tg.texts() if t.startswith("Heard:"))
    assert "friend" in heard.lower() and "spring" in heard.lower()
    (source,) = await rig.app.engine.sources.all()
    assert source.kind == "audio" and source.name.startswith("voice note ")


@pytest.mark.slow
async def test_a_reply_to_a_question_is_its_answer_even_after_a_restart(
    tmp_path: Path, minilm_path: Path, embedder: Any
) -> None:
    with fake_llm() as llm:
        async with fake_telegram() as tg:
            settings = settings_for(tmp_path, minilm_path, tg, llm)
            first = BotApp(settings, embedder)
            await first.start()
            await first.engine.profile.edit(
                "",
                "- Why did you leave Galway in 2016?",
                section="Open questions",
                turn_id=None,
                mode="chat",
                reason="q",
            )
            assert await first.push_questions() == 1
            await first.stop()
            pushed = next(m for m in tg.sent.values() if str(m.get("text", "")).startswith("❓ Q1"))
            assert "Reply to this message to answer it" in pushed["text"]

            second = BotApp(settings, embedder)
            await second.start()
            try:
                llm.reply_with("Thank you: the ceramics course explains the move [#1].")
                tg.push(
                    OWNER, text="For a ceramics course in Dublin.", reply_to=pushed["message_id"]
                )
                await tg.wait_for(lambda: any("ceramics course explains" in t for t in tg.texts()))
                assert "Thanks! Taking in your answer to Q1…" in tg.texts()
                (source,) = await second.engine.sources.all()
                assert source.name.startswith("answer to Q1")
                text = (await second.engine.sources.read(source.id)).text
                assert "Grace (owner): For a ceramics course in Dublin." in text
                assert "answered open question [Q1]" in llm.bodies[-1]["messages"][-1]["content"]
                assert await second.push_questions() == 0, "asked within the cool-down"
            finally:
                await second.stop()


@pytest.mark.slow
async def test_strangers_and_group_chats_get_nothing_and_change_nothing(
    rig: Rig, caplog: pytest.LogCaptureFixture
) -> None:
    tg = rig.tg
    caplog.set_level(logging.INFO)
    engine: Engine = rig.app.engine
    before = await engine.sources.stats()
    tg.push(STRANGER, text="hello, who are you?")
    tg.push(STRANGER, text="/bio")
    tg.push(STRANGER, **doc(tg, "X1", "notes.txt", b"stranger's notes"))
    tg.push(STRANGER, text="edited", edited=True)
    tg.push_callback(STRANGER)
    tg.push(OWNER, text="/sources", chat_type="group", chat_id=-500)
    tg.push(OWNER, text="a question in a group", chat_type="group", chat_id=-500)
    tg.push(OWNER, text="/status")  # the owner, privately: this one is answered
    await tg.wait_for(lambda: any(t.startswith("Sources: 0") for t in tg.texts()))
    sent_to = {int(p["chat_id"]) for m, p in tg.calls if m in ("sendMessage", "sendDocument")}
    assert sent_to == {OWNER}
    assert not rig.llm.requests
    assert await engine.sources.stats() == before
    assert db.jobs(engine.settings.db_path) == []
    assert db.count(engine.settings.db_path, "chat_messages") == 0
    assert f"ignoring user id {STRANGER}" in caplog.text


@pytest.mark.slow
async def test_a_job_queued_before_a_restart_is_finished(
    tmp_path: Path, minilm_path: Path, embedder: Any
) -> None:
    with fake_llm() as llm:
        async with fake_telegram() as tg:
            settings = settings_for(tmp_path, minilm_path, tg, llm)
            meta = tg.add_file(
                "F9", b"Grace's diary: kiln fired at 1240C today.", "documents/d.txt"
            )
            async with await Engine.open(settings, embedder) as engine:
                queue = engine.job_queue({})
                payload = SourceJob(
                    platform="telegram", chat=str(OWNER), file=meta["file_id"], name="diary.txt"
                )
                await queue.submit(payload)
                crashed = await queue.submit(replace(payload, name="again.txt"))
                db.mark_job_running(settings.db_path, crashed)
            llm.default_reply = "Read the diary."
            app = BotApp(settings, embedder)
            await app.start()
            try:
                await tg.wait_for(
                    lambda: any(
                        "again.txt: I already have this (source #1)." in t for t in tg.texts()
                    )
                )
                assert "diary.txt: done" in tg.texts() and "again.txt: done" not in tg.texts()

                def statuses() -> list[str]:
                    return [j.status for j in db.jobs(settings.db_path)]

                # The job is marked done just after its last message goes out.
                await tg.wait_for(lambda: statuses() == ["done", "done"], seconds=10)
            finally:
                await app.stop()


@pytest.mark.slow
async def test_a_question_waiting_for_search_to_get_ready_is_told_how_far_it_is(
    rig: Rig, tmp_path: Path
) -> None:
    assert rig.app._warm is not None
    await rig.app._warm  # nothing to get ready at start: no vectors yet
    engine = rig.app.engine
    engine.searcher.index.shown_from = 1  # a build this small is shown, as a big one is
    notes = tmp_path / "notes.txt"
    notes.write_text("I moved to Lisbon in 2019 and learned to sail there.\n" * 40)
    [r async for r in engine.sources.ingest([notes])]
    assert await engine.sources.embed_pending() > 0
    rig.llm.reply_with("You moved to Lisbon in 2019 [#1].")
    rig.tg.push(OWNER, text="When did I move to Lisbon?")
    await rig.tg.wait_for(lambda: any("You moved to Lisbon" in t for t in rig.tg.texts()))
    texts = rig.tg.texts(OWNER)
    getting = [i for i, t in enumerate(texts) if t.startswith("Getting search ready")]
    ready = [i for i, t in enumerate(texts) if t.startswith("Search is ready")]
    answer = next(i for i, t in enumerate(texts) if "You moved to Lisbon" in t)
    assert getting and ready and getting[0] < ready[0] < answer, texts


@pytest.mark.slow
async def test_a_long_reply_is_split_within_telegrams_limit(rig: Rig) -> None:
    paragraphs = [
        f"Paragraph {i}: " + " ".join(f"w{i:02d}{j:02d}x" for j in range(54)) for i in range(27)
    ]
    long_text = "\n\n".join(p.strip() for p in paragraphs)
    assert len(long_text) > 10_000
    rig.llm.reply_with(long_text)
    rig.tg.push(OWNER, text="Tell me everything")
    await rig.tg.wait_for(lambda: any("Paragraph 26" in t for t in rig.tg.texts()))
    parts = [t for t in rig.tg.texts() if t.startswith("Paragraph")]
    assert len(parts) == 3 and all(len(p) <= 4096 for p in parts)
    assert "\n\n".join(parts) == long_text, "split at paragraph boundaries, nothing lost"


@pytest.mark.slow
async def test_commands_answer_and_bio_md_arrives_as_a_file(rig: Rig) -> None:
    tg = rig.tg
    await rig.app.engine.profile.edit(
        "_Nothing is known yet. This fills in as sources are read._",
        "Grace is a potter in Galway <since 2009> & loves the sea [#1].",
        turn_id=None,
        mode="chat",
        reason="x",
    )
    tg.push(OWNER, text="/bio")
    await tg.wait_for(lambda: any(t.startswith("Summary") for t in tg.texts()))
    name, data = tg.documents[0]
    assert name == "bio.md" and b"Grace is a potter" in data
    summary = next(t for t in tg.texts() if t.startswith("Summary"))
    assert "&lt;since 2009&gt; &amp; loves" in summary, "escaped for HTML mode"
    (commands,) = [p for m, p in tg.calls if m == "setMyCommands"]
    assert [c["command"] for c in commands["commands"]][:4] == ["start", "help", "bio", "timeline"]
    tg.push(OWNER, text="/source 42")
    await tg.wait_for(lambda: any("There is no source #42." in t for t in tg.texts()))
    tg.push(OWNER, text="/forget")
    await tg.wait_for(lambda: any("Which source? For example /forget 12." in t for t in tg.texts()))
    await asyncio.sleep(0)


@pytest.mark.speech
@pytest.mark.slow
async def test_a_voice_reply_to_a_question_is_transcribed_and_taken_as_its_answer(
    rig: Rig, tmp_path: Path
) -> None:
    tg, llm = rig.tg, rig.llm
    await rig.app.engine.profile.edit(
        "", "- Who is Saoirse?", section="Open questions", turn_id=None, mode="chat", reason="q"
    )
    assert await rig.app.push_questions() == 1
    asked = next(m for m in tg.sent.values() if str(m.get("text", "")).startswith("❓ Q1"))
    ogg = encode(speak(HINTED_SENTENCE, tmp_path / "a.wav"), tmp_path / "a.ogg", "ogg", "libopus")
    meta = tg.add_file("V2", ogg.read_bytes(), "voice/file_9.oga")
    llm.default_reply = "Noted: your friend moved."
    tg.push(
        OWNER, voice={**meta, "duration": 4, "mime_type": "audio/ogg"}, reply_to=asked["message_id"]
    )
    await tg.wait_for(lambda: any("Noted: your friend moved." in t for t in tg.texts()))
    assert any(t.endswith("queued as your answer to Q1") for t in tg.texts())
    names = [d.name for d in await rig.app.engine.sources.all()]
    assert names[0].startswith("voice note ") and names[1].startswith("answer to Q1")
    answer = (await rig.app.engine.sources.read(2)).text
    assert "Grace (owner): " in answer and "friend" in answer.lower()
    assert any("answered open question [Q1]" in b["messages"][-1]["content"] for b in llm.bodies)


@pytest.mark.slow
async def test_nothing_is_pushed_when_there_are_no_open_questions(rig: Rig) -> None:
    assert await rig.app.push_questions() == 0
    assert not [m for m, _ in rig.tg.calls if m == "sendMessage"]


def test_a_bad_question_schedule_is_a_clear_error() -> None:
    from datetime import UTC

    from biomd.errors import ConfigError
    from biomd.frontends.scheduler import build_scheduler

    async def nothing() -> None:
        pass

    with pytest.raises(ConfigError, match="BIOMD_QUESTIONS_CRON is 'every evening'"):
        build_scheduler("every evening", UTC, nothing, nothing, nothing)
    scheduler = build_scheduler("0 19 * * *", UTC, nothing, nothing, nothing)
    assert {j.id for j in scheduler.get_jobs()} == {"questions", "read", "outbox"}


@pytest.mark.slow
async def test_biomd_run_stops_cleanly_on_sigterm(tmp_path: Path, minilm_path: Path) -> None:
    import os
    import signal
    import sys

    with fake_llm() as llm:
        async with fake_telegram() as tg:
            env = {
                **os.environ,
                "BIOMD_DATA_DIR": str(tmp_path / "data"),
                "BIOMD_TELEGRAM_TOKEN": "123456:TEST",
                "BIOMD_TELEGRAM_ALLOWED_USERS": str(OWNER),
                "BIOMD_TELEGRAM_API_URL": tg.base,
                "BIOMD_TELEGRAM_LOCAL_MODE": "false",
                "BIOMD_LLM_BASE_URL": llm.base_url,
                "BIOMD_EMBED_MODEL": "sentence-transformers/all-MiniLM-L6-v2",
                "BIOMD_EMBED_MODEL_PATH": str(minilm_path),
            }
            proc = await asyncio.create_subprocess_exec(
                sys.executable,
                "-m",
                "biomd",
                "run",
                env=env,
                cwd=tmp_path,
                stderr=asyncio.subprocess.PIPE,
            )
            assert proc.stderr is not None
            lines: list[str] = []
            while not any("biomd is running on telegram" in ln for ln in lines):
                line = await asyncio.wait_for(proc.stderr.readline(), 60)
                assert line, f"exited early: {lines}"
                lines.append(line.decode())
            tg.push(OWNER, text="/status")
            await tg.wait_for(lambda: any(t.startswith("Sources: 0") for t in tg.texts()))
            proc.send_signal(signal.SIGTERM)
            rest = await asyncio.wait_for(proc.stderr.read(), 30)
            assert await proc.wait() == 0, rest.decode()
            assert "stopping" in rest.decode()


@pytest.mark.slow
async def test_a_hundred_files_and_duplicates_at_once_are_each_ingested_once(rig: Rig) -> None:
    """Forwarded in one burst, with 20 forwarded twice: 100 sources, 20 duplicates reported,
    and /status answers while the queue is still long."""
    tg, llm = rig.tg, rig.llm
    llm.default_reply = "Read."
    notes = [f"Note {i}: Grace glazed bowl number {i} in shade {i * 7 % 13}." for i in range(100)]
    for i, note in enumerate(notes):
        tg.push(OWNER, **doc(tg, f"F{i}", f"note-{i}.txt", note.encode()))
    for i in range(0, 100, 5):  # the same files again, under new file ids
        tg.push(OWNER, **doc(tg, f"G{i}", f"again-{i}.txt", notes[i].encode()))
    tg.push(OWNER, text="/status")
    await tg.wait_for(lambda: any(t.startswith("Sources:") for t in tg.texts()))
    status = next(t for t in tg.texts() if t.startswith("Sources:"))
    waiting = int(status.split("Queue: ", 1)[1].split()[0])
    assert waiting > 0, f"/status answered while the queue was still busy: {status}"

    await tg.wait_for(
        lambda: sum("I already have this" in t for t in tg.texts()) == 20, seconds=120
    )
    await tg.wait_for(lambda: sum(t.endswith(": done") for t in tg.texts()) == 100, seconds=60)
    again = [t for t in tg.texts() if t.startswith("again-")]
    assert not [t for t in again if t.endswith(": done")], "a duplicate says so, not done"
    engine = rig.app.engine
    stats = await engine.sources.stats()
    assert (stats.documents, stats.chunks, stats.vectors) == (100, 100, 100)
    names = {d.name for d in await engine.sources.all()}
    assert names == {f"note-{i}.txt" for i in range(100)}
    jobs = db.jobs(engine.settings.db_path)
    assert len(jobs) == 120 and {j.status for j in jobs} == {"done"}


@pytest.mark.slow
async def test_a_costly_export_waits_for_a_choice_and_a_button_reads_only_the_owners_lines(
    tmp_path: Path, minilm_path: Path, embedder: Any
) -> None:
    with fake_llm() as llm:
        async with fake_telegram() as tg:
            settings = settings_for(tmp_path, minilm_path, tg, llm).but(
                **{"read_confirm_tokens": 50, "owner_names": "Ana Silva"}
            )
            app = BotApp(settings, embedder)
            await app.start()
            try:
                name = "WhatsApp Chat - Família Silva.txt"
                tg.push(OWNER, **doc(tg, "F1", name, fx.WHATSAPP_IOS.encode()))
                await tg.wait_for(lambda: tg.buttons())
                (keys,) = tg.buttons()
                assert keys == [
                    ("Read all", "/scope 1 all"),
                    ("Only mine", "/scope 1 mine"),
                    ("Since 2020-02-14", "/scope 1 since 2020-02-14"),
                    ("Not now", "/scope 1 later"),
                ]
                asked = tg.texts(OWNER)[-1]
                assert asked.startswith(f"Reading #1 {name} costs about $0.00 (")
                assert "/scope 1 mine" in asked
                assert llm.reader_bodies == [] and llm.bodies == [], "nothing read before"
                llm.reply_with("Ana asks who is coming on Sunday [#1].")
                choice = max(m for m, v in tg.sent.items() if v.get("text") == asked)
                # the button as an older biomd wrote it: /read is /scope's older name
                tg.push_callback(OWNER, "/read 1 mine", message=choice)
                await tg.wait_for(lambda: any("finished reading" in t for t in tg.texts()))
            finally:
                await app.stop()
    assert "answerCallbackQuery" in [m for m, _ in tg.calls]
    (body,) = llm.reader_bodies
    sent = body["messages"][1]["content"]
    assert "Ana Silva (owner): Bom dia!" in sent and "Note: the time is 8:01" in sent
    assert [t for t in tg.texts(OWNER) if t.startswith("Reading #1 ")] == [asked]


@pytest.mark.slow
async def test_share_previews_a_portrait_and_a_button_saves_it_as_a_file(rig: Rig) -> None:
    import json

    from tests.app.share.test_service import BIO

    tg = rig.tg
    await rig.app.engine.profile.replace(BIO, turn_id=None, mode="manual", reason="test")
    written = {
        "parts": [
            {
                "section": "summary",
                "sentences": [
                    {"text": "Nina Castell is a potter who moved to Lisbon in 2021.", "lines": [1]}
                ],
            },
            {
                "section": "identity",
                "sentences": [
                    {"text": "She can be reached at nina.castell@example.com.", "lines": ["L3"]}
                ],
            },
            {"section": "people", "sentences": [{"text": "Her brother runs.", "lines": [8]}]},
        ]
    }
    rig.llm.reply_with(json.dumps(written))
    tg.push(OWNER, text="/share therapist card")
    await tg.wait_for(lambda: tg.buttons())
    (keys,) = tg.buttons()
    assert keys == [
        ("Remove them, save", "/share save remove"),
        ("Accept, save", "/share save accept"),
    ]
    preview = next(t for t in tg.texts(OWNER) if t.startswith("A portrait for a therapist"))
    body = preview.split("\n\n")[1]
    assert "moved to Lisbon in 2021" in body and "Tomás" not in body
    assert "e-mail: nina.castell@example.com" in preview
    message = max(m for m, v in tg.sent.items() if v.get("text", "").startswith("A portrait"))
    tg.push_callback(OWNER, "/share save remove", message=message)
    await tg.wait_for(lambda: any(t.startswith("Saved share #1") for t in tg.texts()))
    name, data = tg.documents[-1]
    assert name.endswith("-therapist.html") and b"<script" not in data
    assert any(m == "sendPhoto" for m, _ in tg.calls), "the card"
    assert b"moved to Lisbon in 2021" in data and b"example.com" not in data and b"Tom" not in data
    tg.push(OWNER, text="/share list")
    await tg.wait_for(lambda: any(t.startswith("#1 ") and "therapist" in t for t in tg.texts()))
    tg.push(OWNER, text="/share save")
    await tg.wait_for(lambda: any("no portrait to save here yet" in t for t in tg.texts()))


@pytest.mark.slow
async def test_share_of_an_empty_bio_says_so_and_a_refusal_names_the_commands(rig: Rig) -> None:
    from tests.app.share.test_service import BIO

    tg = rig.tg
    tg.push(OWNER, text="/share close")
    await tg.wait_for(lambda: any("nothing to share yet" in t for t in tg.texts(OWNER)))
    said = next(t for t in tg.texts(OWNER) if "nothing to share yet" in t)
    assert said.startswith("There is nothing to share yet: bio.md is still empty.")
    assert "It fills in as the biographer reads your sources" in said and not tg.buttons()
    tg.push(OWNER, text="/share save accept")
    await tg.wait_for(lambda: any(t.startswith("Nothing was saved.") for t in tg.texts(OWNER)))
    assert not tg.documents and await rig.app.engine.shares.all() == []

    await rig.app.engine.profile.replace(BIO, turn_id=None, mode="manual", reason="test")
    rig.llm.reply_with('{"parts": []}')
    tg.push(OWNER, text="/share close")
    await tg.wait_for(lambda: tg.buttons())
    tg.push(OWNER, text="/share save")
    await tg.wait_for(lambda: any("the privacy scan found" in t for t in tg.texts(OWNER)))
    refused = next(t for t in tg.texts(OWNER) if "the privacy scan found" in t)
    assert "/share save remove (they become [removed]) · /share save accept" in refused
    assert not tg.documents
