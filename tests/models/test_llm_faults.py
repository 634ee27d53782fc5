"""The model misbehaving: timeouts, cut-off or non-JSON bodies, empty answers, and an
endpoint that is down for a while. Each turn ends with a report or a clear error, what a turn
already wrote stays, and the reading is done later, when the model answers again."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from biomd.app.engine import Engine
from biomd.errors import LLMError
from biomd.frontends.runner import BotApp
from tests.conftest import llm_settings
from tests.support import db
from tests.support.fake_llm import FakeLLM, Raw, Slow, Status, fake_llm, tool_reply
from tests.support.fake_telegram import FakeTelegram, fake_telegram
from tests.support.reading import read_round, unread
from tests.support.waiting import until

pytestmark = pytest.mark.slow  # whole Engines against a misbehaving fake LLM

OWNER = 111


def fault_settings(tmp_path: Path, minilm_path: Path, llm: FakeLLM, **extra: Any) -> Any:
    """`llm_settings` with one retry and a half-second timeout, so faults show quickly."""
    quick: dict[str, Any] = {"llm_max_retries": 1, "llm_timeout": 0.5}
    return llm_settings(tmp_path, minilm_path, llm, **(quick | extra))


@pytest.fixture
async def engine_llm(
    tmp_path: Path, minilm_path: Path, embedder: object
) -> AsyncIterator[tuple[Engine, FakeLLM]]:
    with fake_llm() as llm:
        settings = fault_settings(tmp_path, minilm_path, llm)
        async with await Engine.open(settings, embedder) as engine:  # type: ignore[arg-type]
            yield engine, llm


BAD_BODIES = {
    "cut off": Raw(b'{"id": "chatcmpl-1", "choices": [{"index": 0, "mess'),
    "empty body": Raw(b""),
    "a proxy's HTML": Raw(b"<html><h1>502 Bad Gateway</h1></html>", content_type="text/html"),
    "no choices": Raw(b'{"id": "x", "object": "chat.completion", "choices": []}'),
    "not a completion": Raw(b'{"hello": "world"}'),
}


@pytest.mark.parametrize("stream", [True, False], ids=["streamed", "whole"])
@pytest.mark.parametrize("kind", list(BAD_BODIES))
async def test_a_broken_response_body_is_a_clear_error(
    tmp_path: Path, minilm_path: Path, embedder: object, kind: str, stream: bool
) -> None:
    with fake_llm() as llm:
        settings = fault_settings(tmp_path, minilm_path, llm, llm_stream=stream)
        async with await Engine.open(settings, embedder) as engine:  # type: ignore[arg-type]
            llm.reply_with(BAD_BODIES[kind])
            with pytest.raises(LLMError) as caught:
                await engine.biographer.chat.ask("Where did I grow up?")
            message = caught.value.user_message
            assert "LLM endpoint" in message, message
            assert "JSON" in message or "no answer" in message, message
            last = db.turns(settings.db_path)[-1]
            assert last.status == "failed" and last.error
            llm.reply_with("Galway, by your journal.")
            assert (await engine.biographer.chat.ask("Where did I grow up?")).report.startswith(
                "Galway"
            )


async def test_a_timeout_is_retried_and_a_persistent_one_is_a_clear_error(
    engine_llm: tuple[Engine, FakeLLM],
) -> None:
    engine, llm = engine_llm
    llm.reply_with(Slow(2.0), "Answered on the second try.")
    assert (await engine.biographer.chat.ask("hi")).report == "Answered on the second try."
    llm.reply_with(Slow(2.0), Slow(2.0))
    with pytest.raises(LLMError, match=r"could not be reached after retries \(APITimeoutError\)"):
        await engine.biographer.chat.ask("hi")


async def test_an_empty_reply_ends_the_turn_with_a_report(
    engine_llm: tuple[Engine, FakeLLM],
) -> None:
    engine, llm = engine_llm
    llm.reply_with("", "")
    result = await engine.biographer.chat.ask("What do you know?")
    assert result.report.strip(), "an empty answer still gives the owner a report"


async def test_a_turn_cut_short_keeps_its_edits_and_the_source_is_read_later(
    engine_llm: tuple[Engine, FakeLLM], tmp_path: Path
) -> None:
    engine, llm = engine_llm
    source = tmp_path / "letter.txt"
    source.write_text("Dear Grace, congratulations on the pottery prize in Kilkenny, May 2019.")
    [added] = [r async for r in engine.sources.ingest([source])]
    before = await engine.profile.load()
    line = "- 2019-05: won a pottery prize in Kilkenny [#1]"
    llm.reply_with(
        tool_reply(
            ("read_source", {"document_id": added.document_id}),
            ("edit_profile", {"old_text": "## Timeline\n", "new_text": f"## Timeline\n{line}\n"}),
        ),
        Status(503),
        Status(503),
    )
    with pytest.raises(LLMError, match="answered 503 after retries"):
        await read_round(engine)
    assert line in await engine.profile.load(), "the edit made before the fault is kept"
    assert before != await engine.profile.load()
    history = await engine.profile.history()
    assert history[0].turn_id is not None
    db_path = engine.settings.db_path
    (turn,) = [t for t in db.turns(db_path) if t.id == history[0].turn_id]
    assert turn.status == "failed" and "503" in (turn.error or "")
    assert db.calls(db_path, "reading") == 1, "the call that succeeded is accounted for"
    assert db.calls(db_path, "notes") == 1
    assert [p.document_id for p in await unread(engine)] == [added.document_id]

    llm.reply_with(
        tool_reply(("read_source", {"document_id": added.document_id})),
        "Read it; the prize is already in the timeline.",
    )
    results = await read_round(engine)
    assert len(results) == 1 and await unread(engine) == []
    assert (await engine.profile.load()).count(line) == 1


async def test_a_dead_endpoint_delays_reading_and_answers_until_it_is_back(
    tmp_path: Path, minilm_path: Path, embedder: Any
) -> None:
    """Through the bot: the owner is told plainly, nothing is lost, and the periodic reading
    catches up once the model answers again."""
    with fake_llm() as llm:
        async with fake_telegram() as tg:
            settings = fault_settings(
                tmp_path,
                minilm_path,
                llm,
                telegram_token="123456:TEST",
                telegram_allowed_users=str(OWNER),
                telegram_api_url=tg.base,
                telegram_local_mode=False,
                # A dead endpoint drops connections at once; a half-second timeout only made
                # a slow moment of the suite eat the scripted reply and retry into nothing.
                llm_timeout=10,
            )
            app = BotApp(settings, embedder)
            await app.start()
            try:
                await _dead_then_back(app, tg, llm)
            finally:
                await app.stop()


async def _dead_then_back(app: BotApp, tg: FakeTelegram, llm: FakeLLM) -> None:
    llm.down = True
    meta = tg.add_file("F1", b"Grace moved to Westport in 2020 to open a studio.", "d/move.txt")
    tg.push(OWNER, document={**meta, "file_name": "move.txt", "mime_type": "text/plain"})
    await tg.wait_for(lambda: any("will when the model answers again" in t for t in tg.texts()))
    tg.push(OWNER, text="When did I move to Westport?")
    # Two failures: the reading's ("will when the model answers again") and the answer's.
    await tg.wait_for(lambda: sum("could not be reached" in t for t in tg.texts()) >= 2)
    assert [p.name for p in await unread(app.engine)] == ["move.txt"]
    hits = await app.engine.sources.search("Westport studio")
    assert hits and hits[0].document_id == 1, "stored and searchable while the model is away"

    llm.down = False
    line = "- 2020: moved to Westport to open a studio [#1]"
    edit = {"old_text": "## Timeline\n", "new_text": f"## Timeline\n{line}\n"}
    llm.reply_with(tool_reply(("read_source", {"document_id": 1}), ("edit_profile", edit)), "Read.")
    await app.read_pending()  # what the scheduler does every half hour

    async def read_all() -> bool:
        return await unread(app.engine) == []

    await until(
        read_all,
        60,
        lambda: (
            f"said: {tg.texts()[-4:]}; replies left: {llm.replies}; requests: {len(llm.bodies)}"
        ),
    )
    assert line in await app.engine.profile.load()
