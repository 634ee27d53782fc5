"""The web view in a real browser: Debian's headless Chromium, driven by Playwright. A
newcomer's path through it: open the link, click a citation and see its passage, upload a
file and watch it arrive, answer a question, undo an edit, see the timeline. Screenshots go
to .cache/screenshots/ (git-ignored)."""

from __future__ import annotations

import shutil
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from biomd import sample
from biomd.app.engine import Engine
from biomd.frontends.web.server import WebView
from tests.conftest import llm_settings
from tests.support import db, web_view
from tests.support.fake_llm import FakeLLM, answer_reply
from tests.support.waiting import until

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
SHOTS = Path(__file__).resolve().parents[3] / ".cache" / "screenshots"
FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]

# Whether a text drawn in an element's own font has colour in it: an emoji font's glyph does,
# the empty box a font without it draws doesn't (Debian's fonts-noto-color-emoji; .ci/run).
COLOURED = """(element, text) => {
  const canvas = document.createElement("canvas");
  canvas.width = 96; canvas.height = 48;
  const pen = canvas.getContext("2d");
  pen.font = getComputedStyle(element).font;
  pen.textBaseline = "top";
  pen.fillStyle = "#000";
  pen.fillText(text, 4, 4);
  const px = pen.getImageData(0, 0, 96, 48).data;
  for (let i = 0; i < px.length; i += 4) {
    const [r, g, b, a] = [px[i], px[i + 1], px[i + 2], px[i + 3]];
    if (a > 0 && (Math.abs(r - g) > 40 || Math.abs(g - b) > 40)) return true;
  }
  return false;
}"""

pytestmark = [
    pytest.mark.slow,  # a real Chromium
    pytest.mark.browser,
    pytest.mark.skipif(
        CHROMIUM is None,
        reason="Chromium is not installed (apt-get install chromium); .ci/run does",
    ),
]


@pytest.fixture
async def served(
    tmp_path: Path, minilm_path: Path, llm: FakeLLM, embedder: object
) -> AsyncIterator[tuple[Engine, WebView]]:
    settings = llm_settings(
        tmp_path,
        minilm_path,
        llm,
        web_port=0,
        owner_names=sample.OWNER_NAMES,
        timezone=sample.TIMEZONE,
    )
    async with await Engine.open(settings, embedder) as engine:  # type: ignore[arg-type]
        _ = [r async for r in engine.sources.ingest(sample.files()[:-1])]  # all but the voice note
        bio = (
            (await engine.profile.load())
            .replace(
                "## Timeline\n",
                "## Timeline\n- 2019-04-07: Ran the Bath half marathon in 2:04:51 [#1]\n"
                "- 2021-02: Moved into a flat in Graça, Lisbon [#3]\n"
                "- 2021-05-16: Told Mum she had met Inês, who teaches the pottery class [#7]\n",
            )
            .replace("## Open questions\n", "## Open questions\n- Did you take the job in Porto?\n")
        )
        await engine.profile.replace(bio, turn_id=1, mode="ingest", reason="read the sample")
        async with web_view.served(settings, engine) as view:
            yield engine, view


@pytest.fixture
async def page(served: tuple[Engine, WebView]) -> AsyncIterator[Any]:
    from playwright.async_api import async_playwright

    async with async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        context = await browser.new_context(viewport={"width": 1200, "height": 900})
        tab = await context.new_page()
        errors: list[str] = []
        tab.on("pageerror", lambda e: errors.append(str(e)))
        tab.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        try:
            yield tab
        finally:
            await browser.close()
        assert not [e for e in errors if "Content Security Policy" in e], errors


async def test_a_newcomer_reads_cites_uploads_answers_undoes_and_sees_the_timeline(
    served: tuple[Engine, WebView], page: Any, llm: FakeLLM, tmp_path: Path
) -> None:
    engine, view = served
    SHOTS.mkdir(parents=True, exist_ok=True)
    await page.goto(view.link)
    assert "token=" not in page.url, "the token leaves the address bar"
    await page.wait_for_selector("text=Ran the Bath half marathon")

    # A citation opens the passage that supports the claim, its words marked.
    await page.click("section#timeline li:has-text('Inês') a.cite")
    panel = page.locator("#panel")
    await panel.wait_for(state="visible")
    await page.wait_for_selector("#panel mark")
    text = await panel.inner_text()
    assert "WhatsApp Chat with Mum.txt" in text and "Her name is Inês" in text
    marks = await page.locator("#panel mark").all_inner_texts()
    assert {"met", "Inês", "pottery"} <= set(marks)
    await page.screenshot(path=str(SHOTS / "profile-citation.png"))

    # Upload a file: it is queued, indexed, and shows in the table.
    note = tmp_path / "postcard.txt"
    note.write_text("A postcard from Porto, June 2024: the river, the bridges, the tiles.")
    await page.goto(view.link.split("?")[0] + "sources")
    await page.set_input_files("#files", str(note))
    await page.wait_for_selector("#uploads li.ok:has-text('postcard.txt: done')", timeout=30_000)
    await page.wait_for_selector("table.sources td a:has-text('postcard.txt')", timeout=30_000)

    # Answer a question inline.
    await page.goto(view.link.split("?")[0] + "questions")
    await page.fill("#Q1 textarea", "Not yet: I decide on Friday.")
    async with page.expect_response("**/questions/Q1/answer*") as answered:
        await page.click("#Q1 button:has-text('Answer')")
    assert (await answered.value).status == 303, await (await answered.value).text()

    async def answered_source() -> bool:
        return any(d.name.startswith("answer to Q1") for d in await engine.sources.all())

    await until(answered_source, 60)
    jobs = db.jobs(engine.settings.db_path)
    answers = [
        d for d in await engine.sources.all() if d.name not in {p.name for p in sample.files()}
    ]
    assert len(answers) == 2, jobs
    assert any("postcard" in d.name for d in answers) and len(answers) == 2

    # The timeline picture.
    await page.goto(view.link.split("?")[0] + "timeline")
    picture = page.locator("figure.pic svg.w4")  # the widest: 1200 px, a box of 960
    await picture.wait_for(state="visible")
    box = await picture.bounding_box()
    assert box is not None and box["height"] > 150
    assert not await page.locator("figure.pic svg.w1").is_visible()
    links = await picture.locator("a").evaluate_all("els => els.map(e => e.getAttribute('href'))")
    assert links and all(h.startswith("/source/") for h in links), "events and sources link"
    assert await page.locator("ol.events li a.cite").count() >= 1, "each event, linked, in words"
    await page.screenshot(path=str(SHOTS / "timeline.png"), full_page=True)

    # Undo the last turn's edits.
    await page.goto(view.link.split("?")[0] + "history")
    async with page.expect_navigation():
        await page.click("button:has-text('Undo')")
    assert "Ran the Bath half marathon" not in await engine.profile.load()


