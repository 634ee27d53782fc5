"""The open questions, important first: answered inline (as a reply on Telegram is) or
dismissed."""

from __future__ import annotations

import contextlib

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response

from biomd.errors import NotFound
from biomd.frontends.web.context import links, page, web_of
from biomd.frontends.web.hub import CHAT


async def questions(request: Request) -> Response:
    web = web_of(request)
    now = await links(web)
    rendered = [(q, now.html(q.text)) for q in await web.engine.questions.ordered()]
    return await page(
        request, "questions.html", questions=rendered, llm=web.engine.biographer.configured
    )


async def answer(request: Request) -> Response:
    web = web_of(request)
    text = str((await request.form()).get("answer") or "").strip()
    if text:
        web.spawn(web.assistant.answer(web.channel, CHAT, request.path_params["qid"], text))
    return RedirectResponse("/questions", 303)


async def dismiss(request: Request) -> Response:
    with contextlib.suppress(NotFound):
        await web_of(request).engine.questions.dismiss(request.path_params["qid"])
    return RedirectResponse("/questions", 303)
