"""The chat: the conversation the bots continue, with the biographer's research steps shown
as it works (server-sent events), and text received as an event rendered with citations."""

from __future__ import annotations

import secrets
from datetime import datetime

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from biomd.frontends.web.context import links, page, render_chat, source_names, web_of
from biomd.frontends.web.hub import CHAT


async def chat_page(request: Request) -> Response:
    web = web_of(request)
    zone = web.engine.settings.zone
    now, stored = await links(web), await web.engine.biographer.chat.messages(200)
    names = await source_names(web, [m.content for m in stored])
    messages = []
    for m in stored:
        local = datetime.fromisoformat(m.at).astimezone(zone)
        messages.append(
            {
                "id": m.id,
                "day": local.date().isoformat(),
                "at": local.strftime("%Y-%m-%d %H:%M"),
                "role": m.role,
                "html": now.chat(m.content, names),
            }
        )
    return await page(request, "chat.html", messages=messages, llm=web.engine.biographer.configured)


async def chat_send(request: Request) -> Response:
    web = web_of(request)
    try:
        body = await request.json()
    except ValueError:
        return JSONResponse({"error": 'Send JSON: {"text": …}'}, 400)
    text = str(body.get("text") or "").strip()[:8000] if isinstance(body, dict) else ""
    if not text:
        return JSONResponse({"error": "Say something first."}, 400)
    turn = secrets.token_hex(4)

    async def step(kind: str, detail: str) -> None:
        web.hub.publish("step", turn=turn, step=kind, text=detail)

    async def run() -> None:
        try:
            await web.assistant.on_text(web.channel, CHAT, text, on_step=step)
        finally:
            web.hub.publish("done", turn=turn)

    web.hub.publish("asked", turn=turn, text=text)
    web.spawn(run())
    return JSONResponse({"turn": turn}, 202)


async def rendered(request: Request) -> Response:
    """A chat message the page received as an event, with live citations."""
    body = await request.json()
    html = await render_chat(web_of(request), str(body.get("text", ""))[:100_000])
    return JSONResponse({"html": html})
