"""The web view as a route table: one module per page under biomd/frontends/web/pages, each endpoint
calling the app's API (the engine's services and the Assistant) as a bot adapter does, and
one table of exception handlers. What a page shows is escaped by its template, and bio.md's
Markdown is rendered with raw HTML off (biomd/frontends/web/render.py). Every request passes
the Guard (token, Host, Origin and CSRF; biomd/frontends/web/security.py)."""

from __future__ import annotations

from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, PlainTextResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from biomd.errors import NotFound
from biomd.frontends.web.context import HERE, Web
from biomd.frontends.web.pages import (
    chat,
    history,
    mirror,
    pictures,
    profile,
    questions,
    search,
    share,
    sources,
    status,
)
from biomd.frontends.web.pages.sources import UploadTooBig
from biomd.frontends.web.security import Guard


async def favicon(request: Request) -> Response:
    """The tab's icon (browsers ask for /favicon.ico whatever the page links)."""
    return FileResponse(HERE / "static" / "favicon.ico", media_type="image/x-icon")


ROUTES = [
    Route("/", profile.profile),
    Route("/bio.md", profile.bio_file),
    Route("/api/citation", profile.citation),
    Route("/api/render", chat.rendered, methods=["POST"]),
    Route("/edit", profile.edit_page),
    Route("/edit", profile.edit_save, methods=["POST"]),
    Route("/history", history.history),
    Route("/history/{rid:int}", history.revision),
    Route("/undo", history.undo, methods=["POST"]),
    Route("/timeline", pictures.timeline_page),
    Route("/pictures/timeline.{fmt:str}", pictures.timeline_image),
    Route("/people", pictures.people_page),
    Route("/pictures/people.{fmt:str}", pictures.people_image),
    Route("/sources", sources.sources),
    Route("/upload", sources.upload, methods=["PUT", "POST"]),
    Route("/source/{doc:int}", sources.source),
    Route("/source/{doc:int}/forget", sources.forget_page),
    Route("/source/{doc:int}/forget", sources.forget, methods=["POST"]),
    Route("/source/{doc:int}/scope", sources.scope_choice, methods=["POST"]),
    Route("/source/{doc:int}/private", sources.private_choice, methods=["POST"]),
    Route("/mirror", mirror.mirror_page),
    Route("/mirror/refresh", mirror.refresh, methods=["POST"]),
    Route("/mirror/{item:str}/confirm", mirror.confirm, methods=["POST"]),
    Route("/mirror/{item:str}/dismiss", mirror.dismiss, methods=["POST"]),
    Route("/mirror/{item:str}/undecide", mirror.undecide, methods=["POST"]),
    Route("/mirror/{item:str}/answer", mirror.answer, methods=["POST"]),
    Route("/mirror/{item:str}/ask", mirror.ask, methods=["POST"]),
    Route("/questions", questions.questions),
    Route("/questions/{qid:str}/answer", questions.answer, methods=["POST"]),
    Route("/questions/{qid:str}/dismiss", questions.dismiss, methods=["POST"]),
    Route("/chat", chat.chat_page),
    Route("/chat", chat.chat_send, methods=["POST"]),
    Route("/search", search.search),
    Route("/grep", search.grep),
    Route("/share", share.share_page),
    Route("/share", share.share_change, methods=["POST"]),
    Route("/share/preview/{token:str}", share.share_preview),
    Route("/share/save", share.share_save, methods=["POST"]),
    Route("/share/file/{sid:int}", share.share_file),
    Route("/share/card/{sid:int}.png", share.share_card),
    Route("/share/{sid:int}/delete", share.share_delete, methods=["POST"]),
    Route("/status", status.status),
    Route("/events", status.events),
    Route("/favicon.ico", favicon),
    Mount("/static", StaticFiles(directory=str(HERE / "static")), name="static"),
]


async def not_found(request: Request, exc: Exception) -> Response:
    return PlainTextResponse(getattr(exc, "user_message", "Not found."), 404)


async def too_big(request: Request, exc: Exception) -> Response:
    limit = exc.limit if isinstance(exc, UploadTooBig) else 0
    return JSONResponse(
        {
            "error": f"The file is larger than {limit // 2**20} MB (BIOMD_WEB_MAX_UPLOAD_MB). "
            "`biomd ingest PATH` takes any size."
        },
        413,
    )


EXCEPTION_HANDLERS = {NotFound: not_found, UploadTooBig: too_big}


def create_app(web: Web, hosts: frozenset[str] | None, mcp: Any = None) -> Any:
    """The web view over `web`, behind its Guard; with `mcp`, the MCP server at /mcp."""
    routes = [*ROUTES, Mount("/mcp", mcp)] if mcp is not None else ROUTES
    app = Starlette(routes=routes, exception_handlers=EXCEPTION_HANDLERS)
    app.state.web = web
    return Guard(app, web.keys, hosts, csrf_exempt=("/mcp",))
