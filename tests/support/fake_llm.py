"""A local OpenAI-compatible HTTP server for tests: it plays scripted replies and records
every request, so tests can check what was sent."""

from __future__ import annotations

import json
import re
import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass(frozen=True)
class Status:
    """A scripted HTTP error (e.g. 429 with Retry-After, or 500)."""

    code: int
    headers: dict[str, str] = field(default_factory=dict)
    message: str = "scripted failure"


@dataclass(frozen=True)
class Raw:
    """A scripted body sent as is (truncated JSON, an empty body, HTML from a proxy…)."""

    body: bytes
    code: int = 200
    content_type: str = "application/json"


@dataclass(frozen=True)
class Slow:
    """Wait this long before sending `then` (a timeout when longer than the client's)."""

    seconds: float
    then: dict[str, Any] | str | Status | Raw = "late"


Scripted = dict[str, Any] | str | Status | Raw | Slow


def tool_reply(*calls: tuple[str, dict[str, Any] | str], text: str = "") -> dict[str, Any]:
    """A response whose message calls tools; a str argument is sent as raw (maybe bad) JSON."""
    tool_calls = [
        {
            "id": f"call_{i}_{name}",
            "type": "function",
            "function": {
                "name": name,
                "arguments": args if isinstance(args, str) else json.dumps(args),
            },
        }
        for i, (name, args) in enumerate(calls)
    ]
    return {
        "id": "chatcmpl-tools",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": "fake",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": text or None, "tool_calls": tool_calls},
                "finish_reason": "tool_calls",
            }
        ],
        "usage": {"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120},
    }


def stream_chunks(reply: dict[str, Any], usage: bool) -> list[dict[str, Any]]:
    """A chat completion cut into the chunks a streaming server sends: the content a few
    characters at a time, each tool call in two pieces, then the finish and the usage."""
    choice = reply["choices"][0] if reply.get("choices") else {}
    message = choice.get("message") or {}
    base = {k: reply.get(k) for k in ("id", "created", "model")} | {
        "object": "chat.completion.chunk"
    }

    def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        return base | {"choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}

    out = [chunk({"role": "assistant", "content": ""})]
    content = message.get("content") or ""
    out += [chunk({"content": content[i : i + 24]}) for i in range(0, len(content), 24)]
    for i, call in enumerate(message.get("tool_calls") or []):
        fn = call["function"]
        half = len(fn["arguments"]) // 2
        head = {"index": i, "id": call["id"], "type": "function"}
        out.append(
            chunk(
                {
                    "tool_calls": [
                        head
                        | {"function": {"name": fn["name"], "arguments": fn["arguments"][:half]}}
                    ]
                }
            )
        )
        out.append(
            chunk({"tool_calls": [{"index": i, "function": {"arguments": fn["arguments"][half:]}}]})
        )
    out.append(chunk({}, choice.get("finish_reason") or "stop"))
    if usage and reply.get("usage"):
        out.append(base | {"choices": [], "usage": reply["usage"]})
    return out


def text_reply(text: str, finish: str = "stop") -> dict[str, Any]:
    """A plain answer; finish="length" is one cut off at max_tokens."""
    return {
        "id": "chatcmpl-text",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": "fake",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": text},
                "finish_reason": finish,
            }
        ],
        "usage": {"prompt_tokens": 50, "completion_tokens": 10, "total_tokens": 60},
    }


