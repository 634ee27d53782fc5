"""A local fake of OpenAI's Responses API, for driving the real Codex CLI offline. It plays a
script, one step per POST /v1/responses, streams what Codex expects (response.created, one
response.output_item.done per item, response.completed with usage), and records every
request. Tool calls name a bare tool; the fake finds it among the tools the request offers
(MCP servers come as one `namespace` tool) and answers with the namespace Codex needs."""

from __future__ import annotations

import asyncio
import itertools
import json
import time
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

from tests.support.fake_llm import READER, auto_notes

USAGE = {
    "input_tokens": 1000,
    "input_tokens_details": {"cached_tokens": 400},
    "output_tokens": 50,
    "output_tokens_details": {"reasoning_tokens": 0},
    "total_tokens": 1050,
}


def say(text: str) -> dict[str, Any]:
    return {"kind": "message", "text": text}


def call(tool: str, **arguments: Any) -> dict[str, Any]:
    return {"kind": "tool_call", "tool": tool, "arguments": arguments}


@dataclass
class FakeResponses:
    script: list[dict[str, Any]] = field(default_factory=list)
    requests: list[dict[str, Any]] = field(default_factory=list)
    # The reader's runs (its instructions say so) get a note per source, as the fake
    # OpenAI server gives them (tests.support.fake_llm.auto_notes), apart from the script.
    reader_requests: list[dict[str, Any]] = field(default_factory=list)
    port: int = 0
    _runner: web.AppRunner | None = None
    _stop: asyncio.Event = field(default_factory=asyncio.Event)
    _ids: Any = field(default_factory=lambda: itertools.count(1))

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    @property
    def bodies(self) -> list[dict[str, Any]]:
        return [r for r in self.requests if isinstance(r, dict)]

    def offered(self, index: int = 0) -> list[str]:
        """The tools request `index` offered, as 'name' or 'namespace::tool'."""
        out = []
        for t in self.bodies[index].get("tools") or []:
            if t.get("type") == "namespace":
                out += [f"{t['name']}::{s['name']}" for s in t.get("tools") or []]
            else:
                out.append(str(t.get("name") or t.get("type")))
        return out

    async def __aenter__(self) -> FakeResponses:
        app = web.Application(client_max_size=64 * 1024 * 1024)
        app.router.add_route("*", "/{tail:.*}", self._any)
        self._runner = web.AppRunner(app, access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        self.port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
        return self

    async def __aexit__(self, *exc: object) -> None:
        self._stop.set()
        if self._runner is not None:
            await self._runner.cleanup()

    async def _any(self, request: web.Request) -> web.StreamResponse:
        if request.method != "POST" or not request.path.endswith("/responses"):
            return web.json_response({"error": {"message": "no such route"}}, status=404)
        body = await request.json()
        if READER in json.dumps(body, ensure_ascii=False):
            self.reader_requests.append(body)
            text = "\n".join(_texts(body.get("input")))
            step = say(json.dumps({"notes": auto_notes({"messages": [{"content": text}]})}))
        else:
            self.requests.append(body)
            step = self.script.pop(0) if self.script else say("(fake) done")
        kind = step["kind"]
        if kind == "http_error":
            return web.json_response(step["body"], status=step["status"])
        if kind == "hang":  # never even a status line
            await self._stop.wait()
            raise asyncio.CancelledError
        response = web.StreamResponse(status=200, headers={"Content-Type": "text/event-stream"})
        await response.prepare(request)
        if kind == "garbage":
            await response.write(b"data: {this is not json\n\n<html>oops</html>\n")
            await response.write_eof()
            return response
        rid = f"resp_{next(self._ids)}"
        base = {
            "id": rid,
            "object": "response",
            "created_at": int(time.time()),
            "status": "in_progress",
            "model": body.get("model"),
            "output": [],
        }
        await _send(response, "response.created", {"response": base})
        items = [self._item(s, body) for s in (step["items"] if kind == "items" else [step])]
        for i, item in enumerate(items):
            await _send(response, "response.output_item.done", {"output_index": i, "item": item})
        done = {**base, "status": "completed", "output": items, "usage": USAGE}
        await _send(response, "response.completed", {"response": done})
        await response.write_eof()
        return response

    def _item(self, step: dict[str, Any], body: dict[str, Any]) -> dict[str, Any]:
        n = next(self._ids)
        if step["kind"] == "message":
            return {
                "type": "message",
                "id": f"msg_{n}",
                "role": "assistant",
                "status": "completed",
                "content": [{"type": "output_text", "text": step["text"], "annotations": []}],
            }
        namespace, name = find_tool(body, step["tool"])
        item = {
            "type": "function_call",
            "id": f"fc_{n}",
            "call_id": f"call_{n}",
            "name": name,
            "arguments": json.dumps(step.get("arguments", {})),
            "status": "completed",
        }
        if namespace:
            item["namespace"] = namespace
        return item


def _texts(value: Any) -> list[str]:
    """Every `text` string in a Responses API input."""
    if isinstance(value, dict):
        found = [value["text"]] if isinstance(value.get("text"), str) else []
        return found + [t for v in value.values() for t in _texts(v)]
    if isinstance(value, list):
        return [t for v in value for t in _texts(v)]
    return []


def find_tool(body: dict[str, Any], tool: str) -> tuple[str | None, str]:
    """(namespace, name) of a bare tool name among those the request offers."""
    for t in body.get("tools") or []:
        if t.get("type") == "namespace":
            if any(s.get("name") == tool for s in t.get("tools") or []):
                return str(t["name"]), tool
        elif t.get("name") == tool:
            return None, tool
    return None, tool  # not offered: Codex will say "unsupported call"


def outputs(body: dict[str, Any]) -> list[str]:
    """The tool results a request carries back to the model."""
    found = []
    for item in body.get("input") or []:
        if item.get("type") == "function_call_output":
            out = item.get("output")
            if isinstance(out, list):
                out = "".join(c.get("text", "") for c in out if isinstance(c, dict))
            found.append(str(out))
    return found


async def _send(response: web.StreamResponse, event: str, payload: dict[str, Any]) -> None:
    data = json.dumps({"type": event, **payload})
    await response.write(f"event: {event}\ndata: {data}\n\n".encode())
