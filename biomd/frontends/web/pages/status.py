"""The status (corpus, queue, reading, spend, recent turns), and the events stream every
open page listens to."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

from starlette.requests import Request
from starlette.responses import Response, StreamingResponse

from biomd.app.status_now import gather
from biomd.frontends.web.context import page, web_of
from biomd.frontends.web.hub import sse

HEARTBEAT_S = 15.0


async def status(request: Request) -> Response:
    web = web_of(request)
    return await page(
        request, "status.html", status=await gather(web.engine, web.assistant.jobs, turns=20)
    )


async def events(request: Request) -> Response:
    hub = web_of(request).hub

    async def stream() -> AsyncIterator[str]:
        with hub.subscribe() as queue:
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
