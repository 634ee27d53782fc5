"""The web view: every page and action, and every way in that must stay shut (no token, a
wrong one, a foreign Host, a cross-site POST, XSS in names, text and bio.md, a
path-traversal upload name, an oversized upload). In-process, through httpx's ASGI transport,
where the socket isn't the point; over a real port where it is (serving, the events stream,
a port that is taken)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import stat
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from biomd.app.assistant import Assistant
from biomd.app.engine import Engine
from biomd.app.jobs import JobQueue
from biomd.errors import ConfigError
from biomd.frontends.web.app import create_app
from biomd.frontends.web.security import allowed_hosts
from biomd.frontends.web.server import WebView, bind
from tests.conftest import llm_settings
from tests.support import db
from tests.support.fake_llm import FakeLLM, tool_reply
from tests.support.reading import unread
from tests.support.samples import add_sources
from tests.support.waiting import until, wait_until

XSS = "<script>alert('x')</script>"


@dataclass
class Site:
    engine: Engine
    view: WebView
    jobs: JobQueue
    llm: FakeLLM
    client: httpx.AsyncClient  # signed in
    base: str
    transport: httpx.AsyncBaseTransport | None = None  # the app itself, in-process

    @property
    def csrf(self) -> dict[str, str]:
        return {"X-CSRF-Token": self.view.keys.csrf, "Origin": self.base}

    def stranger(self) -> httpx.AsyncClient:
        """A client that has not signed in."""
        return httpx.AsyncClient(base_url=self.base, transport=self.transport)

    async def rows(self, table: str) -> int:
        return db.count(self.engine.settings.db_path, table)


@contextlib.asynccontextmanager
async def serving(
    tmp_path: Path, minilm_path: Path, llm: FakeLLM, embedder: object, live: bool
) -> AsyncIterator[Site]:
    """The web view over a fresh data dir, with the job worker running: on a real port when
    `live`, else in-process."""
    settings = llm_settings(tmp_path, minilm_path, llm, web_port=0, web_max_upload_mb=1)
    async with await Engine.open(settings, embedder) as engine:  # type: ignore[arg-type]
        jobs = engine.job_queue({})
        view = WebView(settings, engine, Assistant(engine, jobs), jobs, announce=lambda _: None)
        transport = None
        if live:
            await view.start()
        else:
            view.port = 8765
            app = create_app(view.web, allowed_hosts("127.0.0.1", view.port))
            transport = httpx.ASGITransport(app=app)
        worker = asyncio.create_task(jobs.run())
        base = f"http://127.0.0.1:{view.port}"
        async with httpx.AsyncClient(base_url=base, timeout=30, transport=transport) as client:
            signed = await client.get(f"/?token={view.keys.token}", follow_redirects=True)
            assert signed.status_code == 200
            try:
                yield Site(engine, view, jobs, llm, client, base, transport)
            finally:
                worker.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await worker
                if live:
                    await view.stop()


@pytest.fixture
async def site(
    tmp_path: Path, minilm_path: Path, llm: FakeLLM, embedder: object
) -> AsyncIterator[Site]:
    async with serving(tmp_path, minilm_path, llm, embedder, live=False) as s:
        yield s


@pytest.fixture
async def live(
    tmp_path: Path, minilm_path: Path, llm: FakeLLM, embedder: object
) -> AsyncIterator[Site]:
    async with serving(tmp_path, minilm_path, llm, embedder, live=True) as s:
        yield s


# -- getting in ------------------------------------------------------------------------------


@pytest.mark.slow
async def test_the_token_is_exchanged_for_a_strict_cookie_and_leaves_the_address(
    live: Site,
) -> None:
    site = live
    token_file = site.engine.settings.data_dir / "web-token"
    assert stat.S_IMODE(token_file.stat().st_mode) == 0o600
    assert token_file.read_text().strip() == site.view.keys.token
    async with httpx.AsyncClient(base_url=site.base) as fresh:
        first = await fresh.get(f"/sources?token={site.view.keys.token}&x=1")
        assert first.status_code == 303 and first.headers["location"] == "/sources?x=1"
        cookie = first.headers["set-cookie"]
        assert "HttpOnly" in cookie and "SameSite=strict" in cookie
        assert site.view.keys.token not in cookie, "the cookie is not the token"
        page = await fresh.get("/sources?x=1")
        assert page.status_code == 200
    assert site.view.link.startswith(f"http://127.0.0.1:{site.view.port}/?token=")


@pytest.mark.slow
@pytest.mark.parametrize(
    "path", ["/", "/sources", "/static/app.js", "/pictures/timeline.png", "/api/citation?doc=1"]
)
async def test_without_the_token_nothing_is_shown(site: Site, path: str) -> None:
    await add_sources(site.engine, ["Secret diary: I buried the treasure under the oak."])
    async with site.stranger() as stranger:
        wrong = "token=wrong-token-wrong-token-wrong-token-wrong"
        for url in (path, path + ("&" if "?" in path else "?") + wrong):
            r = await stranger.get(url)
            assert r.status_code == 401, url
            assert "treasure" not in r.text
            assert "needs the link biomd printed" in r.text or r.text == "Not signed in."


@pytest.mark.slow
async def test_a_foreign_host_is_refused_even_with_the_cookie(site: Site) -> None:
    r = await site.client.get("/", headers={"Host": "evil.example:8765"})
    assert r.status_code == 421
    r = await site.client.get(f"/?token={site.view.keys.token}", headers={"Host": "attacker.test"})
    assert r.status_code == 421


@pytest.mark.slow
async def test_a_cross_site_post_changes_nothing(site: Site) -> None:
    (doc,) = await add_sources(site.engine, ["A note to keep."])
    before = await site.rows("documents")
    forged = [
        {"Origin": "https://evil.example", "X-CSRF-Token": site.view.keys.csrf},
        {"Origin": site.base},  # no CSRF token
        {"Origin": site.base, "X-CSRF-Token": "wrong"},
        {"X-CSRF-Token": site.view.keys.csrf},  # no Origin
    ]
    for headers in forged:
        r = await site.client.post(f"/source/{doc}/forget", headers=headers)
        assert r.status_code == 403
        r = await site.client.post("/undo", headers=headers)
        assert r.status_code == 403
    assert await site.rows("documents") == before
    r = await site.client.post(f"/source/{doc}/forget", headers=site.csrf)
    assert r.status_code == 303 and await site.rows("documents") == before - 1


@pytest.mark.slow
async def test_script_in_a_source_name_its_text_and_bio_md_never_runs(site: Site) -> None:
    note = site.engine.settings.data_dir.parent / "<img src=x onerror=alert(1)>.txt"
    note.write_text(f"Hello {XSS} <img src=x onerror=alert(2)> world")
    _ = [r async for r in site.engine.sources.ingest([note])]
    await site.engine.profile.edit(
        "",
        f"- 2020: {XSS} and [link](javascript:alert(1)) [#1]",
        section="Timeline",
        turn_id=None,
        mode="chat",
        reason="x",
    )
    for path in [
        "/",
        "/sources",
        "/source/1",
        "/search?q=hello",
        "/grep?pattern=hello",
        "/history",
        "/history/2",
        "/timeline",
        "/people",
        "/edit",
    ]:
        r = await site.client.get(path)
        assert r.status_code == 200, path
        assert "<script>alert" not in r.text, path
        assert "<img src=x" not in r.text, path
        assert 'href="javascript:' not in r.text, path
        csp = r.headers["content-security-policy"]
        assert "script-src 'self'" in csp and "default-src 'none'" in csp
    svg = await site.client.get("/pictures/timeline.svg")
    assert b"<script" not in svg.content
    cite = (await site.client.get("/api/citation?doc=1&claim=hello world")).json()
    assert XSS in cite["text"], "JSON carries the text; the page puts it in as text"


# -- uploads ----------------------------------------------------------------------------------


@pytest.mark.slow
async def test_uploads_stream_to_the_data_dir_and_are_ingested_with_live_progress(
    site: Site,
) -> None:
    r = await site.client.put(
        "/upload?name=../../../etc/passwd",
        content=b"Grace moved to Westport in 2020.",
        headers=site.csrf,
    )
    assert r.status_code == 202 and r.json()["name"] == "passwd"
    events = site.view.hub.recent  # what every open page was sent, newest last
    await wait_until(
        lambda: any("done" in str(e.get("text")) for e in events()),
        lambda: [str(e) for e in events()],
        30,
    )
    (doc,) = await site.engine.sources.all()
    assert doc.name == "passwd" and doc.status == "ready"
    statuses = [e["text"] for e in events("status")]
    assert any(s.startswith("passwd: indexing") or "converting" in s for s in statuses), statuses
    assert not list((site.engine.settings.data_dir / "uploads").iterdir()), "moved to the inbox"


@pytest.mark.slow
async def test_an_oversized_upload_is_refused_and_leaves_nothing(site: Site) -> None:
    big = b"x" * (1024 * 1024 + 10)
    r = await site.client.put("/upload?name=big.txt", content=big, headers=site.csrf)
    assert r.status_code == 413 and "1 MB" in r.json()["error"]

    async def chunks() -> AsyncIterator[bytes]:  # no Content-Length: refused while streaming
        for _ in range(20):
            yield b"y" * 65536

    r = await site.client.put("/upload?name=big2.txt", content=chunks(), headers=site.csrf)
    assert r.status_code == 413
    uploads = site.engine.settings.data_dir / "uploads"
    assert not uploads.exists() or not list(uploads.iterdir())
    assert await site.rows("documents") == 0 and await site.rows("jobs") == 0


# -- pages and actions ---------------------------------------------------------------------------


@pytest.mark.slow
async def test_every_page_answers(site: Site) -> None:
    await add_sources(site.engine, ["[2021-02-12 18:40] Mum: Did the boxes arrive?"])
    for path in [
        "/",
        "/history",
        "/history/1",
        "/edit",
        "/timeline",
        "/people",
        "/sources",
        "/source/1",
        "/source/1?q=boxes",
        "/source/1/forget",
        "/questions",
        "/chat",
        "/status",
        "/search?q=boxes",
        "/grep?pattern=boxes",
        "/bio.md",
        "/pictures/timeline.svg",
        "/pictures/timeline.png",
        "/pictures/people.svg",
        "/pictures/people.png",
        "/static/app.css",
    ]:
        r = await site.client.get(path)
        assert r.status_code == 200, path
    assert (await site.client.get("/source/99")).text.count("There is no source #99.") == 1
    grep = (await site.client.get("/grep?pattern=boxes")).text
    assert "<p>1 mention.</p>" in grep, "one mention, said in the singular"


@pytest.mark.slow
async def test_a_citation_opens_on_the_passage_that_supports_the_claim(site: Site) -> None:
    filler = "".join(
        f"[2021-0{1 + i % 9}-01 10:00] Mum: line {i} about the weather\n" for i in range(60)
    )
    key = (
        "[2021-05-16 10:12] Nina (owner): I've met someone. Her name is Inês, she teaches pottery\n"
    )
    (doc,) = await add_sources(site.engine, [filler + key + filler])
    await site.engine.profile.edit(
        "",
        f"- 2021-05: Met Inês, who teaches pottery [#{doc}]",
        section="Timeline",
        turn_id=None,
        mode="chat",
        reason="x",
    )
    page = (await site.client.get("/")).text
    assert f'<a class="cite" href="/source/{doc}" data-doc="{doc}">#{doc}</a>' in page
    found = (
        await site.client.get(
            "/api/citation", params={"doc": doc, "claim": "2021-05: Met Inês, who teaches pottery"}
        )
    ).json()
    assert "Her name is Inês" in found["text"]
    marked = [found["text"][s:e] for s, e in found["marks"]]
    assert {"met", "Inês", "teaches", "pottery"} <= set(marked)
    assert found["start"] > 1000, "the passage, not the top of the file"


@pytest.mark.slow
async def test_broken_citations_are_shown_as_broken_and_sections_say_when_they_changed(
    site: Site,
) -> None:
    await site.engine.profile.edit(
        "",
        "- Lived by the sea [#77] [chat 1999-01-01]",
        section="Identity",
        turn_id=None,
        mode="chat",
        reason="x",
    )
    page = (await site.client.get("/")).text
    assert 'class="cite broken" title="No source #77' in page
    assert 'class="cite broken" title="No chat message that day">chat 1999-01-01' in page
    assert 'href="/history/2">the change</a>' in page


@pytest.mark.slow
async def test_undo_and_an_edit_typed_in_the_browser_are_revisions(site: Site) -> None:
    await site.engine.profile.edit(
        "", "- A line from a turn", section="Timeline", turn_id=5, mode="chat", reason="x"
    )
    r = await site.client.post("/undo", headers=site.csrf)
    assert r.status_code == 303 and "A line from a turn" not in await site.engine.profile.load()
    bio = (await site.engine.profile.load()).replace(
        "## Identity\n", "## Identity\n- Typed by me\n"
    )
    r = await site.client.post("/edit", data={"bio": bio}, headers=site.csrf)
    assert r.status_code == 303
    assert "- Typed by me" in await site.engine.profile.load()
    (latest, *_) = await site.engine.profile.history()
    assert (latest.mode, latest.reason) == ("manual", "edited in the web view")


@pytest.mark.slow
async def test_questions_are_answered_inline_and_dismissed(site: Site) -> None:
    for q in ("- Where did you grow up?", "- Who taught you pottery? (important)"):
        await site.engine.profile.edit(
            "", q, section="Open questions", turn_id=None, mode="chat", reason="q"
        )
    page = (await site.client.get("/questions")).text
    assert page.index('id="Q2"') < page.index('id="Q1"'), "important ones first"
    site.llm.reply_with("Noted [#1].")
    r = await site.client.post(
        "/questions/Q1/answer", data={"answer": "In Galway."}, headers=site.csrf
    )
    assert r.status_code == 303
    await wait_until(lambda: bool(site.llm.requests), lambda: [], 20)
    await site.jobs.run_until_idle()
    (doc,) = await site.engine.sources.all()
    assert "In Galway." in (await site.engine.sources.read(doc.id)).text
    r = await site.client.post("/questions/Q2/dismiss", headers=site.csrf)
    assert "Who taught you pottery" not in await site.engine.profile.load()
    path = site.engine.profile.path
    await asyncio.to_thread(path.write_text, path.read_text() + "- Typed in bio.md by hand?\n")
    page = (await site.client.get("/questions")).text
    assert 'id="Q3"' in page and "Typed in bio.md by hand?" in page


@pytest.mark.slow
async def test_the_chat_streams_its_steps_and_the_answer_joins_the_chat_tail(
    live: Site,
) -> None:
    site = live
    await add_sources(site.engine, ["Moved to Lisbon in February 2021."])
    site.llm.reply_with(tool_reply(("search", {"query": "Lisbon move"})), "In 2021 [#1].")
    events: list[dict[str, Any]] = []
    listening = asyncio.Event()
    listener = asyncio.create_task(_listen(site, events, listening))
    await listening.wait()
    r = await site.client.post("/chat", json={"text": "Look up my move."}, headers=site.csrf)
    assert r.status_code == 202
    await wait_until(
        lambda: any(e["type"] == "done" for e in events), lambda: [str(e) for e in events], 30
    )
    listener.cancel()
    steps = [e["text"] for e in events if e["type"] == "step" and e["step"] == "tool"]
    assert steps == ['search(query="Lisbon move")']
    answer = next(e["text"] for e in events if e["type"] == "message")
    assert answer.startswith("In 2021 [#1].")
    html = (await site.client.post("/api/render", json={"text": answer}, headers=site.csrf)).json()
    assert '<a class="cite" href="/source/1" data-doc="1">#1</a>' in html["html"]
    chat = (await site.client.get("/chat")).text
    assert "Look up my move." in chat and "In 2021" in chat


@pytest.mark.slow
async def test_a_port_that_is_taken_is_a_clear_error(live: Site) -> None:
    with pytest.raises(ConfigError, match=f"port {live.view.port} is taken"):
        bind("127.0.0.1", live.view.port)


async def _listen(site: Site, into: list[dict[str, Any]], listening: asyncio.Event) -> None:
    """The page's events stream, as a browser reads it; `listening` is set once it is open."""
    async with site.client.stream("GET", "/events") as stream:
        async for line in stream.aiter_lines():
            if line.startswith("retry:"):
                listening.set()
            if line.startswith("data: "):
                into.append(json.loads(line[6:]))


