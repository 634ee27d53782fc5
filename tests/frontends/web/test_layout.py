"""The web view's layout in a real browser (Debian's headless Chromium, through Playwright), at
a phone's width and a desk's, over a newcomer's data with no language model: no page scrolls
sideways, the sources and status tables keep every column on a phone's screen, dates never
break mid-date, the timeline's text is readable and inside its picture, a chat answer has no
heading from a passage and links its sources to their passages, a file sent twice that fails
says so twice, and the tab has its icon. Screenshots go to .cache/screenshots/."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from biomd import sample
from biomd.app.engine import Engine
from biomd.frontends.web.server import WebView
from tests.conftest import make_settings
from tests.frontends.web.test_browser import CHROMIUM, FLAGS, SHOTS
from tests.support import web_view

pytestmark = [
    pytest.mark.slow,  # a real Chromium
    pytest.mark.browser,
    pytest.mark.skipif(
        CHROMIUM is None,
        reason="Chromium is not installed (apt-get install chromium); .ci/run does",
    ),
]

JOURNAL = (
    "# Saturday 14 May 2022\n\nWoke early and walked along the canal to the market. Bought "
    "cherries and a small basil plant.\n\n# Sunday 15 May 2022\n\nRain all day.\n"
)
PAGES = ("", "timeline", "people", "sources", "status", "chat", "questions", "history")


@pytest.fixture
async def newcomer(
    tmp_path: Path, minilm_path: Path, embedder: object
) -> AsyncIterator[tuple[Engine, WebView]]:
    """The web view over the sample life, a journal, a file that failed and a few events of
    bio.md's Timeline, with no language model: what a newcomer sees in the first hour."""
    settings = make_settings(
        tmp_path / "data",
        minilm_path,
        llm_api_key="",
        owner_names=sample.OWNER_NAMES,
        timezone=sample.TIMEZONE,
    )
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "journal-2022.md").write_text(JOURNAL)
    (mine / "empty.txt").write_text("")
    async with await Engine.open(settings, embedder) as engine:  # type: ignore[arg-type]
        files = [*sample.files()[:-1], mine / "journal-2022.md", mine / "empty.txt"]
        _ = [r async for r in engine.sources.ingest(files)]
        bio = (await engine.profile.load()).replace(
            "## Timeline\n",
            "## Timeline\n- 2019-04-07: Ran the Bath half marathon in 2:04:51 [#1]\n"
            "- 2021-02: Moved into a flat in Graça, Lisbon, with a view of the river [#3]\n"
            "- 2021-05-16: Told Mum she had met Inês, who teaches the pottery class [#7]\n",
        )
        await engine.profile.replace(bio, turn_id=None, mode="manual", reason="typed")
        async with web_view.served(settings, engine) as view:
            yield engine, view


@contextlib.asynccontextmanager
async def browser_at(view: WebView, width: int) -> AsyncIterator[tuple[Any, list[str]]]:
    """A signed-in tab `width` pixels wide, and the errors its console reports."""
    from playwright.async_api import async_playwright

    async with async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        phone = width < 600
        context = await browser.new_context(
            viewport={"width": width, "height": 900}, is_mobile=phone, has_touch=phone
        )
        tab = await context.new_page()
        errors: list[str] = []
        tab.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        await tab.goto(view.link)
        try:
            yield tab, errors
        finally:
            await browser.close()


@pytest.mark.parametrize("width", [390, 1280])
async def test_no_page_scrolls_sideways_and_tables_keep_every_column_on_screen(
    newcomer: tuple[Engine, WebView], width: int
) -> None:
    _, view = newcomer
    base = view.link.split("?")[0]
    SHOTS.mkdir(parents=True, exist_ok=True)
    async with browser_at(view, width) as (tab, errors):
        for path in PAGES:
            await tab.goto(base + path)
            await tab.wait_for_selector("main")
            scroll = await tab.evaluate("document.documentElement.scrollWidth")
            assert scroll <= width, f"/{path} scrolls sideways at {width} px ({scroll} px)"
            await tab.screenshot(
                path=str(SHOTS / f"first-hour-{path or 'profile'}-{width}.png"), full_page=True
            )
        assert not [e for e in errors if "Failed to load" in e], errors  # not even the icon

        await tab.goto(base + "sources")
        failed = tab.locator("tr.failed")
        reason = failed.locator("td.status")
        assert "failed: the file is empty." in await reason.inner_text()
        for cell in ("td.status", "td[data-label='vectors']", "td.read", "td.forget a"):
            for box in [await c.bounding_box() for c in await tab.locator(cell).all()]:
                if box is not None:  # (an empty cell is left out on a phone)
                    assert box["x"] >= 0 and box["x"] + box["width"] <= width, (cell, box)
        row = await failed.bounding_box()
        assert row is not None and row["height"] < 260, "no tall blank block for a failure"
        dates = await tab.locator("td.dates .nw").all()
        assert dates, "the chats' dates"
        for date in dates:  # one line each: never "2021-/02-12"
            box = await date.bounding_box()
            assert box is not None and box["height"] < 30, await date.inner_text()
        for name in await tab.locator("td.name .nw").all():  # "2019-04-07.md" stays whole
            box = await name.bounding_box()
            assert box is not None and box["height"] < 30, await name.inner_text()


