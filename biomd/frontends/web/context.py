"""What every page of the web view shares: the `Web` context (the engine, the assistant,
the events hub, the keys), rendering a template off the event loop, and text rendered with
live citations."""

from __future__ import annotations

import asyncio
import contextlib
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from markupsafe import Markup
from starlette.requests import Request
from starlette.responses import Response
from starlette.templating import Jinja2Templates

from biomd.app.assistant import Assistant
from biomd.app.engine import Engine
from biomd.app.replies import counted, source_hint_of
from biomd.app.share.service import Draft
from biomd.errors import NotFound
from biomd.frontends.web.hub import Hub, WebChannel
from biomd.frontends.web.memo import RenderMemo
from biomd.frontends.web.render import chat_message, cite_links, file_name, markdown
from biomd.frontends.web.security import Keys

HERE = Path(__file__).resolve().parent
TEMPLATES = Jinja2Templates(directory=str(HERE / "templates"))
TEMPLATES.env.filters["counted"] = counted  # {{ n | counted("chunk") }}: "1 chunk", "2 chunks"
TEMPLATES.env.filters["file_name"] = lambda name: Markup(file_name(name))  # wraps at "/" only
# Pages and Markdown render in one thread of their own: twenty page loads at once then queue
# among themselves instead of holding the event loop the bots answer on (bench/loop_lag.py).
RENDER = ThreadPoolExecutor(max_workers=1, thread_name_prefix="biomd-web-render")


@dataclass
class Web:
    """What the pages need: the engine, the assistant, the events hub, and the keys."""

    engine: Engine
    assistant: Assistant
    hub: Hub
    channel: WebChannel
    keys: Keys
    uploads: Path
    max_upload: int
    tasks: set[asyncio.Task[Any]] = field(default_factory=set)
    pictures: RenderMemo = field(default_factory=RenderMemo)
    drafts: dict[str, Draft] = field(default_factory=dict)  # portraits being shared, by token

    def spawn(self, work: Any) -> None:
        """Run `work` in the background, keeping a reference until it ends."""
        task = asyncio.get_running_loop().create_task(work)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)


def web_of(request: Request) -> Web:
    web: Web = request.app.state.web
    return web


async def in_render_thread(work: Any) -> Any:
    """`work()` in the web view's own thread (see `RENDER`)."""
    return await asyncio.get_running_loop().run_in_executor(RENDER, work)


async def page(request: Request, name: str, **context: Any) -> Response:
    """A page, rendered in the web view's own thread."""
    context |= {"csrf": web_of(request).keys.csrf, "path": request.url.path}
    response: Response = await in_render_thread(
        lambda: TEMPLATES.TemplateResponse(request, name, context)
    )
    return response


async def message(request: Request, title: str, text: str, status: int = 200) -> Response:
    """A page that just says something (a source that is gone, an edit not saved)."""
    response = await page(request, "message.html", title=title, text=text)
    response.status_code = status
    return response


@dataclass(frozen=True)
class Links:
    """What a citation may point at now: real sources, chat days, open questions."""

    sources: set[int]
    chat_days: set[str]
    questions: set[str]

    def html(self, text: str) -> str:
        """Markdown as HTML, every citation a link (or marked broken)."""
        return cite_links(markdown(text), self.sources.__contains__, self.chat_days, self.questions)

    def chat(self, text: str, names: dict[int, str]) -> str:
        """A chat message as plain text, every citation a link, the sources it names linked
        by their `names`."""
        real = self.sources.__contains__
        return chat_message(text, real, self.chat_days, self.questions, names)


async def links(web: Web) -> Links:
    engine = web.engine
    return Links(
        await engine.sources.ready_ids(),
        set(await engine.biographer.chat.dates()),
        {q.id for q in await engine.questions.open()},
    )


async def source_names(web: Web, texts: list[str]) -> dict[int, str]:
    """The names of the sources that chat messages name at their end, by id."""
    named = {n for text in texts for n in source_hint_of(text)[1]}
    names = {}
    for doc in sorted(named):
        with contextlib.suppress(NotFound):
            names[doc] = (await web.engine.sources.get(doc)).name
    return names


async def render_chat(web: Web, text: str) -> str:
    """A chat message with live citations."""
    now, names = await links(web), await source_names(web, [text])
    html: str = await in_render_thread(lambda: now.chat(text, names))
    return html


def int_param(request: Request, name: str, default: int = 0) -> int:
    """A whole-number query parameter; `default` when it is missing or not a number."""
    try:
        return int(request.query_params.get(name) or default)
    except ValueError:
        return default
