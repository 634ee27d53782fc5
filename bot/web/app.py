"""The web view's pages and actions. Each handler reads from or calls the Engine and the
Assistant, as a bot adapter does, and renders a template; what it shows is escaped by the
templates, and bio.md's Markdown is rendered with raw HTML off (bot/web/render.py)."""

from __future__ import annotations

import asyncio
import contextlib
import difflib
import re
import secrets
from collections.abc import AsyncIterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import (
    JSONResponse,
    PlainTextResponse,
    RedirectResponse,
    Response,
    StreamingResponse,
)
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.templating import Jinja2Templates

from bot.web.hub import CHAT, Hub, WebChannel, sse
from bot.web.memo import RenderMemo
from bot.web.render import cite_links, markdown, slug
from bot.web.security import Guard, Keys
from core.app.assistant import Assistant, Incoming
from core.app.engine import Engine
from core.app.pictures.people import caption as people_caption
from core.app.pictures.people import gather as gather_people
from core.app.pictures.people import render as render_people
from core.app.pictures.people import size as people_size
from core.app.pictures.timeline import caption as timeline_caption
from core.app.pictures.timeline import gather as gather_timeline
from core.app.pictures.timeline import render as render_timeline
from core.app.pictures.timeline import size as timeline_size
from core.biographer.profile_text import open_questions, section_titles
from core.errors import BiomdError, NotFound
from core.retrieval.passages import passage

HERE = Path(__file__).resolve().parent
# Pages and Markdown render in one thread of their own: twenty page loads at once then queue
# among themselves instead of holding the event loop the bots answer on (bench/loop_lag.py).
_RENDER = ThreadPoolExecutor(max_workers=1, thread_name_prefix="biomd-web-render")
PAGE = 4000  # characters of a source per page
HEARTBEAT_S = 15.0


@dataclass
class Web:
    """What the pages need: the engine, the assistant, the events hub, and the keys."""

    engine: Engine
    assistant: Assistant
    hub: Hub
    channel: WebChannel
    keys: Keys
    uploads: Path
    max_upload: int
    tasks: set[asyncio.Task[Any]] = field(default_factory=set)

    def spawn(self, work: Any) -> None:
        """Run `work` in the background, keeping a reference until it ends."""
        task = asyncio.get_running_loop().create_task(work)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)