async def test_pictures_render_once_per_state_of_their_data() -> None:
    """Twenty page loads asking for the same picture share one render (bench/loop_lag.py)."""
    from biomd.frontends.web.memo import RenderMemo

    memo = RenderMemo(keep=2)
    calls: list[str] = []

    def renderer(key: str) -> Any:
        async def render() -> bytes:
            calls.append(key)
            await asyncio.sleep(0.01)
            return key.encode()

        return render

    got = await asyncio.gather(*(memo.get("a", renderer("a")) for _ in range(20)))
    assert got == [b"a"] * 20 and calls == ["a"]
    assert await memo.get("a", renderer("a")) == b"a" and calls == ["a"]
    await memo.get("b", renderer("b"))
    await memo.get("c", renderer("c"))  # "a" is the oldest of three kept two: it goes
    await memo.get("a", renderer("a"))
    assert calls == ["a", "b", "c", "a"]

    async def broken() -> bytes:
        raise RuntimeError("no picture")

    with pytest.raises(RuntimeError):
        await memo.get("d", broken)
    assert await memo.get("d", renderer("d")) == b"d"  # a failure is not kept


@pytest.mark.slow
async def test_a_source_held_for_a_choice_is_read_from_its_buttons(site: Site) -> None:
    line = "[2023-01-01 10:00] Grace (owner): a message long enough to take a note of.\n"
    (doc,) = await add_sources(site.engine, [line])
    await site.engine.store.reading.add(doc)
    await site.engine.biographer.cost.hold(doc)
    html = (await site.client.get("/sources")).text
    assert f'action="/source/{doc}/scope?csrf=' in html and "you said not now" in html
    assert "the rest: about $0.00" in html
    site.llm.reply_with("Read the note.")
    r = await site.client.post(f"/source/{doc}/scope", data={"scope": "mine"}, headers=site.csrf)
    assert r.status_code == 303

    async def read() -> bool:
        return await unread(site.engine) == []

    await until(read, 30)
    (body,) = site.llm.reader_bodies
    assert "Grace (owner): a message long enough" in body["messages"][1]["content"]
    html = (await site.client.get("/sources")).text
    assert "/scope?csrf=" not in html and ">read<" in html.replace("\n", "")


