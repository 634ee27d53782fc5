"""Reading with a real local model, tokens counted at the wire (issue 36).

A small HTTP proxy sits between biomd and a llama.cpp server: it forwards everything
(/v1/*, /props, /tokenize, /health...) and records, for each /chat/completions call, the
request's size, the server's own token counts (from the reply's `usage`, or the SSE chunk
that carries it when biomd streams), what kind of call it was (the reader, a reading turn,
a consolidation) and how long it took.

A WhatsApp export (bench/mirror.py's `write_export`, Ana and Maya) is ingested by a real
Engine and read to the end (read_pending until nothing waits, or a source is set aside);
then the figures: prompt tokens per MB of export (server count and chars/4), calls by kind,
completion tokens, wall time, the chat filter's share, notes kept/dropped, bio.md's size,
and the cost preview's estimate before reading against what was measured.

    PYTHONPATH=. BIOMD_TEST_MODELS_DIR=/work/shared/models .venv/bin/python \\
        -m bench.real_reading --mb 0.12 --out /work/bench-runs/real36

Goal (issue 36): at most 0.6 M prompt tokens per MB of export."""

from __future__ import annotations

import argparse
import asyncio
import http.client
import json
import shutil
import threading
import time
from dataclasses import asdict, dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

from bench.mirror import write_export
from biomd.app.engine import Engine
from biomd.biographer.reading import filler
from biomd.settings import Settings
from tests.support.model_files import MINILM_NAME, minilm_dir

MODEL = "qwen2.5-coder-1.5b-instruct-q4_k_m"
HOP = {"connection", "keep-alive", "transfer-encoding", "content-length", "host",
       "accept-encoding", "proxy-connection", "te", "upgrade"}  # fmt: skip


@dataclass
class Call:
    """One /chat/completions call as the proxy saw it."""

    n: int
    kind: str  # reader | turn | consolidation | other
    request_bytes: int
    content_chars: int  # characters of the messages' contents
    stream: bool
    started: float
    seconds: float = 0.0
    status: int = 0
    prompt_tokens: int | None = None  # the server's count
    completion_tokens: int | None = None
    cached_tokens: int | None = None  # prompt tokens the server's cache served
    prompt_n: int | None = None  # llama.cpp's timings: prompt tokens evaluated
    predicted_n: int | None = None
    prompt_per_second: float | None = None
    predicted_per_second: float | None = None
    finish_reason: str | None = None
    aborted: bool = False  # biomd closed the stream before its end
    max_tokens: int | None = None
    reply: str = ""
    error: str = ""
    counted_by: str = "server"  # "tokenize": cut short by biomd, counted by /tokenize


@dataclass
class Wire:
    calls: list[Call] = field(default_factory=list)
    other: dict[str, int] = field(default_factory=dict)  # other paths, how often
    requests: list[dict[str, Any]] = field(default_factory=list)  # the bodies sent
    lock: threading.Lock = field(default_factory=threading.Lock)


def kind_of(body: dict[str, Any]) -> str:
    messages = body.get("messages") or []
    system = str(messages[0].get("content") or "") if messages else ""
    if system.startswith("You are biomd's reader"):
        return "reader"
    fmt = body.get("response_format") or {}
    schema = (fmt.get("json_schema") or {}).get("schema") or {}
    if "edits" in (schema.get("properties") or {}):
        return "turn"
    if "tidying their biography" in system.replace("\\\n", " ").replace("\n", " "):
        return "consolidation"
    return "other"


def _post(upstream: str, path: str, body: dict[str, Any]) -> Any:
    up = urlparse(upstream)
    conn = http.client.HTTPConnection(up.hostname or "127.0.0.1", up.port, timeout=120)
    try:
        conn.request("POST", path, json.dumps(body), {"Content-Type": "application/json"})
        return json.loads(conn.getresponse().read())
    finally:
        conn.close()


def _tokens(upstream: str, text: str) -> int:
    found = _post(upstream, "/tokenize", {"content": text, "parse_special": True})
    return len(found["tokens"])


