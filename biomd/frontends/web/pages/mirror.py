"""The mirror: findings and patterns as cards with their evidence (dated quotes that open the
exact passage) and the owner's word on each; each person's dynamics and the late nights as
pictures drawn for a few widths, the one that fits shown; the mirror's pass started from
here."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from functools import partial

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response

from biomd.app.mirror.text import HELP, KIND_TITLES, NOT_A_THERAPIST, figure
from biomd.app.pictures import mirror as picture
from biomd.errors import BiomdError, NotFound
from biomd.frontends.web.context import message, page, web_of
from biomd.frontends.web.pages.pictures import drawn

PEOPLE_DRAWN = 12  # people with a picture on the page; the rest are listed


async def mirror_page(request: Request) -> Response:
    web = web_of(request)
    q = request.query_params
    person = (q.get("person") or "").strip() or None
    since, until = (q.get("since") or "").strip() or None, (q.get("until") or "").strip() or None
    try:
        view = await web.engine.mirror.view(person, since, until)
    except BiomdError as exc:
        status = 404 if isinstance(exc, NotFound) else 400
        return await message(request, "Mirror", exc.user_message, status)
    everyone = view if person is None else await web.engine.mirror.view()
    ranked = sorted(
        view.people, key=lambda p: -sum(m.messages_owner + m.messages_them for m in p.months)
    )
    pictures = []
    for p in ranked[:PEOPLE_DRAWN]:
        mine = [f for f in view.findings if f.person == p.name]
        pictures.append((p, drawn(partial(picture.draw, p, mine))))
    rhythm = None
    if view.rhythm:
        rhythm = drawn(partial(picture.draw_rhythm, view.rhythm, view.findings))
    return await page(
        request,
        "mirror.html",
        view=view,
        drawn=pictures,
        rest=ranked[PEOPLE_DRAWN:],
        rhythm=rhythm,
        people=[p.name for p in everyone.people],
        person=person or "",
        since=since or "",
        until=until or "",
        value=figure,
        titles=KIND_TITLES,
        note=NOT_A_THERAPIST,
        help=HELP,
        llm=web.engine.biographer.configured,
    )


def _back(request: Request, anchor: str = "") -> Response:
    referer = request.headers.get("referer", "")
    keep = referer.split("/mirror", 1)[1] if "/mirror" in referer else ""
    keep = keep.split("#", 1)[0] if keep.startswith("?") else ""
    return RedirectResponse(f"/mirror{keep}{('#' + anchor) if anchor else ''}", 303)


async def _word(
    request: Request, act: Callable[[str], Awaitable[str]], failed: str, anchor: bool = True
) -> Response:
    """The owner's word on an item (the path's `item`), said back live; the page again."""
    item = request.path_params["item"]
    try:
        said = await act(item)
    except BiomdError as exc:
        return await message(request, failed, exc.user_message, 404)
    web_of(request).hub.publish("message", message=f"mirror-{item}", text=said)
    return _back(request, item if anchor else "")


async def confirm(request: Request) -> Response:
    return await _word(request, web_of(request).engine.mirror.confirm, "Not confirmed")


async def dismiss(request: Request) -> Response:
    return await _word(request, web_of(request).engine.mirror.dismiss, "Not dismissed")


async def ask(request: Request) -> Response:
    return await _word(request, web_of(request).engine.mirror.ask_later, "Not asked", False)


async def undecide(request: Request) -> Response:
    """Take back the owner's word on an item: it is new again (out of bio.md if confirmed)."""
    return await _word(request, web_of(request).engine.mirror.take_back, "Not taken back")


async def answer(request: Request) -> Response:
    web = web_of(request)
    item = request.path_params["item"]
    text = str((await request.form()).get("answer") or "")
    try:
        doc = await web.engine.mirror.answer(item, text)
    except BiomdError as exc:
        return await message(request, "Not kept", exc.user_message, 400)
    web.hub.publish(
        "message", message=f"mirror-{item}", text=f"Your answer is source #{doc}; read next."
    )
    from biomd.app.jobs import ReadJob

    await web.assistant.jobs.submit(ReadJob())
    return _back(request, item)


async def refresh(request: Request) -> Response:
    """Start the mirror's pass (a job, so bio.md keeps one writer); the page says when done."""
    web = web_of(request)
    from biomd.app.jobs import MirrorJob

    await web.assistant.jobs.submit(MirrorJob())
    web.hub.publish(
        "message",
        message="mirror-refresh",
        text="The mirror is looking through your notes; its page shows what it finds.",
    )
    return _back(request)
