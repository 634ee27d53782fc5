"""What the web view's pages show a newcomer: a chat answer as plain text with its sources
linked, an empty profile that says what fills it, a timeline that keeps bio.md's dates and
links its citations, the sources with a failure's reason, what a re-sent file came to, and
the tab's icon. In-process, over a real engine with no language model (a first run's), or
with the fake one where a model matters."""

from __future__ import annotations

import asyncio
import contextlib
import re
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest

from biomd.app.assistant import Assistant
from biomd.app.engine import Engine
from biomd.app.pictures import timeline as timeline_picture
from biomd.app.pictures.drawing import fit, text_width, wrap
from biomd.app.replies import NO_MODEL_AGAIN
from biomd.frontends.web.app import create_app
from biomd.frontends.web.security import allowed_hosts
from biomd.frontends.web.server import WebView
from tests.conftest import make_settings
from tests.frontends.web.test_app import Site, serving
from tests.support.fake_llm import FakeLLM
from tests.support.waiting import wait_until

JOURNAL = (
    "# Saturday 14 May 2022\n\n"
    "Woke early and walked along the canal to the market. Bought cherries and a small basil "
    "plant.\n\n# Sunday 15 May 2022\n\nRain all day.\n"
)


@contextlib.asynccontextmanager
async def first_run(tmp_path: Path, minilm_path: Path, embedder: object) -> AsyncIterator[Site]:
    """The web view as a newcomer first sees it: no language model, the job worker running."""
    settings = make_settings(tmp_path / "data", minilm_path, llm_api_key="", timezone="UTC")
    async with await Engine.open(settings, embedder) as engine:  # type: ignore[arg-type]
        assert not engine.biographer.configured
        jobs = engine.job_queue({})
        view = WebView(settings, engine, Assistant(engine, jobs), jobs, announce=lambda _: None)
        view.port = 8765
        transport = httpx.ASGITransport(app=create_app(view.web, allowed_hosts("127.0.0.1", 8765)))
        worker = asyncio.create_task(jobs.run())
        base = "http://127.0.0.1:8765"
        async with httpx.AsyncClient(base_url=base, timeout=30, transport=transport) as client:
            assert (
                await client.get(f"/?token={view.keys.token}", follow_redirects=True)
            ).is_success
            try:
                yield Site(engine, view, jobs, None, client, base, transport)  # type: ignore[arg-type]
            finally:
                worker.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await worker


@pytest.fixture
async def newcomer(tmp_path: Path, minilm_path: Path, embedder: object) -> AsyncIterator[Site]:
    async with first_run(tmp_path, minilm_path, embedder) as site:
        yield site


async def _ingest(site: Site, name: str, text: str) -> int:
    path = site.engine.settings.data_dir.parent / name
    path.write_text(text)
    (result,) = [r async for r in site.engine.sources.ingest([path])]
    assert result.document_id is not None
    return result.document_id


async def _answer(site: Site, question: str) -> str:
    """What the chat answers `question`, as the page gets it (a `message` event)."""
    before = len(site.view.hub.recent("message"))
    r = await site.client.post("/chat", json={"text": question}, headers=site.csrf)
    assert r.status_code == 202
    await wait_until(lambda: len(site.view.hub.recent("message")) > before, lambda: [], 30)
    return str(site.view.hub.recent("message")[before]["text"])


# -- the chat ------------------------------------------------------------------------------------


async def test_a_chat_answer_shows_passages_as_plain_text_and_links_its_sources(
    newcomer: Site,
) -> None:
    site = newcomer
    doc = await _ingest(site, "journal-2022.md", JOURNAL)
    answer = await _answer(site, "When did I buy cherries at the market?")
    assert "Set BIOMD_LLM_API_KEY" in answer, "why answers are search results, in full, once"
    assert answer.rstrip().endswith(f"Sources: /source {doc}"), "the bots' hint, as before"

    html = (await site.client.post("/api/render", json={"text": answer}, headers=site.csrf)).json()
    shown = html["html"]
    assert not re.search(r"<h\d", shown), "a passage's '# Saturday' is no heading"
    assert "# Saturday 14 May 2022" in shown
    assert "/source " not in shown, "no terminal commands on a web page"
    assert (
        f'<p class="named">Sources: <a class="cite" href="/source/{doc}" data-doc="{doc}">'
        f"#{doc} journal-2022.md</a></p>"
    ) in shown
    assert f'[<a class="cite" href="/source/{doc}" data-doc="{doc}">#{doc}</a>] journal' in shown

    again = await _answer(site, "And the basil plant?")
    assert again.startswith(NO_MODEL_AGAIN) and "BIOMD_LLM_API_KEY" not in again, (
        "said once a session; in a line after that"
    )
    reloaded = (await site.client.get("/chat")).text  # the exchange is kept, as any is
    assert "When did I buy cherries at the market?" in reloaded
    assert "And the basil plant?" in reloaded and "No language model yet" in reloaded
    assert await site.engine.biographer.chat.tail() == [], "hits are not the biographer's words"