def proxy(upstream: str, wire: Wire) -> ThreadingHTTPServer:
    """A server on a free local port forwarding to `upstream`; started in a thread."""
    up = urlparse(upstream)

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.0"  # a streamed body ends when the connection closes

        def log_message(self, *args: Any) -> None:
            pass

        def do_GET(self) -> None:
            self._forward(b"")

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            self._forward(self.rfile.read(length) if length else b"")

        def _forward(self, body: bytes) -> None:
            path = self.path
            call = None
            parsed: dict[str, Any] = {}
            if path.endswith("/chat/completions") and body:
                parsed = json.loads(body)
                with wire.lock:
                    call = Call(
                        len(wire.calls) + 1,
                        kind_of(parsed),
                        len(body),
                        sum(len(str(m.get("content") or "")) for m in parsed.get("messages", [])),
                        bool(parsed.get("stream")),
                        time.time(),
                        max_tokens=parsed.get("max_tokens"),
                    )
                    wire.calls.append(call)
                    wire.requests.append({"n": call.n, "kind": call.kind, "body": parsed})
                print(f"  call {call.n} ({call.kind}): {len(body):,} bytes sent...", flush=True)
            else:
                with wire.lock:
                    key = urlparse(path).path
                    wire.other[key] = wire.other.get(key, 0) + 1
            conn = http.client.HTTPConnection(up.hostname or "127.0.0.1", up.port, timeout=3600)
            headers = {k: v for k, v in self.headers.items() if k.lower() not in HOP}
            t0 = time.perf_counter()
            try:
                conn.request(self.command, path, body=body or None, headers=headers)
                resp = conn.getresponse()
                self.send_response(resp.status)
                for k, v in resp.getheaders():
                    if k.lower() not in HOP:
                        self.send_header(k, v)
                streamed = "text/event-stream" in (resp.getheader("Content-Type") or "")
                if not streamed:
                    data = resp.read()
                    self.send_header("Content-Length", str(len(data)))
                    self.send_header("Connection", "close")
                    self.end_headers()
                    self.wfile.write(data)
                    if call:
                        call.status = resp.status
                        self._whole(call, data)
                    return
                self.send_header("Connection", "close")
                self.end_headers()
                if call:
                    call.status = resp.status
                buf = b""
                while True:
                    chunk = resp.read1(65536)
                    if not chunk:
                        break
                    if call:  # read before it is passed on: the usage may be the last
                        buf += chunk
                        *lines, buf = buf.split(b"\n")
                        for line in lines:
                            self._event(call, line)
                    try:
                        self.wfile.write(chunk)
                        self.wfile.flush()
                    except (BrokenPipeError, ConnectionResetError):
                        if call:
                            call.aborted = True
                        break
                if call and buf:
                    self._event(call, buf)
                if call and call.prompt_tokens is None:  # closed early: count it ourselves
                    self._count_after(call, parsed)
            except Exception as exc:  # recorded, and the client sees a reset
                if call:
                    call.error = repr(exc)
                raise
            finally:
                conn.close()
                if call:
                    call.seconds = time.perf_counter() - t0
                    print(
                        f"  call {call.n} ({call.kind}): {call.seconds:.0f} s, prompt "
                        f"{call.prompt_tokens} (cached {call.cached_tokens}), completion "
                        f"{call.completion_tokens}, {call.finish_reason}"
                        f"{', cut short by biomd' if call.aborted else ''}",
                        flush=True,
                    )

        def _count_after(self, call: Call, body: dict[str, Any]) -> None:
            """The tokens of a call biomd cut short (no usage came): its prompt as the
            server's template renders it, and the reply received, by the server's
            tokenizer."""
            try:
                sent = {k: v for k, v in body.items() if k not in ("stream", "stream_options")}
                prompt = _post(upstream, "/apply-template", sent)["prompt"]
                call.prompt_tokens = _tokens(upstream, prompt)
                call.completion_tokens = _tokens(upstream, call.reply)
                call.counted_by = "tokenize"
            except Exception as exc:  # not counted, and said why
                call.error = f"could not count: {exc!r}"

        def _event(self, call: Call, line: bytes) -> None:
            text = line.strip()
            if not text.startswith(b"data:"):
                return
            text = text[5:].strip()
            if text == b"[DONE]":
                return
            try:
                event = json.loads(text)
            except ValueError:
                return
            for choice in event.get("choices") or []:
                delta = choice.get("delta") or {}
                call.reply += str(delta.get("content") or "")
                if choice.get("finish_reason"):
                    call.finish_reason = choice["finish_reason"]
            self._counts(call, event)

        def _whole(self, call: Call, data: bytes) -> None:
            try:
                event = json.loads(data)
            except ValueError:
                call.error = data[:500].decode(errors="replace")
                return
            for choice in event.get("choices") or []:
                call.reply += str((choice.get("message") or {}).get("content") or "")
                call.finish_reason = choice.get("finish_reason")
            if "error" in event:
                call.error = json.dumps(event["error"])[:500]
            self._counts(call, event)

        @staticmethod
        def _counts(call: Call, event: dict[str, Any]) -> None:
            usage = event.get("usage")
            if isinstance(usage, dict):
                call.prompt_tokens = usage.get("prompt_tokens")
                call.completion_tokens = usage.get("completion_tokens")
                details = usage.get("prompt_tokens_details") or {}
                call.cached_tokens = details.get("cached_tokens")
            timings = event.get("timings")
            if isinstance(timings, dict):
                call.prompt_n = timings.get("prompt_n")
                call.predicted_n = timings.get("predicted_n")
                call.prompt_per_second = timings.get("prompt_per_second")
                call.predicted_per_second = timings.get("predicted_per_second")
                if call.cached_tokens is None and timings.get("cache_n") is not None:
                    call.cached_tokens = timings.get("cache_n")

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def settings_for(data: Path, base_url: str, owner: str) -> Settings:
    return Settings(
        _env_file=None,  # type: ignore[call-arg]
        data_dir=data,
        llm_base_url=base_url,
        llm_model=MODEL,
        llm_api_key="none",
        embed_model=MINILM_NAME,
        embed_model_path=minilm_dir(),
        owner_names=owner,
        timezone="UTC",
        daily_spend_limit_usd=None,
        read_confirm_tokens=10**12,
    )


