"""A local fake of Discord's REST API and gateway (one aiohttp app) for discord.py, wired by
setting `Route.BASE` and `DiscordWebSocket.DEFAULT_GATEWAY`. The gateway speaks
HELLO → IDENTIFY → READY, acknowledges heartbeats, and dispatches the MESSAGE_CREATE events
a test pushes; REST records what the bot sends."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import discord
import yarl
from aiohttp import WSMsgType, web

from tests.support.waiting import wait_until

BOT = {
    "id": "900",
    "username": "biomd",
    "discriminator": "0",
    "global_name": "biomd",
    "avatar": None,
    "bot": True,
}


def user(uid: int, name: str = "grace") -> dict[str, Any]:
    return {
        "id": str(uid),
        "username": name,
        "discriminator": "0",
        "global_name": name,
        "avatar": None,
    }


@dataclass
class FakeDiscord:
    base: str = ""
    calls: list[tuple[str, str, Any]] = field(default_factory=list)
    messages: dict[str, dict[str, Any]] = field(default_factory=dict)  # sent by the bot
    files: dict[str, bytes] = field(default_factory=dict)
    uploads: list[tuple[str, bytes]] = field(default_factory=list)
    _sockets: list[web.WebSocketResponse] = field(default_factory=list)
    _seq: int = 0
    _next_id: int = 5000
    identified: asyncio.Event = field(default_factory=asyncio.Event)
    outage: bool = False  # REST answers 503 and the gateway refuses connections
    sessions: list[str] = field(default_factory=list)  # "identify" or "resume", in order

    def _id(self) -> str:
        self._next_id += 1
        return str(self._next_id)

    # -- what tests use -----------------------------------------------------------------------

    def dm_channel(self, uid: int) -> str:
        return str(700000 + uid)

    def add_file(self, name: str, data: bytes) -> str:
        self.files[name] = data
        return f"{self.base}/attachments/{name}"

    async def push(
        self,
        uid: int,
        content: str = "",
        *,
        guild: bool = False,
        reply_to: str | None = None,
        attachments: list[dict[str, Any]] | None = None,
        bot: bool = False,
    ) -> str:
        """Dispatch MESSAGE_CREATE as if `uid` wrote in a DM (or in a guild channel)."""
        message_id = self._id()
        author = user(uid) | ({"bot": True} if bot else {})
        data: dict[str, Any] = {
            "id": message_id,
            "channel_id": "123" if guild else self.dm_channel(uid),
            "author": author,
            "content": content,
            "timestamp": datetime.now(UTC).isoformat(),
            "edited_timestamp": None,
            "tts": False,
            "mention_everyone": False,
            "mentions": [],
            "mention_roles": [],
            "attachments": attachments or [],
            "embeds": [],
            "pinned": False,
            "type": 19 if reply_to else 0,
            "flags": 0,
        }
        if guild:
            data["guild_id"] = "42"
            data["member"] = {
                "roles": [],
                "joined_at": datetime.now(UTC).isoformat(),
                "deaf": False,
                "mute": False,
            }
        if reply_to:
            data["message_reference"] = {"message_id": reply_to, "channel_id": data["channel_id"]}
        await self._dispatch("MESSAGE_CREATE", data)
        return message_id

    async def push_edit(self, uid: int, message_id: str, content: str) -> None:
        """MESSAGE_UPDATE: `uid` edited a DM message."""
        await self._dispatch(
            "MESSAGE_UPDATE",
            {
                "id": message_id,
                "channel_id": self.dm_channel(uid),
                "author": user(uid),
                "content": content,
                "timestamp": datetime.now(UTC).isoformat(),
                "edited_timestamp": datetime.now(UTC).isoformat(),
                "type": 0,
                "flags": 0,
                "attachments": [],
                "embeds": [],
                "mentions": [],
                "mention_roles": [],
                "pinned": False,
                "tts": False,
                "mention_everyone": False,
            },
        )

    async def _interact(self, uid: int, kind: int, data: dict[str, Any], **extra: Any) -> str:
        """INTERACTION_CREATE in `uid`'s DM: `kind` 2 a slash command, 3 a component."""
        interaction_id = self._id()
        channel = self.dm_channel(uid)
        await self._dispatch(
            "INTERACTION_CREATE",
            {
                "id": interaction_id,
                "application_id": "900",
                "type": kind,
                "data": data,
                "channel_id": channel,
                "channel": {"id": channel, "type": 1},
                "user": user(uid),
                "token": f"token-{interaction_id}",
                "version": 1,
                "locale": "en-US",
                "app_permissions": "0",
                "attachment_size_limit": 8388608,
                "entitlements": [],
                "authorizing_integration_owners": {},
                "context": 1,
            }
            | extra,
        )
        return interaction_id

    async def push_interaction(self, uid: int, command: str) -> None:
        """`uid` used a slash command in a DM (biomd registers none)."""
        await self._interact(uid, 2, {"id": "77", "name": command, "type": 1})

    async def press(self, uid: int, custom_id: str, message: str) -> str:
        """`uid` pressed the button `custom_id` under the bot's message `message` in their
        DM; the interaction's id."""
        original = self.messages.get(message) or self._message(self.dm_channel(uid), "")
        data = {"custom_id": custom_id, "component_type": 2}
        return await self._interact(uid, 3, data, message=original)

    def buttons(self) -> list[tuple[str, list[tuple[str, str]]]]:
        """Every message the bot sent with buttons: (its id, [(label, custom id)])."""
        return [
            (
                mid,
                [
                    (b["label"], b["custom_id"])
                    for row in m["components"]
                    for b in row["components"]
                ],
            )
            for mid, m in self.messages.items()
            if m.get("components")
        ]

    def attachment(self, name: str, data: bytes, voice: bool = False) -> dict[str, Any]:
        url = self.add_file(name, data)
        att: dict[str, Any] = {
            "id": self._id(),
            "filename": name,
            "size": len(data),
            "url": url,
            "proxy_url": url,
            "content_type": "audio/ogg" if voice else "text/plain",
        }
        if voice:
            att |= {"duration_secs": 3.5, "waveform": "AAAA"}
        return att

    def texts(self, channel: str | None = None) -> list[str]:
        out = []
        for method, path, body in self.calls:
            mine = channel is None or f"/channels/{channel}/" in path
            posted = method in ("POST", "PATCH") and "/messages" in path
            if posted and mine and isinstance(body, dict) and body.get("content"):
                out.append(str(body["content"]))
        return out

    async def wait_for(self, predicate: Any, seconds: float = 30.0) -> None:
        await wait_until(predicate, self.texts, seconds)

    # -- gateway ------------------------------------------------------------------------------

    async def _dispatch(self, event: str, data: dict[str, Any]) -> None:
        self._seq += 1
        for ws in list(self._sockets):
            await ws.send_str(json.dumps({"op": 0, "t": event, "s": self._seq, "d": data}))

    async def go_down(self) -> None:
        """Drop every gateway connection and refuse REST and new connections until
        `outage` is set back to False."""
        self.outage = True
        for ws in list(self._sockets):
            await ws.close(code=4000, message=b"going away")

    async def _gateway(self, request: web.Request) -> web.StreamResponse:
        if self.outage:
            return web.Response(status=503)
        ws = web.WebSocketResponse()
        await ws.prepare(request)
        await ws.send_str(json.dumps({"op": 10, "d": {"heartbeat_interval": 40000}}))
        async for msg in ws:
            if msg.type != WSMsgType.TEXT:
                continue
            payload = json.loads(msg.data)
            if payload["op"] == 1:
                await ws.send_str(json.dumps({"op": 11}))
            elif payload["op"] == 2:
                self._sockets.append(ws)
                self._seq += 1
                ready = {
                    "v": 10,
                    "user": BOT,
                    "guilds": [],
                    "session_id": "s1",
                    "resume_gateway_url": f"{self.base.replace('http', 'ws')}/gateway",
                    "application": {"id": "900", "flags": 0},
                }
                await ws.send_str(json.dumps({"op": 0, "t": "READY", "s": self._seq, "d": ready}))
                self.sessions.append("identify")
                self.identified.set()
            elif payload["op"] == 6:  # RESUME: carry on the session
                self._sockets.append(ws)
                self._seq += 1
                await ws.send_str(json.dumps({"op": 0, "t": "RESUMED", "s": self._seq, "d": {}}))
                self.sessions.append("resume")
        if ws in self._sockets:
            self._sockets.remove(ws)
        return ws

    # -- REST -----------------------------------------------------------------------------------

    async def _rest(self, request: web.Request) -> web.Response:
        path = "/" + request.match_info["path"]
        if self.outage:
            return _json({"message": "Service Unavailable", "code": 0}, status=503)
        body: Any = None
        if request.content_type == "application/json":
            body = await request.json()
        elif request.content_type.startswith("multipart/"):
            body = {}
            reader = await request.multipart()
            async for part in reader:
                if part.name == "payload_json":  # type: ignore[union-attr]
                    body.update(json.loads(await part.text()))  # type: ignore[union-attr]
                elif part.filename:  # type: ignore[union-attr]
                    self.uploads.append((part.filename, await part.read()))  # type: ignore[union-attr]
        self.calls.append((request.method, path, body))
        route = (request.method, path)
        if route == ("GET", "/users/@me"):
            return _json(BOT)
        if route == ("GET", "/oauth2/applications/@me"):
            return _json(
                {
                    "id": "900",
                    "name": "biomd",
                    "description": "",
                    "icon": None,
                    "bot_public": False,
                    "bot_require_code_grant": False,
                    "owner": user(1, "owner"),
                    "verify_key": "0" * 64,
                    "flags": 0,
                }
            )
        if request.method == "GET" and path.startswith("/users/"):
            return _json(user(int(path.rsplit("/", 1)[1])))
        if route == ("POST", "/users/@me/channels"):
            uid = int(body["recipient_id"])
            return _json(
                {
                    "id": self.dm_channel(uid),
                    "type": 1,
                    "recipients": [user(uid)],
                    "last_message_id": None,
                }
            )
        if request.method == "GET" and path.startswith("/channels/") and path.count("/") == 2:
            cid = path.rsplit("/", 1)[1]
            uid = int(cid) - 700000
            return _json({"id": cid, "type": 1, "recipients": [user(uid)], "last_message_id": None})
        if request.method == "POST" and path.endswith("/typing"):
            return web.Response(status=204)
        if request.method == "POST" and path.endswith("/messages"):
            channel = path.split("/")[2]
            content = (body or {}).get("content") or ""
            if len(content) > 2000:
                return _json({"message": "Invalid Form Body", "code": 50035}, status=400)
            message = self._message(channel, content, (body or {}).get("components") or [])
            return _json(message)
        if request.method == "POST" and path.startswith("/interactions/"):
            interaction_id = path.split("/")[2]
            response = {"id": interaction_id, "type": (body or {}).get("type", 0)}
            return _json({"interaction": response})
        if request.method == "PATCH" and "/messages/" in path:
            mid = path.rsplit("/", 1)[1]
            message = self.messages[mid]
            message["content"] = (body or {}).get("content", message["content"])
            return _json(message)
        return _json({"message": f"the fake has no {request.method} {path}", "code": 0}, 404)

    def _message(
        self, channel: str, content: str, components: list[Any] | None = None
    ) -> dict[str, Any]:
        mid = self._id()
        message = {
            "id": mid,
            "channel_id": channel,
            "author": BOT,
            "content": content,
            "timestamp": datetime.now(UTC).isoformat(),
            "edited_timestamp": None,
            "tts": False,
            "mention_everyone": False,
            "mentions": [],
            "mention_roles": [],
            "attachments": [],
            "embeds": [],
            "pinned": False,
            "type": 0,
            "flags": 0,
            "components": components or [],
        }
        self.messages[mid] = message
        return message

    async def _attachment(self, request: web.Request) -> web.Response:
        if self.outage:
            return web.Response(status=503)
        data = self.files.get(request.match_info["name"])
        return web.Response(body=data) if data is not None else web.Response(status=404)


def _json(data: Any, status: int = 200) -> web.Response:
    # discord.py checks the content type exactly; no charset.
    return web.Response(
        body=json.dumps(data).encode(), status=status, headers={"Content-Type": "application/json"}
    )


@asynccontextmanager
async def fake_discord() -> AsyncIterator[FakeDiscord]:
    state = FakeDiscord()
    app = web.Application()
    app.router.add_get("/gateway", state._gateway)
    app.router.add_get("/attachments/{name}", state._attachment)
    app.router.add_route("*", "/api/v10/{path:.*}", state._rest)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    state.base = f"http://127.0.0.1:{port}"
    old_base = discord.http.Route.BASE
    old_gateway = discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY
    discord.http.Route.BASE = f"{state.base}/api/v10"
    discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(f"ws://127.0.0.1:{port}/gateway")
    try:
        yield state
    finally:
        discord.http.Route.BASE = old_base
        discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = old_gateway
        await runner.cleanup()