def create_app(web: Web, hosts: frozenset[str] | None, mcp: Any = None) -> Any:
    templates = Jinja2Templates(directory=str(HERE / "templates"))
    pictures = RenderMemo()

    async def page(request: Request, name: str, **context: Any) -> Response:
        """A page, rendered in the web view's own thread (see `_RENDER`)."""
        context |= {"csrf": web.keys.csrf, "path": request.url.path}
        response: Response = await asyncio.get_running_loop().run_in_executor(
            _RENDER, lambda: templates.TemplateResponse(request, name, context)
        )
        return response

    async def real_ids() -> set[int]:
        return await web.engine.store.documents.ready_ids()

    async def chat_days() -> set[str]:
        return set(await web.engine.biography.chat_dates())

    async def render_text(text: str) -> str:
        real, days = await real_ids(), await chat_days()
        qids = {q.id for q in open_questions(await web.engine.profile.load())}
        html = await asyncio.get_running_loop().run_in_executor(_RENDER, markdown, text)
        return cite_links(html, real.__contains__, days, qids)

    # -- profile ----------------------------------------------------------------------------

    async def profile(request: Request) -> Response:
        bio = await web.engine.profile.load()
        changes = await web.engine.profile.section_changes()
        real, days = await real_ids(), await chat_days()
        qids = {q.id for q in open_questions(bio)}

        def render() -> list[dict[str, Any]]:
            return [
                {
                    "title": title,
                    "slug": slug(title),
                    "html": cite_links(
                        markdown(_section_body(bio, title)), real.__contains__, days, qids
                    ),
                    "change": changes.get(title),
                }
                for title in section_titles(bio)
            ]

        sections = await asyncio.get_running_loop().run_in_executor(_RENDER, render)
        return await page(
            request,
            "profile.html",
            sections=sections,
            llm=web.engine.biography.configured,
            empty=not any(s["html"].strip() for s in sections),
        )

    async def citation(request: Request) -> Response:
        try:
            doc = int(request.query_params.get("doc", ""))
        except ValueError:
            return JSONResponse({"error": "Which source?"}, 400)
        claim = request.query_params.get("claim", "")[:2000]
        found = await passage(web.engine.store, doc, claim)
        if found is None:
            return JSONResponse({"error": f"There is no source #{doc}."}, 404)
        return JSONResponse(
            {
                "doc": found.document_id,
                "name": found.name,
                "date": found.content_start,
                "start": found.start,
                "end": found.end,
                "text": found.text,
                "marks": found.marks,
                "matched": found.matched,
            }
        )

    async def bio_file(request: Request) -> Response:
        return PlainTextResponse(
            await web.engine.profile.load(),
            media_type="text/markdown",
            headers={"Content-Disposition": 'attachment; filename="bio.md"'},
        )

    # -- history ------------------------------------------------------------------------------

    async def history(request: Request) -> Response:
        revisions = await web.engine.profile.history(200)
        return await page(request, "history.html", revisions=revisions)

    async def revision(request: Request) -> Response:
        rid = int(request.path_params["rid"])
        try:
            after = await web.engine.profile.version(rid)
        except NotFound:
            return await page(
                request,
                "message.html",
                title="No such revision",
                text=f"There is no revision {rid} of bio.md.",
            )
        before = await web.engine.store.revisions.content_before(rid) or ""
        diff = list(
            difflib.unified_diff(
                before.splitlines(), after.splitlines(), "before", "after", lineterm="", n=2
            )
        )[2:]
        rev = await web.engine.store.revisions.get(rid)
        return await page(request, "revision.html", rev=rev, diff=diff)

    async def undo(request: Request) -> Response:
        done = await web.engine.profile.undo()
        text = f"Reverted turn {done.turn_id}'s edits." if done else "Nothing to undo."
        web.hub.publish("message", message="undo", text=text)
        return RedirectResponse("/history", 303)

    async def edit_page(request: Request) -> Response:
        return await page(request, "edit.html", bio=await web.engine.profile.load())

    async def edit_save(request: Request) -> Response:
        form = await request.form()
        text = str(form.get("bio") or "")
        if not text.strip():
            return await page(
                request,
                "message.html",
                title="Not saved",
                text="bio.md can't be empty; nothing was changed.",
            )
        await web.engine.profile.replace(
            text.replace("\r\n", "\n"), turn_id=None, mode="manual", reason="edited in the web view"
        )
        return RedirectResponse("/", 303)

    # -- pictures -------------------------------------------------------------------------------

    async def timeline_page(request: Request) -> Response:
        tl = await gather_timeline(web.engine.store, await web.engine.profile.load())
        return await page(
            request,
            "timeline.html",
            caption=timeline_caption(tl),
            tl=tl,
            height=_height(timeline_size(tl)),
        )

    async def timeline_picture(request: Request) -> Response:
        fmt = request.path_params["fmt"]
        tl = await gather_timeline(web.engine.store, await web.engine.profile.load())
        data = await pictures.get(
            repr(("timeline", fmt, tl)),
            lambda: asyncio.to_thread(render_timeline, tl, fmt, lambda i: f"/source/{i}"),
        )
        return _picture(data, fmt)

    async def people_page(request: Request) -> Response:
        people = await gather_people(
            web.engine.store, await web.engine.profile.load(), web.engine.settings.owner_list
        )
        return await page(
            request,
            "people.html",
            people=people,
            caption=people_caption(people),
            height=_height(people_size(people)),
        )

    async def people_picture(request: Request) -> Response:
        fmt = request.path_params["fmt"]
        people = await gather_people(
            web.engine.store, await web.engine.profile.load(), web.engine.settings.owner_list
        )
        data = await pictures.get(
            repr(("people", fmt, people)),
            lambda: asyncio.to_thread(render_people, people, fmt, lambda n: f"/grep?pattern={n}"),
        )
        return _picture(data, fmt)

    # -- sources ----------------------------------------------------------------------------------

    async def sources(request: Request) -> Response:
        rows = await web.engine.store.documents.states()
        return await page(
            request,
            "sources.html",
            rows=rows,
            max_mb=web.max_upload // 2**20,
            statuses=web.hub.recent("status")[-20:],
            llm=web.engine.biography.configured,
        )

    async def upload(request: Request) -> Response:
        name = Path(request.query_params.get("name") or "upload").name[:200] or "upload"
        declared = int(request.headers.get("content-length") or 0)
        if declared > web.max_upload:
            return _too_big(web.max_upload)
        web.uploads.mkdir(mode=0o700, parents=True, exist_ok=True)
        target = web.uploads / f"{secrets.token_hex(16)}.part"
        size = 0
        try:
            with target.open("wb") as f:
                async for piece in request.stream():
                    size += len(piece)
                    if size > web.max_upload:
                        raise _TooBig
                    await asyncio.to_thread(f.write, piece)
        except _TooBig:
            target.unlink(missing_ok=True)
            return _too_big(web.max_upload)
        except BaseException:
            target.unlink(missing_ok=True)
            raise
        target.chmod(0o600)
        await web.assistant.on_file(
            web.channel, CHAT, Incoming(target.name, name, "document", size)
        )
        return JSONResponse({"name": name, "size": size, "queued": True}, 202)

    async def source(request: Request) -> Response:
        doc_id = int(request.path_params["doc"])
        try:
            doc = await web.engine.sources.get(doc_id)
        except NotFound as exc:
            return await page(
                request, "message.html", title="No such source", text=exc.user_message
            )
        query = request.query_params.get("q", "")[:200]
        at = max(0, _int(request.query_params.get("at"), 0))
        if doc.status != "ready":
            return await page(
                request,
                "source.html",
                doc=doc,
                text="",
                at=0,
                hits=[],
                q=query,
                prev=None,
                next=None,
            )
        part = await web.engine.sources.read(doc_id, at, PAGE)
        hits = []
        if query:
            page_of = await web.engine.sources.grep(query, 0, 10_000)
            hits = [m for m in page_of.mentions if m.document_id == doc_id][:200]
        return await page(
            request,
            "source.html",
            doc=doc,
            text=part.text,
            at=part.offset,
            end=part.end,
            total=part.total,
            hits=hits,
            q=query,
            prev=max(0, at - PAGE) if at > 0 else None,
            next=part.next_offset,
        )

    async def forget_page(request: Request) -> Response:
        doc_id = int(request.path_params["doc"])
        try:
            doc = await web.engine.sources.get(doc_id)
        except NotFound as exc:
            return await page(
                request, "message.html", title="No such source", text=exc.user_message
            )
        return await page(request, "forget.html", doc=doc)

    async def forget(request: Request) -> Response:
        doc_id = int(request.path_params["doc"])
        try:
            doc = await web.engine.sources.forget(doc_id)
        except BiomdError as exc:
            return await page(request, "message.html", title="Not forgotten", text=exc.user_message)
        web.hub.publish(
            "message",
            message=f"forget-{doc_id}",
            text=f"Forgot #{doc_id} {doc.name}: its text, vectors and raw copy.",
        )
        return RedirectResponse("/sources", 303)

    # -- questions ------------------------------------------------------------------------------

    async def questions(request: Request) -> Response:
        bio = await web.engine.profile.load()
        qs = sorted(open_questions(bio), key=lambda q: "(important)" not in q.text)
        rendered = [(q, await render_text(q.text)) for q in qs]
        return await page(
            request, "questions.html", questions=rendered, llm=web.engine.biography.configured
        )

    async def answer(request: Request) -> Response:
        qid = request.path_params["qid"]
        text = str((await request.form()).get("answer") or "").strip()
        if text:
            web.spawn(web.assistant.answer(web.channel, CHAT, qid, text))
        return RedirectResponse("/questions", 303)

    async def dismiss(request: Request) -> Response:
        with contextlib.suppress(NotFound):
            await web.engine.questions.dismiss(request.path_params["qid"])
        return RedirectResponse("/questions", 303)

    # -- chat ---------------------------------------------------------------------------------

    async def chat_page(request: Request) -> Response:
        zone = web.engine.settings.zone
        messages = []
        for m in await web.engine.store.chat.recent(200):
            local = datetime.fromisoformat(m.at).astimezone(zone)
            messages.append(
                {
                    "id": m.id,
                    "day": local.date().isoformat(),
                    "at": local.strftime("%Y-%m-%d %H:%M"),
                    "role": m.role,
                    "html": await render_text(m.content),
                }
            )
        return await page(
            request, "chat.html", messages=messages, llm=web.engine.biography.configured
        )

    async def chat_send(request: Request) -> Response:
        try:
            body = await request.json()
        except ValueError:
            return JSONResponse({"error": 'Send JSON: {"text": …}'}, 400)
        text = str(body.get("text") or "").strip()[:8000] if isinstance(body, dict) else ""
        if not text:
            return JSONResponse({"error": "Say something first."}, 400)
        turn = secrets.token_hex(4)

        async def step(kind: str, detail: str) -> None:
            web.hub.publish("step", turn=turn, step=kind, text=detail)

        async def run() -> None:
            try:
                await web.assistant.on_text(web.channel, CHAT, text, on_step=step)
            finally:
                web.hub.publish("done", turn=turn)

        web.hub.publish("asked", turn=turn, text=text)
        web.spawn(run())
        return JSONResponse({"turn": turn}, 202)

    async def rendered(request: Request) -> Response:
        """Markdown with live citations, for text the page received as an event."""
        body = await request.json()
        return JSONResponse({"html": await render_text(str(body.get("text", ""))[:100_000])})

    # -- search, status, events -------------------------------------------------------------

    async def search(request: Request) -> Response:
        query = request.query_params.get("q", "")[:500]
        hits = await web.engine.sources.search(query, limit=20) if query.strip() else []
        return await page(request, "search.html", q=query, hits=hits, grep=None)

    async def grep(request: Request) -> Response:
        pattern = request.query_params.get("pattern", "")[:200]
        at = max(0, _int(request.query_params.get("at"), 0))
        found = await web.engine.sources.grep(pattern, at, 100) if pattern.strip() else None
        return await page(request, "search.html", q=pattern, hits=[], grep=found, at=at)

    async def status(request: Request) -> Response:
        stats = await web.engine.sources.stats()
        ledger = web.engine.usage
        turns = await web.engine.store.turns.recent(20)
        return await page(
            request,
            "status.html",
            stats=stats,
            turns=turns,
            spent=await ledger.spent_today(),
            limit=ledger.limit,
            queue=await web.engine.store.jobs.unfinished(),
            waiting=len(await web.engine.biography.pending()),
            aside=await web.engine.biography.set_aside(),
        )

    async def events(request: Request) -> Response:
        async def stream() -> AsyncIterator[str]:
            with web.hub.subscribe() as queue:
                yield "retry: 3000\n\n"
                while True:
                    try:
                        event = await asyncio.wait_for(queue.get(), HEARTBEAT_S)
                    except TimeoutError:
                        yield ": still here\n\n"
                        continue
                    yield sse(event)

        return StreamingResponse(
            stream(), media_type="text/event-stream", headers={"X-Accel-Buffering": "no"}
        )

    routes = [
        Route("/", profile),
        Route("/bio.md", bio_file),
        Route("/api/citation", citation),
        Route("/api/render", rendered, methods=["POST"]),
        Route("/history", history),
        Route("/history/{rid:int}", revision),
        Route("/undo", undo, methods=["POST"]),
        Route("/edit", edit_page),
        Route("/edit", edit_save, methods=["POST"]),
        Route("/timeline", timeline_page),
        Route("/pictures/timeline.{fmt:str}", timeline_picture),
        Route("/people", people_page),
        Route("/pictures/people.{fmt:str}", people_picture),
        Route("/sources", sources),
        Route("/upload", upload, methods=["PUT", "POST"]),
        Route("/source/{doc:int}", source),
        Route("/source/{doc:int}/forget", forget_page),
        Route("/source/{doc:int}/forget", forget, methods=["POST"]),
        Route("/questions", questions),
        Route("/questions/{qid:str}/answer", answer, methods=["POST"]),
        Route("/questions/{qid:str}/dismiss", dismiss, methods=["POST"]),
        Route("/chat", chat_page),
        Route("/chat", chat_send, methods=["POST"]),
        Route("/search", search),
        Route("/grep", grep),
        Route("/status", status),
        Route("/events", events),
        Mount("/static", StaticFiles(directory=str(HERE / "static")), name="static"),
    ]
    if mcp is not None:
        routes.append(Mount("/mcp", mcp))
    app = Starlette(routes=routes, exception_handlers={NotFound: _not_found})
    return Guard(app, web.keys, hosts, csrf_exempt=("/mcp",))