@dataclass
class FakeLLM:
    base_url: str = ""
    requests: list[dict[str, Any]] = field(default_factory=list)
    replies: list[Scripted] = field(default_factory=list)
    sent: list[dict[str, Any]] = field(default_factory=list)  # the 200 answers, in order
    default_reply: str | dict[str, Any] = "OK"
    down: bool = False  # drop every connection without an answer, like a dead endpoint
    routes: dict[str, Any] = field(default_factory=dict)  # other paths (GET or POST): JSON
    stream_delay: float = 0.0  # seconds between streamed chunks
    streams_finished: int = 0
    streams_abandoned: int = 0  # streams the client hung up on before the end
    other: list[str] = field(default_factory=list)  # "GET /props" and the like, as asked
    # The reader's calls (its system prompt says so) are answered apart from the scripted
    # biographer: from `notes` while it holds replies, else with a note per source quoting
    # its first line. `structured=False` plays a server that refuses response_format.
    notes: list[Scripted] = field(default_factory=list)
    reader_requests: list[dict[str, Any]] = field(default_factory=list)
    structured: bool = True
    notes_for: Callable[[dict[str, Any]], list[dict[str, Any]]] = field(
        default=lambda body: auto_notes(body)
    )  # the reader's notes when none are scripted
    responder: Callable[[dict[str, Any]], Scripted] | None = None  # when no reply is scripted
    # Reading's small calls, also answered apart: a note's line (from `lines` while it holds
    # replies, else the note's own statement), a person's line (from `phrasings`, else none)
    # and the Summary (from `summaries`, else none).
    lines: list[Scripted] = field(default_factory=list)
    summaries: list[Scripted] = field(default_factory=list)
    phrasings: list[Scripted] = field(default_factory=list)  # People lines (else the rules')
    writer_requests: list[dict[str, Any]] = field(default_factory=list)

    def reply_with(self, *items: Scripted) -> None:
        """Queue replies: a string is an assistant text; a dict is a whole response body."""
        self.replies.extend(items)

    @property
    def bodies(self) -> list[dict[str, Any]]:
        return [r["body"] for r in self.requests]

    @property
    def writer_bodies(self) -> list[dict[str, Any]]:
        return [r["body"] for r in self.writer_requests]

    @property
    def reader_bodies(self) -> list[dict[str, Any]]:
        return [r["body"] for r in self.reader_requests]

    def _next_notes(self, body: dict[str, Any]) -> dict[str, Any] | Status | Raw:
        if self.notes:
            return self._as_reply(self.notes.pop(0), str(body.get("model", "")))
        notes = {"notes": self.notes_for(body)}
        return self._as_reply(json.dumps(notes), str(body.get("model", "")))

    def _next_written(self, body: dict[str, Any]) -> dict[str, Any] | Status | Raw:
        model = str(body.get("model", ""))
        if content((body.get("messages") or [{}])[0]).startswith(LINE):
            if self.lines:
                return self._as_reply(self.lines.pop(0), model)
            said = re.search(r"^Note: (.*)$", content(body["messages"][-1]), re.M)
            return self._as_reply(json.dumps({"line": said.group(1) if said else ""}), model)
        if content((body.get("messages") or [{}])[0]).startswith(PHRASE):
            said = self.phrasings.pop(0) if self.phrasings else json.dumps({"line": ""})
            return self._as_reply(said, model)
        if self.summaries:
            return self._as_reply(self.summaries.pop(0), model)
        return self._as_reply(json.dumps({"summary": [], "identity": []}), model)

    def _next(self, model: str) -> dict[str, Any] | Status | Raw:
        return self._as_reply(self.replies.pop(0) if self.replies else self.default_reply, model)

    def _as_reply(self, item: Scripted, model: str) -> dict[str, Any] | Status | Raw:
        if isinstance(item, Slow):
            time.sleep(item.seconds)
            item = item.then
        if isinstance(item, dict | Status | Raw):
            return item
        return {
            "id": f"chatcmpl-{len(self.requests)}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": model,
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": item},
                    "finish_reason": "stop",
                }
            ],
            "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
        }


READER = "You are biomd's reader"
LINE = "You turn a note on"  # reading/wording.py
SUMMARY = "You write the top of"  # reading/summary.py
PHRASE = "You phrase one line of"  # reading/people.py
_BLOCK = re.compile(r"<source_data id=(\d+)>\n(.*?)\n</source_data>", re.S)


def content(message: dict[str, Any]) -> str:
    """A message's text, whether a string or a list of parts (with cache marks, say)."""
    value = message.get("content") or ""
    if isinstance(value, list):
        return "".join(str(p.get("text") or "") for p in value if isinstance(p, dict))
    return str(value)


def is_reader(body: dict[str, Any]) -> bool:
    messages = body.get("messages") or [{}]
    return content(messages[0]).startswith(READER)


def is_writer(body: dict[str, Any]) -> bool:
    """A call of reading's own: one note's line, or the Summary."""
    messages = body.get("messages") or [{}]
    return content(messages[0]).startswith((LINE, SUMMARY, PHRASE))


