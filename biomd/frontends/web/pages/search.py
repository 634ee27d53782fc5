"""Search (hybrid) and grep (every mention), over every source."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response

from biomd.frontends.web.context import int_param, page, web_of


async def search(request: Request) -> Response:
    query = request.query_params.get("q", "")[:500]
    hits = await web_of(request).engine.sources.search(query, limit=20) if query.strip() else []
    return await page(request, "search.html", q=query, hits=hits, grep=None)


async def grep(request: Request) -> Response:
    pattern = request.query_params.get("pattern", "")[:200]
    at = max(0, int_param(request, "at"))
    found = await web_of(request).engine.sources.grep(pattern, at, 100) if pattern.strip() else None
    return await page(request, "search.html", q=pattern, hits=[], grep=found, at=at)
