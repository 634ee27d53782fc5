"""A local fake of the Telegram Bot API (aiohttp), for python-telegram-bot pointed at it with
`base_url`/`base_file_url`. It serves updates the test pushes, records every call, and
serves files for getFile downloads."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager, suppress
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

from tests.support.waiting import wait_until

BOT_ID = 999000


@dataclass
class FakeTelegram:
    base: str = ""
    calls: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    updates: list[dict[str, Any]] = field(default_factory=list)
    files: dict[str, tuple[str, bytes]] = field(default_factory=dict)
    sent: dict[int, dict[str, Any]] = field(default_factory=dict)  # message id -> message
    documents: list[tuple[str, bytes]] = field(default_factory=list)
    photos: list[tuple[str, bytes, str | None]] = field(default_factory=list)
    outage: bool = False  # every request answered 502 Bad Gateway, as during an outage
    refused: list[str] = field(default_factory=list)  # methods called during the outage
    revoked: set[str] = field(default_factory=set)  # tokens answered 401 Unauthorized
    _next_update: int = 1
    _next_message: int = 1000
    _changed: asyncio.Event = field(default_factory=asyncio.Event)

    # -- what tests use -----------------------------------------------------------------------

    def user(self, uid: int, name: str = "Grace") -> dict[str, Any]:
        return {"id": uid, "is_bot": False, "first_name": name, "username": name.lower()}

    def push(
        self,
        uid: int,
        *,
        text: str | None = None,
        chat_type: str = "private",
        chat_id: int | None = None,
        reply_to: int | None = None,
        edited: bool = False,
        **media: Any,
    ) -> int:
        """Queue an incoming message (text, or document=/voice=/photo=… dicts)."""
        self._next_message += 1
        chat = {"id": chat_id or uid, "type": chat_type}
        if chat_type == "private":
            chat["first_name"] = "Grace"
        else:
            chat["title"] = "A group"
        message: dict[str, Any] = {
            "message_id": self._next_message,
            "date": int(time.time()),
            "chat": chat,
            "from": self.user(uid),
        }
        if text is not None:
            message["text"] = text
            if text.startswith("/"):
                command = text.split()[0]
                message["entities"] = [{"type": "bot_command", "offset": 0, "length": len(command)}]
        if reply_to is not None:
            message["reply_to_message"] = self.sent.get(reply_to) or {
                "message_id": reply_to,
                "date": int(time.time()),
                "chat": chat,
            }
        message.update(media)
        key = "edited_message" if edited else "message"
        self.updates.append({"update_id": self._next_update, key: message})
        self._next_update += 1
        self._changed.set()
        return self._next_message

    def push_callback(self, uid: int, data: str = "forget:1", message: int | None = None) -> None:
        """Queue a press of an inline button (under message `message` of the bot's, if any)."""
        query: dict[str, Any] = {
            "id": f"cb{self._next_update}",
            "from": self.user(uid),
            "chat_instance": "x",
            "data": data,
        }
        if message is not None:
            query["message"] = self.sent.get(message) or {
                "message_id": message,
                "date": int(time.time()),
                "chat": {"id": uid, "type": "private", "first_name": "Grace"},
            }
        self.updates.append({"update_id": self._next_update, "callback_query": query})
        self._next_update += 1
        self._changed.set()

    def buttons(self) -> list[list[tuple[str, str]]]:
        """The inline buttons of every message the bot sent with some: (label, data)."""
        out = []
        for method, params in self.calls:
            markup = params.get("reply_markup")
            if method == "sendMessage" and markup:
                keys = json.loads(markup) if isinstance(markup, str) else markup
                out.append(
                    [
                        (b["text"], b["callback_data"])
                        for row in keys["inline_keyboard"]
                        for b in row
                    ]
                )
        return out

    def add_file(self, file_id: str, data: bytes, path: str) -> dict[str, Any]:
        self.files[file_id] = (path, data)
        return {"file_id": file_id, "file_unique_id": f"u{file_id}", "file_size": len(data)}

    def texts(self, chat_id: int | None = None) -> list[str]:
        """Every text the bot sent or edited to, in order."""
        out = []
        for method, params in self.calls:
            if method in ("sendMessage", "editMessageText") and (
                chat_id is None or int(params["chat_id"]) == chat_id
            ):
                out.append(str(params["text"]))
        return out

    async def wait_for(self, predicate: Any, seconds: float = 30.0) -> None:
        await wait_until(predicate, self.texts, seconds)

    # -- the API ----------------------------------------------------------------------------

    async def _api(self, request: web.Request) -> web.Response:
        method = request.match_info["method"]
        params = await _params(request)
        if self.outage:
            self.refused.append(method)
            return _error(502, "Bad Gateway")
        if request.match_info["token"] in self.revoked:
            return _error(401, "Unauthorized")
        self.calls.append((method, params))
        handler = getattr(self, f"_m_{method}", None)
        if handler is None:
            return _error(400, f"Bad Request: method {method} is not known to the fake")
        result = await handler(params)
        if isinstance(result, web.Response):
            return result
        return web.json_response({"ok": True, "result": result})

    async def _m_getMe(self, p: dict[str, Any]) -> Any:
        return {
            "id": BOT_ID,
            "is_bot": True,
            "first_name": "biomd",
            "username": "biomd_test_bot",
            "can_join_groups": False,
            "can_read_all_group_messages": False,
            "supports_inline_queries": False,
        }

    async def _m_deleteWebhook(self, p: dict[str, Any]) -> Any:
        return True

    async def _m_setMyCommands(self, p: dict[str, Any]) -> Any:
        return True

    async def _m_sendChatAction(self, p: dict[str, Any]) -> Any:
        return True

    async def _m_answerCallbackQuery(self, p: dict[str, Any]) -> Any:
        return True

    async def _m_getUpdates(self, p: dict[str, Any]) -> Any:
        offset = int(p.get("offset") or 0)
        deadline = time.monotonic() + min(float(p.get("timeout") or 0), 1.0)
        while True:
            fresh = [u for u in self.updates if u["update_id"] >= offset]
            if fresh or time.monotonic() >= deadline:
                return fresh
            self._changed.clear()
            with suppress(TimeoutError):
                await asyncio.wait_for(self._changed.wait(), deadline - time.monotonic())

    def _message(self, chat_id: Any, **extra: Any) -> dict[str, Any]:
        self._next_message += 1
        message = {
            "message_id": self._next_message,
            "date": int(time.time()),
            "chat": {"id": int(chat_id), "type": "private"},
            "from": {"id": BOT_ID, "is_bot": True, "first_name": "biomd"},
            **extra,
        }
        self.sent[self._next_message] = message
        return message

    async def _m_sendMessage(self, p: dict[str, Any]) -> Any:
        if len(str(p["text"])) > 4096:
            return _error(400, "Bad Request: message is too long")
        return self._message(p["chat_id"], text=p["text"])

    async def _m_editMessageText(self, p: dict[str, Any]) -> Any:
        message = self.sent.get(int(p["message_id"]))
        if message is None:
            return _error(400, "Bad Request: message to edit not found")
        if message.get("text") == p["text"]:
            return _error(400, "Bad Request: message is not modified")
        message["text"] = p["text"]
        return message

    async def _m_sendDocument(self, p: dict[str, Any]) -> Any:
        name, data = p["document"]
        self.documents.append((name, data))
        return self._message(
            p["chat_id"],
            document={
                "file_id": f"sent{len(self.documents)}",
                "file_unique_id": "s",
                "file_name": name,
            },
        )

    async def _m_sendPhoto(self, p: dict[str, Any]) -> Any:
        name, data = p["photo"]
        self.photos.append((name, data, p.get("caption")))
        size = {"file_unique_id": "p", "width": 800, "height": 400}
        return self._message(p["chat_id"], photo=[size | {"file_id": f"photo{len(self.photos)}"}])

    async def _m_getFile(self, p: dict[str, Any]) -> Any:
        file_id = str(p["file_id"])
        if file_id not in self.files:
            return _error(400, "Bad Request: invalid file_id")
        path, data = self.files[file_id]
        return {
            "file_id": file_id,
            "file_unique_id": f"u{file_id}",
            "file_size": len(data),
            "file_path": path,
        }

    async def _file(self, request: web.Request) -> web.Response:
        path = request.match_info["path"]
        if self.outage:
            return web.Response(status=502)
        for stored, data in self.files.values():
            if stored == path:
                return web.Response(body=data)
        return web.Response(status=404)


async def _params(request: web.Request) -> dict[str, Any]:
    """Form or multipart fields, JSON-decoded where they are JSON; files as (name, bytes)."""
    out: dict[str, Any] = {}
    if request.content_type == "application/json":
        return dict(await request.json())
    if request.content_type.startswith("multipart/"):
        reader = await request.multipart()
        async for part in reader:
            if part.filename:  # type: ignore[union-attr]
                out[part.name] = (part.filename, await part.read())  # type: ignore[union-attr]
            else:
                out[part.name] = _maybe_json(await part.text())  # type: ignore[union-attr]
        return out
    for key, value in (await request.post()).items():
        out[key] = _maybe_json(str(value))
    return out


def _maybe_json(value: str) -> Any:
    try:
        return json.loads(value)
    except ValueError:
        return value


def _error(code: int, description: str) -> web.Response:
    return web.json_response(
        {"ok": False, "error_code": code, "description": description}, status=code
    )


@asynccontextmanager
async def fake_telegram() -> AsyncIterator[FakeTelegram]:
    state = FakeTelegram()
    app = web.Application()
    app.router.add_route("*", "/bot{token}/{method}", state._api)
    app.router.add_get("/file/bot{token}/{path:.*}", state._file)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    state.base = f"http://127.0.0.1:{port}"
    try:
        yield state
    finally:
        await runner.cleanup()