def auto_notes(body: dict[str, Any]) -> list[dict[str, Any]]:
    """A note per source block of a reader's request, quoting its first line of substance."""
    text = content((body.get("messages") or [{}])[-1])
    notes = []
    for doc, block in _BLOCK.findall(text):
        line = next((ln.strip() for ln in block.splitlines() if len(ln.strip()) >= 12), "")
        if line:
            quote = line[:200]
            notes.append(
                {
                    "source": int(doc),
                    # a kind that needs judgement, so a reading turn takes it in (dated
                    # events, facts and people go in by rules alone)
                    "kind": "feeling",
                    "statement": f"The source says: {quote[:80]}",
                    "date": "",
                    "people": [],
                    "quote": quote,
                }
            )
    return notes


def answer_reply(answer: str, *quotes: tuple[int, str], silent: bool = False) -> str:
    """A chat turn's structured answer (answer_check.SCHEMA): the answer and its quotes."""
    said = [{"source": source, "quote": quote} for source, quote in quotes]
    return json.dumps({"answer": answer, "quotes": said, "silent": silent})


def notes_reply(*notes: dict[str, Any]) -> str:
    """A reader's reply holding these notes (source, kind, date and people filled in)."""
    full = [{"source": 1, "kind": "fact", "date": "", "people": []} | n for n in notes]
    return json.dumps({"notes": full})


@contextmanager
def fake_llm() -> Iterator[FakeLLM]:
    state = FakeLLM()

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

        def _route(self, body: dict[str, Any] | None = None) -> None:
            """A path other than chat completions: what the test put in `routes` (a value,
            or a function of the request's body), or 404."""
            state.other.append(f"{self.command} {self.path}")
            if self.path not in state.routes:
                self.send_error(404)
                return
            route = state.routes[self.path]
            payload = json.dumps(route(body or {}) if callable(route) else route).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        def _stream(self, reply: dict[str, Any], usage: bool) -> None:
            """The reply as server-sent events, the way llama-server and OpenAI stream it."""
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.end_headers()
            try:
                for chunk in stream_chunks(reply, usage):
                    self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
                    self.wfile.flush()
                    if state.stream_delay:
                        time.sleep(state.stream_delay)
                self.wfile.write(b"data: [DONE]\n\n")
                state.streams_finished += 1
            except (BrokenPipeError, ConnectionResetError):
                state.streams_abandoned += 1

        def do_GET(self) -> None:
            self._route()

        def do_POST(self) -> None:
            if state.down:
                self.close_connection = True
                self.connection.shutdown(socket.SHUT_RDWR)
                return
            length = int(self.headers.get("Content-Length", 0))
            body = json.loads(self.rfile.read(length) or b"{}")
            headers = {k.lower(): v for k, v in self.headers.items()}
            if not self.path.endswith("/chat/completions"):
                self._route(body)
                return
            if is_writer(body):
                state.writer_requests.append({"path": self.path, "body": body})
                reply = state._next_written(body)
            elif is_reader(body):
                state.reader_requests.append({"path": self.path, "body": body, "headers": headers})
                if body.get("response_format") and not state.structured:
                    reply: dict[str, Any] | Status | Raw = Status(
                        400, message="response_format is not supported by this server"
                    )
                else:
                    reply = state._next_notes(body)
            else:
                state.requests.append({"path": self.path, "body": body, "headers": headers})
                model = str(body.get("model", ""))
                if state.responder and not state.replies:
                    reply = state._as_reply(state.responder(body), model)
                else:
                    reply = state._next(model)
            if isinstance(reply, Raw):
                self.send_response(reply.code)
                self.send_header("Content-Type", reply.content_type)
                self.send_header("Content-Length", str(len(reply.body)))
                self.end_headers()
                self.wfile.write(reply.body)
                return
            if isinstance(reply, Status):
                payload = json.dumps({"error": {"message": reply.message}}).encode()
                self.send_response(reply.code)
                for key, value in reply.headers.items():
                    self.send_header(key, value)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)
                return
            state.sent.append(reply)
            if body.get("stream"):
                self._stream(reply, bool((body.get("stream_options") or {}).get("include_usage")))
                return
            payload = json.dumps(reply).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

    class Server(ThreadingHTTPServer):
        def handle_error(self, request: Any, client_address: Any) -> None:
            pass  # a client that timed out and hung up is part of the script

    server = Server(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    state.base_url = f"http://127.0.0.1:{server.server_address[1]}/v1"
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()