async def run(args: argparse.Namespace) -> dict[str, Any]:
    out: Path = args.out
    out.mkdir(parents=True, exist_ok=True)  # noqa: ASYNC240 - once, before anything runs
    data = out / "data"
    if data.exists():
        shutil.rmtree(data)
    export = out / "WhatsApp Chat with Maya.txt"
    messages = write_export(export, args.mb, seed=args.seed)
    size = export.stat().st_size
    print(f"export: {size:,} bytes, {messages:,} messages", flush=True)
    wire = Wire()
    server = proxy(args.upstream, wire)
    base = f"http://127.0.0.1:{server.server_address[1]}/v1"
    t_all = time.perf_counter()
    summary: dict[str, Any] = {"export_bytes": size, "messages": messages}
    try:
        async with await Engine.open(settings_for(data, base, "Ana")) as engine:
            async for r in engine.sources.ingest([export]):
                print(f"ingest: {r.status} {getattr(r, 'error', '') or ''}", flush=True)
            pending = await engine.biographer.reading.pending()
            guess = await engine.biographer.cost.estimate_all(pending)
            print(f"estimate before reading: {guess.describe()}; {guess}", flush=True)
            summary["estimate"] = asdict(guess)
            texts = {
                r.document_id: await engine.store.chunks.text(r.document_id, 0, r.text_length)
                for r in pending
            }
            total = sum(len(t) for t in texts.values())
            sent = sum(filler.sent_chars(t) for t in texts.values())
            summary["text_chars"], summary["sent_chars"] = total, sent
            print(f"converted text {total:,} chars, the filter sends {sent:,}", flush=True)
            with wire.lock:
                wire.calls.clear()
                wire.requests.clear()
                wire.other.clear()
            t0 = time.perf_counter()
            rounds: list[list[str]] = []
            for i in range(args.rounds):
                results = await engine.biographer.reading.read_pending()
                said = [
                    f"{r.mode} #{r.turn_id}: {r.edits} edits, {len(r.refused)} refused, "
                    f"{r.steps} steps, cut_off={r.cut_off}: {r.report} | {r.reading}"
                    for r in results
                ]
                rounds.append(said)
                print(f"round {i + 1}: {len(results)} results", flush=True)
                for s in said:
                    print(f"   {s}", flush=True)
                left = await engine.biographer.reading.pending()
                aside = await engine.biographer.reading.set_aside()
                if aside:
                    summary["set_aside"] = [str(a) for a in aside]
                    print(f"set aside: {aside}", flush=True)
                    break
                if not left:
                    break
                if not results:
                    summary["stuck"] = [str(r) for r in left]
                    print(f"nothing read this round, still pending: {left}", flush=True)
                    break
            summary["read_seconds"] = time.perf_counter() - t0
            summary["rounds"] = rounds
            summary["pending_after"] = len(await engine.biographer.reading.pending())
            tally = await engine.store.notes.tally()
            summary["notes"] = asdict(tally)
            parts = []
            for doc in texts:
                parts += [asdict(p) for p in await engine.store.notes.parts(doc)]
            turns = await engine.store._db.fetchall(
                "SELECT id, mode, status, steps, report, error FROM turns ORDER BY id"
            )
            summary["turns"] = [list(t) for t in turns]
            summary["parts"] = parts
            notes = []
            for doc in texts:
                for x in await engine.store.notes.of_source(doc):
                    notes.append(
                        {
                            "kind": x.kind,
                            "statement": x.statement,
                            "date": x.date,
                            "people": list(x.people),
                            "quote": x.quote,
                            "turn": x.integrated_turn,
                        }
                    )
            summary["kept_notes"] = notes
            bio = await engine.profile.load()
            (out / "bio.md").write_text(bio, encoding="utf-8")
            summary["bio_chars"] = len(bio)
    finally:
        for _ in range(120):  # a call biomd cut short is still being counted
            if all(c.seconds or c.error for c in wire.calls):
                break
            await asyncio.sleep(0.5)
        server.shutdown()
        summary["wall_seconds"] = time.perf_counter() - t_all
        calls = [asdict(c) for c in wire.calls]
        (out / "calls.json").write_text(json.dumps(calls, indent=1), encoding="utf-8")
        with (out / "requests.jsonl").open("w", encoding="utf-8") as f:
            for req in wire.requests:
                f.write(json.dumps(req) + "\n")
        summary["other_paths"] = wire.other
        (out / "summary.json").write_text(json.dumps(summary, indent=1), encoding="utf-8")
    report(summary, wire.calls)
    return summary


