"""The sources: every source with its state, uploads streamed to the data dir (then queued
like a forwarded file), one source page by page with search inside it, and forgetting."""

from __future__ import annotations

import asyncio
import secrets
from pathlib import Path
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response

from biomd.app.assistant import Incoming
from biomd.errors import BiomdError, NotFound
from biomd.frontends.web.context import int_param, message, page, web_of
from biomd.frontends.web.hub import CHAT

PAGE = 4000  # characters of a source per page


class UploadTooBig(Exception):
    """An upload larger than BIOMD_WEB_MAX_UPLOAD_MB (answered 413, nothing kept)."""

    def __init__(self, limit: int) -> None:
        super().__init__(limit)
        self.limit = limit


async def sources(request: Request) -> Response:
    web = web_of(request)
    return await page(
        request,
        "sources.html",
        rows=await web.engine.sources.states(),
        max_mb=web.max_upload // 2**20,
        statuses=latest(web.hub.recent("status"))[:20],
        llm=web.engine.biographer.configured,
    )


def latest(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each status line as it reads now (a job edits its line as it goes), newest first."""
    now = {e["message"]: e for e in events}
    return sorted(now.values(), key=lambda e: -int(e["id"]))


async def upload(request: Request) -> Response:
    web = web_of(request)
    name = Path(request.query_params.get("name") or "upload").name[:200] or "upload"
    if int(request.headers.get("content-length") or 0) > web.max_upload:
        raise UploadTooBig(web.max_upload)
    web.uploads.mkdir(mode=0o700, parents=True, exist_ok=True)
    target = web.uploads / f"{secrets.token_hex(16)}.part"
    size = 0
    try:
        with target.open("wb") as f:
            async for piece in request.stream():
                size += len(piece)
                if size > web.max_upload:
                    raise UploadTooBig(web.max_upload)
                await asyncio.to_thread(f.write, piece)
    except BaseException:
        target.unlink(missing_ok=True)
        raise
    target.chmod(0o600)
    await web.assistant.on_file(web.channel, CHAT, Incoming(target.name, name, "document", size))
    return JSONResponse({"name": name, "size": size, "queued": True}, 202)


async def source(request: Request) -> Response:
    web = web_of(request)
    doc_id = int(request.path_params["doc"])
    try:
        doc = await web.engine.sources.get(doc_id)
    except NotFound as exc:
        return await message(request, "No such source", exc.user_message)
    query = request.query_params.get("q", "")[:200]
    at = max(0, int_param(request, "at"))
    if doc.status != "ready":
        return await page(
            request, "source.html", doc=doc, text="", at=0, hits=[], q=query, prev=None, next=None
        )
    part = await web.engine.sources.read(doc_id, at, PAGE)
    hits = await web.engine.sources.mentions_in(doc_id, query) if query else []
    # a page opened mid-text starts at its next line, not in the middle of a word
    skip = part.text.find("\n", 0, LINE_START) + 1 if part.offset > 0 else 0
    text, offset = part.text[skip:], part.offset + skip
    lo, hi = _mark(request.query_params.get("mark", ""), offset, part.end)
    return await page(
        request,
        "source.html",
        doc=doc,
        text=text,
        marked=(text[:lo], text[lo:hi], text[hi:]) if hi > lo else None,
        at=offset,
        end=part.end,
        total=part.total,
        hits=hits,
        q=query,
        prev=max(0, at - PAGE) if at > 0 else None,
        next=part.next_offset,
    )


LINE_START = 300  # how far a page opened mid-text looks for its first whole line


def _mark(value: str, start: int, end: int) -> tuple[int, int]:
    """`?mark=S-E` (characters of the source, a quote's span) as offsets into the page shown
    from `start` to `end`; (0, 0) if there is none on it."""
    try:
        lo, hi = (int(x) for x in value.split("-", 1))
    except ValueError:
        return 0, 0
    lo, hi = max(lo, start), min(hi, end)
    return (lo - start, hi - start) if hi > lo else (0, 0)


async def scope_choice(request: Request) -> Response:
    """The owner's choice for a source whose reading waits: all, mine, since a date, or
    later; the reading is queued like the bots' /scope."""
    web = web_of(request)
    doc_id = int(request.path_params["doc"])
    form = await request.form()
    how = str(form.get("scope") or "all")
    args = f"{doc_id} {how}"
    if how == "since":
        args += f" {form.get('since') or ''}"
    await web.assistant.on_command(web.channel, CHAT, "scope", args)
    return RedirectResponse("/sources", 303)


async def private_choice(request: Request) -> Response:
    """Keep a source from the owner's other assistants, or let them see it again."""
    web = web_of(request)
    form = await request.form()
    try:
        await web.engine.sources.set_private(
            int(request.path_params["doc"]), form.get("private") == "1"
        )
    except NotFound as exc:
        return await message(request, "No such source", exc.user_message)
    return RedirectResponse(f"/sources#source-{request.path_params['doc']}", 303)


async def forget_page(request: Request) -> Response:
    try:
        doc = await web_of(request).engine.sources.get(int(request.path_params["doc"]))
    except NotFound as exc:
        return await message(request, "No such source", exc.user_message)
    return await page(request, "forget.html", doc=doc)


async def forget(request: Request) -> Response:
    web = web_of(request)
    doc_id = int(request.path_params["doc"])
    try:
        doc = await web.engine.sources.forget(doc_id)
    except BiomdError as exc:
        return await message(request, "Not forgotten", exc.user_message)
    web.hub.publish(
        "message",
        message=f"forget-{doc_id}",
        text=f"Forgot #{doc_id} {doc.name}: its text, vectors and raw copy.",
    )
    return RedirectResponse("/sources", 303)