@pytest.mark.parametrize("width", [390, 1280])
async def test_the_share_and_mirror_forms_are_laid_out_for_the_screen(
    newcomer: tuple[Engine, WebView], width: int
) -> None:
    _, view = newcomer
    base = view.link.split("?")[0]
    async with browser_at(view, width) as (tab, _):
        await tab.goto(base + "share?for=close")
        more = tab.locator("fieldset.more")
        fields = [await more.locator(f"[name={n}]").bounding_box() for n in ("hide", "keep_as")]
        assert all(f is not None for f in fields)
        if width < 600:  # each control as wide as the screen, under its label
            assert all(f["width"] >= 280 and f["height"] >= 30 for f in fields if f), fields
        else:  # the controls in one column, beside their labels
            lefts = {round(f["x"]) for f in fields if f}
            assert len(lefts) == 1, fields
        labels = await tab.locator("form.share-form table.grid label").all()
        assert labels
        for label in labels:  # "as “C.”" and "by name" each on one line, never "by / name"
            box = await label.bounding_box()
            assert box is not None and box["height"] < 30, await label.inner_text()
        await tab.goto(base + "mirror")
        since = tab.locator("form.filters input[name=since]")
        assert await since.get_attribute("type") == "text"  # an example, not "--------- ----"
        assert await since.get_attribute("placeholder")
        box = await since.bounding_box()
        assert box is not None and box["x"] + box["width"] <= width


async def test_the_timeline_is_readable_on_a_phone(newcomer: tuple[Engine, WebView]) -> None:
    _, view = newcomer
    async with browser_at(view, 390) as (tab, _):
        await tab.goto(view.link.split("?")[0] + "timeline")
        picture = tab.locator("figure.pic svg.w1")
        await picture.wait_for(state="visible")
        frame = await picture.bounding_box()
        assert frame is not None and frame["x"] + frame["width"] <= 390
        texts = await picture.locator("text").all()
        assert len(texts) > 8
        for text in texts:
            box = await text.bounding_box()
            assert box is not None
            assert box["height"] >= 13, (await text.inner_html(), box)  # 12 px text at least
            assert (
                box["x"] >= frame["x"] - 1
                and box["x"] + box["width"] <= frame["x"] + frame["width"] + 1
            ), await text.inner_html()
        assert await tab.locator("ol.events time").first.inner_text() == "2019-04-07"
        assert "2021-02" in await tab.locator("ol.events time").all_inner_texts()
        assert await tab.locator("ol.events a.cite").count() == 3


async def test_a_chat_answer_has_no_heading_from_a_passage_and_opens_its_sources(
    newcomer: tuple[Engine, WebView],
) -> None:
    _, view = newcomer
    async with browser_at(view, 390) as (tab, _):
        await tab.goto(view.link.split("?")[0] + "chat")
        await tab.fill("textarea[name=text]", "When did I buy cherries at the market?")
        await tab.click("button:has-text('Send')")
        answer = tab.locator("#messages li.assistant").first
        await answer.locator("p.named").wait_for(timeout=30_000)
        assert await tab.locator("#messages h1, #messages h2, #messages h3").count() == 0
        assert "# Saturday 14 May 2022" in await answer.inner_text()
        named = answer.locator("p.named a.cite", has_text="journal-2022.md")
        await named.click()
        await tab.wait_for_selector("#panel mark")
        panel = await tab.locator("#panel").inner_text()
        assert "journal-2022.md" in panel and "cherries" in panel
        assert "cherries" in await tab.locator("#panel mark").all_inner_texts()
        await tab.screenshot(path=str(SHOTS / "first-hour-chat-passage-390.png"))


async def test_a_file_that_fails_twice_says_so_twice_and_the_tab_has_an_icon(
    newcomer: tuple[Engine, WebView], tmp_path: Path
) -> None:
    _, view = newcomer
    empty = tmp_path / "notes.txt"
    empty.write_text("")
    async with browser_at(view, 390) as (tab, _):
        icon = await tab.request.get(view.link.split("?")[0] + "favicon.ico")
        assert icon.status == 200 and icon.headers["content-type"] == "image/x-icon"
        await tab.goto(view.link.split("?")[0] + "sources")
        for sent in (1, 2):
            await tab.set_input_files("#files", str(empty))
            await _bad_lines(tab, sent)
        lines = await tab.locator("#uploads li").all_inner_texts()
        assert lines == ["Could not read notes.txt: the file is empty."] * 2, lines
        align = await tab.locator("#uploads").evaluate(
            "u => [getComputedStyle(u).textAlign, getComputedStyle(u).listStyleType]"
        )
        assert align == ["left", "none"], "its marks sit with its text, not at the far left"


async def _bad_lines(tab: Any, n: int) -> None:
    """Wait for `n` uploads that ended without being added (wait_for_function's eval is
    refused by the page's Content-Security-Policy)."""
    for _ in range(300):
        if await tab.locator("#uploads li.bad").count() >= n:
            return
        await asyncio.sleep(0.1)
    raise AssertionError(await tab.locator("#uploads").inner_text())


@pytest.mark.parametrize(("width", "shown"), [(704, "w3"), (800, "w3"), (990, "w4"), (1280, "w4")])
async def test_each_width_shows_the_picture_made_for_it_with_text_of_12_px(
    newcomer: tuple[Engine, WebView], width: int, shown: str
) -> None:
    _, view = newcomer
    async with browser_at(view, width) as (tab, _):
        await tab.goto(view.link.split("?")[0] + "timeline")
        visible = tab.locator("figure.pic svg:visible")
        assert await visible.count() == 1
        assert await visible.get_attribute("class") == shown
        sizes = await visible.evaluate(SIZES)
        assert sizes and min(sizes) >= 11.9, (width, sorted(sizes)[:3])
        assert max(sizes) <= 24, (width, sorted(sizes)[-3:])  # not shouting either


# Each text's font size as drawn: its size in the picture's units times the picture's scale.
SIZES = """svg => {
  const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
  const texts = [...svg.querySelectorAll("text")];
  return texts.map(t => parseFloat(t.getAttribute("font-size")) * scale);
}"""