def report(s: dict[str, Any], calls: list[Call]) -> None:
    mb = s["export_bytes"] / 1e6
    prompt = sum(c.prompt_tokens or 0 for c in calls)
    completion = sum(c.completion_tokens or 0 for c in calls)
    chars4 = sum(c.request_bytes for c in calls) / 4
    content4 = sum(c.content_chars for c in calls) / 4
    uncounted = sum(c.prompt_tokens is None for c in calls)
    print("\n| | |\n|---|---|")
    print(f"| export | {s['export_bytes']:,} bytes, {s['messages']:,} messages |")
    print(
        f"| chat filter | {s['text_chars']:,} chars of text, {s['sent_chars']:,} sent: "
        f"{1 - s['sent_chars'] / max(1, s['text_chars']):.1%} not sent |"
    )
    print(
        f"| prompt tokens (server) | {prompt:,} = **{prompt / mb / 1e6:.2f} M per MB**"
        f"{f' ({uncounted} calls uncounted)' if uncounted else ''} |"
    )
    print(
        f"| prompt, request bytes / 4 | {chars4:,.0f} = {chars4 / mb / 1e6:.2f} M per MB "
        f"(message contents / 4: {content4 / mb / 1e6:.2f} M per MB) |"
    )
    cached = sum(c.cached_tokens or 0 for c in calls)
    print(f"| prompt tokens served from llama.cpp's cache | {cached:,} |")
    cut = [c for c in calls if c.aborted]
    print(
        f"| calls cut short by biomd (counted by /tokenize) | {len(cut)}: "
        f"{', '.join(f'#{c.n} {c.kind}' for c in cut) or '-'} |"
    )
    print(f"| completion tokens | {completion:,} = {completion / mb / 1e6:.3f} M per MB |")
    for kind in ("reader", "turn", "consolidation", "other"):
        these = [c for c in calls if c.kind == kind]
        if these:
            p = sum(c.prompt_tokens or 0 for c in these)
            o = sum(c.completion_tokens or 0 for c in these)
            t = sum(c.seconds for c in these)
            print(
                f"| {kind} calls | {len(these)}: prompt {p:,}, completion {o:,}, {t / 60:.1f} min |"
            )
    print(f"| other requests | {s.get('other_paths')} |")
    print(f"| reading wall time | {s.get('read_seconds', 0) / 60:.1f} min |")
    n = s.get("notes") or {}
    print(
        f"| notes | {n.get('kept')} kept, {n.get('dropped')} dropped, {n.get('waiting')} waiting |"
    )
    print(f"| bio.md | {s.get('bio_chars', 0):,} chars |")
    print(f"| pending after | {s.get('pending_after')} {s.get('set_aside', '')} |")
    e = s.get("estimate") or {}
    if e:
        measured = prompt + completion
        est = e["prompt_tokens"] + e["completion_tokens"]
        print(
            f"| preview estimate | {e['calls']} calls, prompt {e['prompt_tokens']:,}, completion "
            f"{e['completion_tokens']:,}, ~{e['seconds'] / 60:.0f} min |"
        )
        print(
            f"| measured | {len(calls)} calls, prompt {prompt:,}, completion {completion:,}, "
            f"{s.get('read_seconds', 0) / 60:.0f} min; estimate/measured tokens "
            f"{est / max(1, measured):.2f} |"
        )