async def test_nothing_in_a_chat_message_becomes_markup() -> None:
    from biomd.frontends.web.render import chat_message

    text = (
        "> quoted\n- item\n1. first\n---\n    indented\n<b>bold</b> [x](javascript:alert(1)) "
        "![i](http://example.com/i.png)\n\nSources: /source 3, /source 9"
    )
    html = chat_message(text, {3}.__contains__, set(), set(), {3: "a<b>.txt"})
    for tag in ("<blockquote", "<ul", "<ol", "<hr", "<pre", "<b>", "<a href", "<img"):
        assert tag not in html, tag
    assert "&lt;b&gt;bold&lt;/b&gt;" in html and "&gt; quoted<br" in html
    assert '<a class="cite" href="/source/3" data-doc="3">#3 a&lt;b&gt;.txt</a>' in html
    assert '<span class="cite broken" title="No source #9">#9</span>' in html


async def test_an_answers_quotes_are_folded_under_it_each_a_link_to_its_passage() -> None:
    from biomd.frontends.web.render import chat_message

    text = (
        "You adopted Biscuit in May.\n- “we adopted <Biscuit>” [#3, 2023-05-07, Grace]\n"
        "- “a grey lurcher” [#9]\n\nSources: /source 3"
    )
    html = chat_message(text, {3}.__contains__, set(), set(), {3: "diary.txt"})
    answer, folded = html.split('<details class="quotes">')
    assert "You adopted Biscuit in May." in answer and "lurcher" not in answer
    assert folded.startswith("<summary>In your sources: 2 quotes</summary><ul><li>")
    assert (
        '<li>“we adopted &lt;Biscuit&gt;” <a class="cite" href="/source/3" data-doc="3">#3</a>'
        ' <span class="where">2023-05-07, Grace</span></li>'
    ) in folded
    assert '<li>“a grey lurcher” <span class="cite broken">#9</span></li>' in folded


# -- the profile ---------------------------------------------------------------------------------


async def test_an_empty_profile_says_what_fills_it_and_shows_no_init_noise(
    newcomer: Site,
) -> None:
    site = newcomer
    page = (await site.client.get("/")).text
    assert "Your profile is empty so far" in page
    assert "there are none yet" in page, "no sources: send some"
    assert "BIOMD_LLM_API_KEY" in page, "no model: which setting"
    assert "(init)" not in page and "the change</a>" not in page
    assert "<h2>Identity</h2>" not in page and "Nothing is known yet" not in page

    await _ingest(site, "journal-2022.md", JOURNAL)
    page = (await site.client.get("/")).text
    assert "1 source is waiting for it" in page


@pytest.mark.slow
async def test_a_profile_with_a_model_says_no_setting_and_marks_empty_sections(
    site: Site,
) -> None:
    page = (await site.client.get("/")).text
    assert "Your profile is empty so far" in page and "BIOMD_LLM_API_KEY" not in page
    await site.engine.profile.edit(
        "", "- 2021: Moved to Lisbon", section="Timeline", turn_id=3, mode="chat", reason="x"
    )
    page = (await site.client.get("/")).text
    assert "Moved to Lisbon" in page and "Your profile is empty" not in page
    assert page.count("the change</a>") == 1, "only the section a change made, not the skeleton"
    assert '<p class="empty">Nothing here yet.</p>' in page and "_Nothing is known" not in page


# -- the timeline --------------------------------------------------------------------------------


async def test_the_timeline_keeps_bio_md_dates_links_citations_and_cuts_at_words(
    newcomer: Site,
) -> None:
    site = newcomer
    chat = "".join(f"[2021-0{m}-03 10:00] Lea: see you Saturday\n" for m in range(1, 10))
    doc = await _ingest(site, "WhatsApp Chat with Lea Brandt and the whole family.txt", chat)
    undated = await _ingest(site, "notebook.md", "Resolutions: run twice a week.")
    await site.engine.profile.edit(
        "",
        f"- 2021-03: Moved into the flat on Kastanienallee [#{doc}]\n"
        f"- 2021-12-25: Visited grandmother in Valenciennes for Christmas [#{doc}]",
        section="Timeline",
        turn_id=None,
        mode="manual",
        reason="x",
    )
    page = (await site.client.get("/timeline")).text
    assert '<time datetime="2021-03">2021-03</time>' in page and "2021-03-01" not in page
    events = page[page.index('<ol class="events">') :]
    assert f'[<a class="cite" href="/source/{doc}" data-doc="{doc}">#{doc}</a>]' in events
    assert "[#" not in events.replace("[<a", ""), "no citation left as text"
    assert f'<a href="/source/{undated}">#{undated} notebook.md</a>' in page, "the undated, named"

    cut = 0
    for svg in re.findall(r"<svg.*?</svg>", page, re.S):
        for title, shown in re.findall(r"<text[^>]*><title>([^<]*)</title>([^<]*)</text>", svg):
            cut += 1
            kept = shown.removesuffix("…")
            assert title.startswith(kept) and title[len(kept)] in " ,;:", (shown, title)
    assert cut, "the long source name is cut somewhere, and whole in its tooltip"