async def test_an_answer_in_the_chat_folds_its_quotes_under_it_and_each_opens_its_passage(
    served: tuple[Engine, WebView], page: Any, llm: FakeLLM
) -> None:
    engine, view = served
    mum = next(d.id for d in await engine.sources.all() if "Mum" in d.name)
    llm.reply_with(answer_reply("Inês teaches it. 😊", (mum, "her name is Ines, she teaches")))
    await page.goto(view.link)
    await page.goto(view.link.split("?")[0] + "chat")
    await page.fill("#ask textarea", "Who teaches my pottery class?")
    await page.click("#ask button")
    quotes = page.locator("#messages li.assistant details.quotes")
    await quotes.wait_for(state="attached", timeout=60_000)
    answer = page.locator("#messages li.assistant").last
    assert "Inês teaches it." in await answer.inner_text()
    assert await answer.evaluate(COLOURED, "😊"), "an emoji is drawn in colour, not a box"
    assert not await quotes.locator("li").is_visible(), "folded"
    await quotes.locator("summary").click()
    assert "Her name is Inês, she teaches" in await quotes.locator("li").inner_text()
    await quotes.locator("a.cite").click()
    await page.wait_for_selector("#panel mark")
    assert "Her name is Inês" in await page.locator("#panel").inner_text()
    await page.set_viewport_size({"width": 390, "height": 800})
    width = await page.evaluate("document.documentElement.scrollWidth")
    assert width <= 390, "the quotes fit a phone"
    await page.locator("#panel .close").click()
    SHOTS.mkdir(parents=True, exist_ok=True)
    await page.screenshot(path=str(SHOTS / "chat-quotes.png"), full_page=True)


async def test_on_a_phone_the_profile_fits_the_screen(served: tuple[Engine, WebView]) -> None:
    from playwright.async_api import async_playwright

    _, view = served
    async with async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        phone = await browser.new_context(
            viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True
        )
        tab = await phone.new_page()
        await tab.goto(view.link)
        await tab.wait_for_selector("text=Ran the Bath half marathon")
        width = await tab.evaluate("document.documentElement.scrollWidth")
        assert width <= 390, "no sideways scrolling"
        await tab.screenshot(path=str(SHOTS / "phone.png"))
        await browser.close()


async def test_a_portrait_for_a_therapist_is_made_in_the_browser(
    served: tuple[Engine, WebView], page: Any
) -> None:
    engine, view = served
    await page.goto(view.link)  # signs in
    await page.goto(view.link.split("?")[0] + "share?for=therapist")
    await page.check("input[name='person:Mum'][value='name']")  # Mum by name, Inês hidden:
    await page.fill("input[name='hide']", "Inês")  # she is not (yet) in bio.md's People
    async with page.expect_navigation():
        await page.click("button:has-text('Show it')")
    frame = page.frame_locator("iframe.portrait")
    await frame.locator("h1").wait_for()
    text = await frame.locator("body").inner_text()
    assert "Ran the Bath half marathon" in text and "Inês" not in text and "Told Mum" in text
    await page.screenshot(path=str(SHOTS / "share.png"), full_page=True)
    found = await page.locator("table.findings tr").all_inner_texts()
    for keep in await page.locator("input[value='accept'][required]").all():
        await keep.check()  # words that are also in a source: kept, knowingly
    save = page.get_by_role("button", name="Save the file")
    await save.scroll_into_view_if_needed()
    async with page.expect_navigation():
        await save.click()
    await page.wait_for_selector("#saved")
    (record,) = await engine.shares.all()
    assert record.audience == "therapist" and record.shown == ("Mum",), found