def again(out: Path, upstream: str) -> None:
    """The report of a run kept in `out`, any call left uncounted counted now."""
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    calls = [Call(**c) for c in json.loads((out / "calls.json").read_text(encoding="utf-8"))]
    bodies = {}
    with (out / "requests.jsonl").open(encoding="utf-8") as f:
        for line in f:
            req = json.loads(line)
            bodies[req["n"]] = req["body"]
    for c in calls:
        if c.prompt_tokens is None:
            sent = {k: v for k, v in bodies[c.n].items() if k not in ("stream", "stream_options")}
            c.prompt_tokens = _tokens(upstream, _post(upstream, "/apply-template", sent)["prompt"])
            c.completion_tokens = _tokens(upstream, c.reply)
            c.counted_by = "tokenize, after the run"
    (out / "calls.json").write_text(json.dumps([asdict(c) for c in calls], indent=1), "utf-8")
    report(summary, calls)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--mb", type=float, default=0.12)
    parser.add_argument("--seed", type=int, default=5)
    parser.add_argument("--upstream", default="http://127.0.0.1:8080")
    parser.add_argument("--out", type=Path, default=Path("/work/bench-runs/real36"))
    parser.add_argument("--rounds", type=int, default=8)
    parser.add_argument("--again", action="store_true", help="report the run in --out again")
    args = parser.parse_args()
    if args.again:
        again(args.out, args.upstream)
        return
    asyncio.run(run(args))


if __name__ == "__main__":
    main()