async def test_an_empty_events_lane_says_what_fills_it(newcomer: Site) -> None:
    site = newcomer
    await _ingest(site, "chat.txt", "[2021-05-03 10:00] Lea: see you Saturday\n")
    page = (await site.client.get("/timeline")).text
    assert "None yet: the biographer writes" in page, "in the picture's events lane"
    note = page[page.index('id="no-events"') :]
    assert "No events yet" in note and "BIOMD_LLM_API_KEY" in note[: note.index("</div>")]


def test_the_axis_ends_a_month_after_the_last_dated_thing() -> None:
    from datetime import date

    tl = timeline_picture.Timeline(
        months={"2021-01": 30, "2024-05": 12},
        spans=[timeline_picture.Span(1, "chat.txt", date(2021, 1, 3), date(2024, 5, 20))],
    )
    drawn = timeline_picture.draw(tl, 400)
    bars = [s for s in drawn.shapes if getattr(s, "title", "").startswith("2024-05")]
    (may,) = bars
    right = drawn.width - 8
    assert right - (may.x + may.w) < 0.06 * (right - 8), "no empty second half of 2024"


def test_labels_are_cut_after_a_word_and_wrapped_at_words() -> None:
    name = "#7 WhatsApp Chat with Lea Brandt.txt"
    room = text_width("#7 WhatsApp Ch", 10)
    assert fit(name, 10, room) == "#7 WhatsApp…"
    assert fit("Supercalifragilistic", 10, text_width("Supercali", 10)).endswith("…")
    lines = wrap(timeline_picture.NO_EVENTS, 10, 200)
    assert " ".join(lines) == timeline_picture.NO_EVENTS
    assert all(text_width(line, 10) <= 200 for line in lines) and len(lines) > 1


# -- sources, uploads, the icon ----------------------------------------------------------------


async def test_a_failed_source_shows_its_reason_once_and_a_resent_one_says_it_failed_again(
    newcomer: Site,
) -> None:
    site = newcomer

    def finished() -> list[str]:
        return [
            str(e["text"])
            for e in site.view.hub.recent("status")
            if not str(e["text"]).endswith("…")
        ]

    for sent in (1, 2):  # the second time is a re-upload of a file that failed
        r = await site.client.put("/upload?name=empty.txt", content=b"", headers=site.csrf)
        assert r.status_code == 202
        await wait_until(lambda: len(finished()) >= sent, finished, 30)  # noqa: B023
    assert finished() == ["Could not read empty.txt: the file is empty."] * 2, "never 'done'"

    page = (await site.client.get("/sources")).text
    assert '<span class="bad">failed: the file is empty.</span>' in page, "the reason, once"
    jobs = page[page.index('<ul id="jobs"') : page.index("</ul>", page.index('<ul id="jobs"'))]
    assert jobs.count("<li") == 2 and jobs.count('class="bad"') == 2, "each file's last word"
    assert 'data-label="status"' in page, "a card a row on a phone"
    (doc,) = await site.engine.sources.all()
    page = (await site.client.get(f"/source/{doc.id}")).text
    assert "This file could not be read: the file is empty. Send a copy" in page
    assert "Find in this source" not in page, "nothing to find in"


async def test_dates_do_not_break_mid_date(newcomer: Site) -> None:
    site = newcomer
    await _ingest(site, "chat.txt", "[2021-05-03 10:00] Lea: hi\n[2024-05-21 09:00] Lea: bye\n")
    page = (await site.client.get("/sources")).text
    assert '<span class="nw">2021-05-03</span> – <span class="nw">2024-05-21</span>' in page


@pytest.mark.slow
async def test_the_tab_has_an_icon(site: Site) -> None:
    r = await site.client.get("/favicon.ico")
    assert r.status_code == 200 and r.headers["content-type"] == "image/x-icon"
    assert r.content[:4] == b"\x00\x00\x01\x00", "a real .ico"
    assert '<link rel="icon" href="/favicon.ico"' in (await site.client.get("/")).text


