"""Every revision of bio.md with its reason, one revision's diff, and undo."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response

from biomd.errors import NotFound
from biomd.frontends.web.context import message, page, web_of


async def history(request: Request) -> Response:
    revisions = await web_of(request).engine.profile.history(200)
    return await page(request, "history.html", revisions=revisions)


async def revision(request: Request) -> Response:
    rid = int(request.path_params["rid"])
    try:
        change = await web_of(request).engine.profile.change(rid)
    except NotFound:
        return await message(request, "No such revision", f"There is no revision {rid} of bio.md.")
    return await page(request, "revision.html", rev=change.revision, diff=change.diff)


async def undo(request: Request) -> Response:
    web = web_of(request)
    done = await web.engine.profile.undo()
    text = f"Reverted turn {done.turn_id}'s edits." if done else "Nothing to undo."
    web.hub.publish("message", message="undo", text=text)
    return RedirectResponse("/history", 303)
