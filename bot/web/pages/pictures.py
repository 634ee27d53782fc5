"""The timeline and people pages, and their pictures: SVG for the page (links open in it),
PNG for a download; each drawn once per state of its data."""

from __future__ import annotations

import asyncio
import re

from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response

from bot.web.context import page, web_of
from core.app.pictures import people as people_picture
from core.app.pictures import timeline as timeline_picture


async def timeline_page(request: Request) -> Response:
    tl = await web_of(request).engine.pictures.timeline()
    return await page(
        request,
        "timeline.html",
        caption=timeline_picture.caption(tl),
        tl=tl,
        height=_height(timeline_picture.size(tl)),
    )


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
        height=_height(people_picture.size(people)),
    )


async def people_image(request: Request) -> Response:
    web, fmt = web_of(request), request.path_params["fmt"]
    people = await web.engine.pictures.people()
    data = await web.pictures.get(
        repr(("people", fmt, people)),
        lambda: asyncio.to_thread(
            people_picture.render, people, fmt, lambda n: f"/grep?pattern={n}"
        ),
    )
    return _picture(data, fmt)


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