class _TooBig(Exception):
    pass


def _too_big(limit: int) -> Response:
    return JSONResponse(
        {
            "error": f"The file is larger than {limit // 2**20} MB (BIOMD_WEB_MAX_UPLOAD_MB). "
            "`biomd ingest PATH` takes any size."
        },
        413,
    )


def _picture(data: bytes, fmt: str) -> Response:
    if fmt == "png":
        return Response(data, media_type="image/png")
    if fmt == "svg":
        return Response(_top_links(data), media_type="image/svg+xml")
    return PlainTextResponse("svg or png", 404)


def _top_links(svg: bytes) -> bytes:
    """Links in the picture open in the page, not inside the picture's frame; and the
    picture fills its frame (its fixed size goes, its viewBox stays)."""
    svg = re.sub(rb'(<a xlink:href="[^"]*") target="[^"]*"', rb'\1 target="_top"', svg)
    return re.sub(rb'(<svg[^>]*?) width="[^"]*" height="[^"]*"', rb"\1", svg, count=1)


def _height(inches: tuple[float, float], width_px: int = 960) -> int:
    """The frame's height for a picture of this shape shown `width_px` wide."""
    return round(width_px * inches[1] / inches[0])


async def _not_found(request: Request, exc: Exception) -> Response:
    return PlainTextResponse(getattr(exc, "user_message", "Not found."), 404)


def _section_body(bio: str, title: str) -> str:
    from core.biographer.profile_text import section

    return section(bio, title)


def _int(value: str | None, default: int) -> int:
    try:
        return int(value or default)
    except ValueError:
        return default
