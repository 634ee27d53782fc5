"""The profile: bio.md rendered by section with live citations, the passage behind a
citation, bio.md as a file, and the owner's own edit."""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, RedirectResponse, Response

from biomd.app import profile_view
from biomd.frontends.web.context import in_render_thread, links, message, page, web_of
from biomd.frontends.web.render import markdown, slug


async def profile(request: Request) -> Response:
    web = web_of(request)
    shown, now = await profile_view.view(web.engine), await links(web)

    def render() -> list[dict[str, Any]]:
        return [
            {
                "title": s.title,
                "slug": slug(s.title),
                "html": now.html(s.body),
                "change": s.change,
                "changed_by": s.changed_by,
            }
            for s in shown.sections
        ]

    return await page(
        request,
        "profile.html",
        sections=await in_render_thread(render),
        empty=shown.empty,
        filled_by=markdown(shown.filled_by),
    )


async def citation(request: Request) -> Response:
    """The passage of a source that supports a claim, with the claim's words marked."""
    try:
        doc = int(request.query_params.get("doc", ""))
    except ValueError:
        return JSONResponse({"error": "Which source?"}, 400)
    claim = request.query_params.get("claim", "")[:2000]
    found = await web_of(request).engine.sources.passage(doc, claim)
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
        await web_of(request).engine.profile.load(),
        media_type="text/markdown",
        headers={"Content-Disposition": 'attachment; filename="bio.md"'},
    )


async def edit_page(request: Request) -> Response:
    return await page(request, "edit.html", bio=await web_of(request).engine.profile.load())


async def edit_save(request: Request) -> Response:
    text = str((await request.form()).get("bio") or "")
    if not text.strip():
        return await message(request, "Not saved", "bio.md can't be empty; nothing was changed.")
    await web_of(request).engine.profile.replace(
        text.replace("\r\n", "\n"), turn_id=None, mode="manual", reason="edited in the web view"
    )
    return RedirectResponse("/", 303)
