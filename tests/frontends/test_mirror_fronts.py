"""Where the owner sees the mirror: the web page in a real browser at a phone's width and a
desk's, the bots' /mirror with its buttons and picture, a share that leaves the mirror out
unless picked, and the mirror kept up to date by the job queue and the scheduler."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from datetime import datetime
from pathlib import Path
from typing import Any

import httpx
import pytest

from bench.mirror_life import Plan, _const, _step, lines, whatsapp_ios, write_life
from bench.mirror_notes_life import write_notes_life
from biomd.app.engine import Engine
from biomd.app.jobs import MirrorJob
from biomd.app.share.audiences import ShareChoice
from biomd.errors import ConfigError
from biomd.frontends.runner import BotApp
from biomd.frontends.scheduler import build_scheduler
from biomd.frontends.web.server import WebView
from tests.conftest import llm_settings, make_settings
from tests.frontends.test_telegram_bot import OWNER, settings_for
from tests.frontends.web.test_browser import CHROMIUM, FLAGS, SHOTS
from tests.support import db, web_view
from tests.support.fake_llm import FakeLLM, fake_llm
from tests.support.fake_telegram import fake_telegram
from tests.support.mirror_fakes import diligent_notes, is_mirror, says_yes
from tests.support.reading import read_round
from tests.support.waiting import until


def slower_chat(owner: str = "Ana", person: str = "Maya") -> str:
    """A chat with one person in which the owner starts answering slowly in July 2022."""
    plan = Plan(
        person,
        "en",
        3.0,
        owner_starts=_const(0.5),
        owner_delay_min=_step(datetime(2022, 7, 1), 5, 180),
        their_delay_min=_const(6),
        owner_chars=_const(40),
        their_chars=_const(40),
        seed=21,
        late=False,
    )
    return whatsapp_ios(lines(plan)).replace("] Ana: ", f"] {owner}: ")


@pytest.fixture
async def mirrored(
    tmp_path: Path, minilm_path: Path, llm: FakeLLM, embedder: object
) -> AsyncIterator[tuple[Engine, WebView]]:
    """The generated life (its chats measured, its journal read and asked about), served."""
    llm.notes_for = diligent_notes
    llm.responder = lambda body: says_yes(body) if is_mirror(body) else "OK"
    settings = llm_settings(
        tmp_path, minilm_path, llm, web_port=0, owner_names="Ana", reading_placement="rules"
    )
    async with await Engine.open(settings, embedder) as engine:  # type: ignore[arg-type]
        chats = list(write_life(tmp_path / "exports").values())
        _ = [r async for r in engine.sources.ingest(chats)]
        notes = [r async for r in engine.sources.ingest(write_notes_life(tmp_path / "notes"))]
        await read_round(engine, only={r.document_id for r in notes if r.document_id})
        await engine.mirror.refresh()
        async with web_view.served(settings, engine) as view:
            yield engine, view


@pytest.mark.browser
@pytest.mark.slow
@pytest.mark.skipif(CHROMIUM is None, reason="Chromium is not installed; .ci/run installs it")
async def test_the_mirror_page_reads_on_a_phone_and_a_desk_and_takes_the_owners_word(
    mirrored: tuple[Engine, WebView],
) -> None:
    from playwright.async_api import async_playwright

    engine, view = mirrored
    base = view.link.split("?")[0]
    async with httpx.AsyncClient() as http:  # the token and cookie guard it like every page
        assert (await http.get(base + "mirror")).status_code in (401, 403)
    SHOTS.mkdir(parents=True, exist_ok=True)
    async with async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        try:
            for width in (390, 1280):
                context = await browser.new_context(viewport={"width": width, "height": 900})
                tab = await context.new_page()
                errors: list[str] = []
                tab.on("console", _keep_errors(errors))
                await tab.goto(view.link)
                for path in ("mirror", "timeline", "people"):
                    await tab.goto(base + path)
                    await tab.wait_for_selector("figure.pic svg", state="attached")
                    await _fits(tab, width, path)
                    await tab.screenshot(path=str(SHOTS / f"{path}-{width}.png"), full_page=True)
                await tab.goto(base + "mirror")
                assert await tab.locator("article.finding").count() >= 5
                assert "a mirror, not a therapist" in await tab.inner_text("main")
                assert await tab.locator("aside.care").count() == 1  # the crisis note, kindly
                assert not [e for e in errors if "Content Security Policy" in e], errors
                await context.close()

            context = await browser.new_context(viewport={"width": 390, "height": 900})
            tab = await context.new_page()
            await tab.goto(view.link)
            await tab.goto(base + "mirror")
            card = tab.locator("article.finding").first
            fid = await card.get_attribute("id")
            quote = (await card.locator("ol.strip .said").first.inner_text()).strip("“”")
            await card.locator("ol.strip a").first.click()  # the exact passage, marked
            await tab.wait_for_selector("pre.source mark#mark")
            assert (await tab.inner_text("mark#mark")).startswith(quote.rstrip("…"))
            header = await tab.locator("header.top").bounding_box()
            marked = await tab.locator("mark#mark").bounding_box()
            assert header and marked and marked["y"] >= header["y"] + header["height"], (
                "the marked quote opens under the sticky header"
            )
            await tab.goto(base + "mirror")
            await tab.locator(f"#{fid} button:has-text('That’s me')").click()
            await tab.wait_for_selector(f"#{fid} .status.confirmed")
            assert fid in await engine.profile.load()
            await tab.locator(f"#{fid} button:has-text('Take back')").click()
            await tab.wait_for_selector(f"#{fid} button:has-text('Not me')")
            assert fid not in await engine.profile.load()  # taken back: out of bio.md too
            await tab.locator(f"#{fid} button:has-text('Not me')").click()
            # set aside, below the rest (the browser unfolds it to show where it went)
            await tab.wait_for_selector(f"details#set-aside #{fid}", state="attached")
            assert await tab.locator("main > article.finding").count() >= 4
            await tab.locator(f"#{fid} button:has-text('Take back')").click()
            await tab.wait_for_selector(f"#{fid} button:has-text('Not me')")
            await tab.select_option("select[name=person]", "Leo")
            await tab.click("form.filters button")
            await tab.wait_for_selector("h1:has-text('Mirror: Leo')")
            assert await tab.locator("article.finding").count() == 1
        finally:
            await browser.close()


@pytest.mark.slow
async def test_the_bots_mirror_shows_the_strongest_with_buttons_and_a_picture(
    tmp_path: Path, minilm_path: Path, embedder: Any
) -> None:
    with fake_llm() as llm:
        async with fake_telegram() as tg:
            settings = settings_for(tmp_path, minilm_path, tg, llm)
            export = tmp_path / "WhatsApp Chat with Maya.txt"
            export.write_text(slower_chat("Grace"), encoding="utf-8")
            app = BotApp(settings, embedder)
            await app.start()
            try:
                _ = [r async for r in app.engine.sources.ingest([export])]
                tg.push(OWNER, text="/mirror")
                await tg.wait_for(lambda: any(t.startswith("The mirror") for t in tg.texts()))
                text = next(t for t in tg.texts(OWNER) if t.startswith("The mirror"))
                assert "you take much longer to answer Maya" in text and "not a therapist" in text
                (keys,) = tg.buttons()
                found = (await app.engine.mirror.view()).findings
                [finding] = [f for f in found if f.person == "Maya"]
                assert keys[:2] == [
                    (f"That's me ({finding.id})", f"/mirror confirm {finding.id}"),
                    (f"Not me ({finding.id})", f"/mirror dismiss {finding.id}"),
                ]
                assert len(keys) == 2 * len(found)
                await tg.wait_for(lambda: any(m == "sendPhoto" for m, _ in tg.calls))
                message = max(m for m, v in tg.sent.items() if "The mirror" in v.get("text", ""))
                tg.push_callback(OWNER, f"/mirror confirm {finding.id}", message=message)
                await tg.wait_for(lambda: any(t.startswith("Confirmed") for t in tg.texts()))
                assert finding.statement in await app.engine.profile.load()
                tg.push(OWNER, text="/mirror maya")
                await tg.wait_for(lambda: any("The mirror with Maya" in t for t in tg.texts()))
                maya = next(t for t in tg.texts(OWNER) if "The mirror with Maya" in t)
                # what `biomd mirror --person Maya` shows: the finding, as confirmed
                assert f"{finding.id}  [confirmed]" in maya and "no sustained shift" not in maya
                tg.push(OWNER, text="/mirror Zoë")
                await tg.wait_for(lambda: any("knows no one called 'Zoë'" in t for t in tg.texts()))
            finally:
                await app.stop()


@pytest.mark.slow
async def test_a_share_leaves_the_mirror_out_unless_the_owner_picks_it(
    tmp_path: Path, minilm_path: Path, embedder: Any
) -> None:
    settings = make_settings(tmp_path / "data", minilm_path, owner_names="Ana", timezone="UTC")
    async with await Engine.open(settings, embedder) as engine:  # type: ignore[arg-type]
        export = tmp_path / "WhatsApp Chat with Maya.txt"
        export.write_text(slower_chat(), encoding="utf-8")
        _ = [r async for r in engine.sources.ingest([export])]
        found = (await engine.mirror.view()).findings
        [finding] = [f for f in found if f.person == "Maya"]
        await engine.mirror.confirm(finding.id)
        await engine.profile.edit(
            "", "- Writes long voice notes [#1]", section="patterns", turn_id=None,
            mode="owner", reason="test",
        )  # fmt: skip
        bio = engine.profile.path.read_text()
        plain = await engine.shares.draft("therapist", ShareChoice(), model=False)
        text = plain.render("2026-01-01")
        assert "long voice notes" in text and "answer Maya" not in text
        assert plain.mirror_note.startswith("1 pattern you confirmed in the mirror is left out")
        picked = await engine.shares.draft("therapist", ShareChoice(add=("mirror",)), model=False)
        shared = picked.render("2026-01-01")
        assert "answer M" in shared  # Maya shown by role or initial
        assert "the mirror," not in shared and not picked.mirror_note  # biomd's mark is its own
        whole = await engine.shares.draft("me", ShareChoice(), model=False)
        assert "answer Maya" in whole.render("2026-01-01")  # the whole, for the owner
        await engine.profile.edit(
            "- Writes long voice notes [#1]\n", "", turn_id=None, mode="owner", reason="test"
        )
        only = await engine.shares.draft("therapist", ShareChoice(), model=False)
        assert only.nothing.startswith("There is nothing else to share yet. 1 pattern you")
        assert "--with mirror" in only.nothing
        assert engine.profile.path.read_text() != bio  # the edit above, and only it


@pytest.mark.slow
async def test_a_mirror_job_parses_new_chats_and_runs_the_notes_pass(
    tmp_path: Path, minilm_path: Path, llm: FakeLLM, embedder: Any
) -> None:
    llm.notes_for = diligent_notes
    llm.responder = lambda body: says_yes(body) if is_mirror(body) else "OK"
    settings = llm_settings(
        tmp_path, minilm_path, llm, owner_names="Ana", reading_placement="rules"
    )
    async with await Engine.open(settings, embedder) as engine:
        _ = [r async for r in engine.sources.ingest(write_notes_life(tmp_path / "life"))]
        await read_round(engine)
        jobs = engine.job_queue({})
        await jobs.submit(MirrorJob())
        worker = asyncio.create_task(jobs.run())
        try:
            await until(lambda: _judged(settings.db_path), 60)
        finally:
            worker.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await worker
        assert len(db.mirror_parsed(settings.db_path)) == 3


async def _fits(tab: Any, width: int, path: str) -> None:
    """The page doesn't scroll sideways, the picture for this width is the one shown, and
    its smallest text is at least 12 px high on screen."""
    overflow = await tab.evaluate("document.scrollingElement.scrollWidth - window.innerWidth")
    assert overflow <= 0, f"/{path} scrolls sideways at {width}px"
    shown, hidden = ("svg.w1", "svg.w4") if width < 600 else ("svg.w4", "svg.w1")
    assert await tab.locator(f"figure.pic {shown}").first.is_visible(), path
    assert not await tab.locator(f"figure.pic {hidden}").first.is_visible(), path
    smallest = await tab.evaluate(
        f"""Math.min(...[...document.querySelectorAll('figure.pic {shown} text')]
            .map(t => t.getBoundingClientRect().height).filter(h => h > 0))"""
    )
    assert smallest >= 13, f"/{path}: picture text {smallest:.1f}px high at {width}px"


def _keep_errors(errors: list[str]) -> Any:
    return lambda m: errors.append(m.text) if m.type == "error" else None


async def _judged(path: Path) -> bool:
    return bool(db.mirror_judged(path))


def test_the_mirror_runs_on_its_own_schedule_and_a_bad_one_is_a_clear_error() -> None:
    async def nothing() -> None:
        return None

    from datetime import UTC

    scheduler = build_scheduler("0 19 * * *", UTC, nothing, nothing, nothing, nothing, "30 4 * * *")
    assert scheduler.get_job("mirror") is not None
    never = build_scheduler("0 19 * * *", UTC, nothing, nothing, nothing, nothing, "")
    assert never.get_job("mirror") is None
    with pytest.raises(ConfigError, match="BIOMD_MIRROR_CRON"):
        build_scheduler("0 19 * * *", UTC, nothing, nothing, nothing, nothing, "every day")