@pytest.fixture
async def site(
    tmp_path: Path, minilm_path: Path, llm: FakeLLM, embedder: object
) -> AsyncIterator[Site]:
    async with serving(tmp_path, minilm_path, llm, embedder, live=False) as s:
        yield s


async def test_a_source_is_kept_from_assistants_and_shared_again_from_its_row(
    newcomer: Site,
) -> None:
    site = newcomer
    doc = await _ingest(site, "diary.md", "# 1 May 2022\n\nA secret I keep from every assistant.\n")
    page = (await site.client.get("/sources")).text
    assert f'action="/source/{doc}/private' in page and "Keep from assistants" in page
    r = await site.client.post(f"/source/{doc}/private", data={"private": "1"}, headers=site.csrf)
    assert r.status_code == 303
    assert (await site.engine.sources.get(doc)).private
    page = (await site.client.get("/sources")).text
    assert "Let assistants see it" in page
    await site.client.post(f"/source/{doc}/private", data={"private": "0"}, headers=site.csrf)
    assert not (await site.engine.sources.get(doc)).private
    refused = await site.client.post(f"/source/{doc}/private", data={"private": "1"})
    assert refused.status_code == 403 and not (await site.engine.sources.get(doc)).private


async def _confirmed_in_the_mirror(site: Site) -> None:
    """A diary entry, and the line a confirmed finding (Fb66bc218) put in bio.md's Patterns."""
    doc = await _ingest(site, "diary.md", "# 1 May 2022\n\nAnswered Maya a day late again.\n")
    line = f"- Answers Maya later than before [#{doc}] (the mirror, Fb66bc218, confirmed by you)"
    await site.engine.profile.edit(
        "", line, section="patterns", turn_id=1, mode="owner", reason="confirmed Fb66bc218"
    )


async def test_a_profile_with_empty_sections_says_what_fills_them_in_plain_words(
    newcomer: Site,
) -> None:
    site = newcomer
    await _confirmed_in_the_mirror(site)
    page = (await site.client.get("/")).text
    fills = page[page.index('id="fills"') :][:600]
    assert "language model" in fills and "1 source is waiting" in fills  # why they are empty
    assert "by you ·" in page and "by turn" not in page and "(owner)" not in page
    assert '<a class="mirrored" href="/mirror#Fb66bc218">' in page
    assert "Fb66bc218, confirmed" not in page  # biomd's mark, in a person's words


async def test_the_share_page_offers_the_mirror_and_says_why_it_is_left_out(
    newcomer: Site,
) -> None:
    site = newcomer
    await _confirmed_in_the_mirror(site)
    before = site.engine.profile.path.read_text()
    page = (await site.client.get("/share?for=therapist")).text
    assert 'name="section" value="mirror"' in page and "Patterns you confirmed" in page
    assert "1 pattern you confirmed in the mirror is left out" in page  # why there is nothing
    form = {"audience": "therapist", "section": ["patterns", "mirror"]}
    picked = (await site.client.post("/share", data=form, headers=site.csrf)).text
    assert 'name="section" value="mirror" checked' in picked and 'id="nothing"' not in picked
    token = re.search(r"/share/preview/([\w-]+)", picked)
    assert token is not None
    shared = (await site.client.get(f"/share/preview/{token.group(1)}")).text
    assert "Answers Maya later than before" in shared and "the mirror," not in shared
    me = (await site.client.get("/share?for=me")).text  # the whole, for the owner
    assert 'name="section" value="mirror" checked' in me and 'id="nothing"' not in me
    assert site.engine.profile.path.read_text() == before  # a preview never writes bio.md


async def test_the_share_page_offers_the_lines_resting_only_on_private_sources(
    newcomer: Site,
) -> None:
    site = newcomer
    doc = await _ingest(site, "diary.md", "# 1 May 2022\n\nMet Ana at the climbing wall.\n")
    bio = (await site.engine.profile.load()).replace(
        "## Timeline\n", f"## Timeline\n- 2022-05-01: Met Ana at the climbing wall [#{doc}]\n"
    )
    await site.engine.profile.replace(bio, turn_id=None, mode="manual", reason="test")
    await site.engine.sources.set_private(doc, True)
    page = (await site.client.get("/share?for=close")).text
    assert "Resting only on sources you keep private" in page
    assert 'name="private" value="1"' in page and "climbing wall" in page
    form = {"audience": "close", "section": ["timeline"], "private": "1"}
    picked = (await site.client.post("/share", data=form, headers=site.csrf)).text
    assert 'name="private" value="1" checked' in picked
