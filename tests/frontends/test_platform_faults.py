"""Telegram and Discord going away and coming back, against the local fakes: the bot keeps
polling or reconnects, a download waits for the platform instead of failing, and what it had
to say meanwhile is kept in the outbox and sent once, in order, when the platform is back."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

import biomd.app.jobs.queue
from biomd.app.jobs import SourceJob
from biomd.frontends.runner import BotApp
from tests.conftest import make_settings
from tests.support import db
from tests.support.fake_discord import fake_discord
from tests.support.fake_llm import fake_llm
from tests.support.fake_telegram import fake_telegram
from tests.support.waiting import until, wait_until

pytestmark = pytest.mark.slow  # the bots end to end against the fake platforms

OWNER = 111
LETTER = "Dear Grace, the gallery in Westport will show your blue glazes in March 2024."


def local_source(tmp_path: Path, name: str, text: str) -> str:
    """A file already on this machine, as a job for one is queued (no download needed)."""
    path = tmp_path / "incoming" / name
    path.parent.mkdir(exist_ok=True)
    path.write_text(text)
    return str(path)


@pytest.fixture(autouse=True)
def quick_platform_retry(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(biomd.app.jobs.queue, "PLATFORM_RETRY_S", 1)


async def test_telegram_going_away_and_coming_back_loses_nothing(
    tmp_path: Path, minilm_path: Path, embedder: Any
) -> None:
    with fake_llm() as llm:
        llm.default_reply = "Read it."
        async with fake_telegram() as tg:
            settings = make_settings(
                tmp_path / "data",
                minilm_path,
                telegram_token="123456:TEST",
                telegram_allowed_users=str(OWNER),
                telegram_api_url=tg.base,
                telegram_local_mode=False,
                llm_base_url=llm.base_url,
                llm_api_key="sk-test",
            )
            app = BotApp(settings, embedder)
            await app.start()
            try:
                tg.outage = True
                await tg.wait_for(lambda: "getUpdates" in tg.refused)
                meta = tg.add_file("F1", b"Grace's diary: the kiln cracked again.", "d/f1.txt")
                chat = {"platform": "telegram", "chat": str(OWNER)}
                download = await app.jobs.submit(
                    SourceJob(**chat, file=meta["file_id"], name="diary.txt")
                )
                path = local_source(tmp_path, "letter.txt", LETTER)
                await app.jobs.submit(SourceJob(**chat, path=path, name="letter.txt"))
                tg.push(OWNER, text="/sources")  # Telegram holds it until the bot polls again
                await until(lambda: _waiting(app))
                waiting = db.job(app.settings.db_path, download)
                assert waiting.status in ("queued", "running")  # waiting, or trying again
                assert "Telegram did not" in (waiting.error or "")
                assert not any("letter.txt" in t for t in tg.texts())

                tg.outage = False
                await app.flush_outbox()  # the scheduler does this every 15 s
                await tg.wait_for(lambda: len([t for t in tg.texts() if "Read it." in t]) == 2)
                await tg.wait_for(lambda: any("#1 letter.txt" in t for t in tg.texts()))
                kept = [t for t in tg.texts() if "Read it." in t]
                assert len(kept) == 2, f"each report sent exactly once: {tg.texts()}"
                assert await app.engine.outbox.waiting() == 0

                def jobs() -> list[tuple[str, int]]:
                    return [(j.status, j.attempts) for j in db.jobs(app.settings.db_path)]

                # A job is marked done just after its last message goes out.
                await wait_until(lambda: jobs() == [("done", 1), ("done", 1)], jobs, 10)
            finally:
                await app.stop()


async def _waiting(app: BotApp) -> bool:
    return await app.engine.outbox.waiting() > 0


async def test_discord_dropping_the_gateway_and_rest_reconnects_and_loses_nothing(
    tmp_path: Path, minilm_path: Path, embedder: Any
) -> None:
    with fake_llm() as llm:
        llm.default_reply = "Read it."
        async with fake_discord() as dc:
            settings = make_settings(
                tmp_path / "data",
                minilm_path,
                discord_token="discord-test-token",
                discord_allowed_users=str(OWNER),
                llm_base_url=llm.base_url,
                llm_api_key="sk-test",
            )
            app = BotApp(settings, embedder)
            await app.start()
            dm = dc.dm_channel(OWNER)
            try:
                await dc.go_down()
                path = local_source(tmp_path, "letter.txt", LETTER)
                await app.jobs.submit(
                    SourceJob(platform="discord", chat=dm, path=path, name="letter.txt")
                )
                await until(lambda: _waiting(app))
                await app.flush_outbox()
                assert await app.engine.outbox.waiting() > 0, "still down: still kept"

                dc.outage = False
                await dc.wait_for(lambda: len(dc.sessions) >= 2)
                await app.flush_outbox()
                await dc.wait_for(lambda: any("Read it." in t for t in dc.texts(dm)))
                await dc.push(OWNER, "!sources")
                await dc.wait_for(lambda: any("#1 letter.txt" in t for t in dc.texts(dm)))
                assert dc.sessions[0] == "identify" and len(dc.sessions) == 2
                assert len([t for t in dc.texts(dm) if "Read it." in t]) == 1
                assert await app.engine.outbox.waiting() == 0
            finally:
                await app.stop()


async def test_a_platform_that_is_down_at_start_is_waited_for(
    tmp_path: Path, minilm_path: Path, embedder: Any
) -> None:
    async with fake_telegram() as tg:
        settings = make_settings(
            tmp_path / "data",
            minilm_path,
            telegram_token="123456:TEST",
            telegram_allowed_users=str(OWNER),
            telegram_api_url=tg.base,
            telegram_local_mode=False,
        )
        tg.outage = True
        app = BotApp(settings, embedder)
        starting = asyncio.create_task(app.start())
        await tg.wait_for(lambda: tg.refused.count("getMe") >= 2)
        assert not starting.done(), "it keeps trying instead of giving up"
        tg.outage = False
        await asyncio.wait_for(starting, 30)
        try:
            tg.push(OWNER, text="/status")
            await tg.wait_for(lambda: any(t.startswith("Sources:") for t in tg.texts()))
        finally:
            await app.stop()