# -- sharing a portrait -----------------------------------------------------------------------


@pytest.mark.slow
async def test_the_share_page_of_an_empty_bio_says_so_and_saves_nothing(site: Site) -> None:
    import re

    r = await site.client.get("/share?for=close")
    assert r.status_code == 200 and 'id="nothing"' in r.text
    assert "There is nothing to share yet: bio.md is still empty." in r.text
    assert 'action="/share/save' not in r.text and 'src="/share/preview/' not in r.text
    token = re.search(r'name="token" value="([\w-]+)"', r.text)
    assert token is None
    (token,) = site.view.web.drafts
    r = await site.client.post("/share/save", data={"token": token}, headers=site.csrf)
    assert r.status_code == 400 and "Nothing was saved. There is nothing to share" in r.text
    assert await site.engine.shares.all() == []


@pytest.mark.slow
async def test_the_share_page_previews_changes_saves_downloads_and_deletes(site: Site) -> None:
    import re

    from tests.app.share.test_service import BIO

    await site.engine.profile.replace(BIO, turn_id=None, mode="manual", reason="test")
    r = await site.client.get("/share?for=therapist")
    assert r.status_code == 200
    assert 'name="person:Tomás Reis" value="hidden" checked' in r.text
    assert "nina.castell@example.com" in r.text and "<script>alert" not in r.text
    token = re.search(r'src="/share/preview/([\w-]+)"', r.text)
    assert token is not None
    preview = await site.client.get(f"/share/preview/{token.group(1)}")
    assert preview.headers["content-security-policy"].startswith("default-src 'none'")
    assert "her brother" in preview.text and "Tomás" not in preview.text
    assert "<script" not in preview.text

    form = {
        "audience": "therapist",
        "section": ["summary", "identity", "people", "hypotheses"],
        "person:Inês": "name",
        "person:Tomás Reis": "hidden",
        "hide": "Graça",
        "format": "html",
    }
    r = await site.client.post("/share", data=form, headers=site.csrf)
    assert r.status_code == 200
    token = re.search(r'src="/share/preview/([\w-]+)"', r.text)
    assert token is not None
    preview = await site.client.get(f"/share/preview/{token.group(1)}")
    assert "Inês" in preview.text and "Graça" not in preview.text
    assert "MARKER-HYPOTHESIS" in preview.text and "Timeline" not in preview.text

    undecided = {"token": token.group(1), "finding:e-mail:nina.castell@example.com": "remove"}
    r = await site.client.post("/share/save", data=undecided, headers=site.csrf)
    assert r.status_code == 400 and "Nothing was saved" in r.text and "phone" in r.text
    assert "Choose remove or keep for each on the Share page, then save again." in r.text
    decided = undecided | {"finding:phone:+351 912 345 678": "accept"}
    r = await site.client.post("/share/save", data=decided, headers=site.csrf)
    assert r.status_code == 303 and r.headers["location"] == "/share?for=therapist&saved=1"
    r = await site.client.get("/share?for=therapist&saved=1")
    assert "Saved share #1" in r.text and 'href="/share/file/1"' in r.text
    file = await site.client.get("/share/file/1")
    assert "-therapist.html\"; filename*=UTF-8''" in file.headers["content-disposition"]
    assert "example.com" not in file.text and "+351 912 345 678" in file.text
    assert "Inês" in file.text and "[removed]" in file.text

    r = await site.client.post("/share/1/delete", headers=site.csrf)
    assert r.status_code == 303 and await site.engine.shares.all() == []
    r = await site.stranger().get("/share")
    assert r.status_code != 200 or "Share a portrait" not in r.text
