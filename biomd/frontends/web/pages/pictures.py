"""The timeline and people pages, each with its picture drawn inline for a few widths, the
one that fits shown; the pictures alone as SVG or PNG (what the bots send), each drawn once per
state of its data."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from urllib.parse import quote

from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response

from biomd.app.pictures import people as people_picture
from biomd.app.pictures import timeline as timeline_picture
from biomd.app.pictures.drawing import SHOWN, Drawing, to_svg
from biomd.frontends.web.context import page, web_of
from biomd.frontends.web.render import markdown


async def timeline_page(request: Request) -> Response:
    web = web_of(request)
    tl = await web.engine.pictures.timeline()
    link = _source_link
    return await page(
        request,
        "timeline.html",
        summary=timeline_picture.summary(tl),
        tl=tl,
        svg=drawn(lambda w: timeline_picture.draw(tl, w, link)),
        missing="" if web.engine.biographer.configured else markdown(web.engine.biographer.missing),
    )


def _source_link(doc: int) -> str:
    return f"/source/{doc}"


def drawn(draw: Callable[[float], Drawing]) -> str:
    """A picture drawn for each width in SHOWN, as inline SVG; the page shows the one made
    for its box (app.css)."""
    return "".join(to_svg(draw(width), name) for name, width, _ in SHOWN)


async def timeline_image(request: Request) -> Response:
    web, fmt = web_of(request), request.path_params["fmt"]
    tl = await web.engine.pictures.timeline()
    data = await web.pictures.get(
        repr(("timeline", fmt, tl)),
        lambda: asyncio.to_thread(timeline_picture.render, tl, fmt, lambda i: f"/source/{i}"),
    )
    return _picture(data, fmt)


async def people_page(request: Request) -> Response:
    people = await web_of(request).engine.pictures.people()
    return await page(
        request,
        "people.html",
        people=people,
        caption=people_picture.caption(people),
        svg=drawn(lambda w: people_picture.draw(people, w, _mentions)),
    )


def _mentions(name: str) -> str:
    return f"/grep?pattern={quote(name)}"


async def people_image(request: Request) -> Response:
    web, fmt = web_of(request), request.path_params["fmt"]
    people = await web.engine.pictures.people()
    data = await web.pictures.get(
        repr(("people", fmt, people)),
        lambda: asyncio.to_thread(people_picture.render, people, fmt, _mentions),
    )
    return _picture(data, fmt)


def _picture(data: bytes, fmt: str) -> Response:
    if fmt == "png":
        return Response(data, media_type="image/png")
    if fmt == "svg":
        return Response(data, media_type="image/svg+xml")
    return PlainTextResponse("svg or png", 404)
