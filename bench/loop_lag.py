"""Responsiveness while the bot works: event-loop lag and `/status` latency while a 50 MB
WhatsApp export is converted, indexed and embedded by the job worker, with the web view
served in the same loop under load: 20 page loads at once from another process, again and
again (--no-web to leave it out, as before).

    .venv/bin/python -m bench.loop_lag --mb 50 --embed-seconds 30
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

from bench.synth import NAMES, vocabulary, word_probabilities
from biomd.app.assistant import Assistant
from biomd.app.engine import Engine
from biomd.app.jobs import JobQueue, SourceJob
from biomd.settings import Settings


class LocalChannel:
    """A chat that keeps what the bot says, and 'downloads' by copying a local file."""

    platform = "bench"
    max_length = 4096

    def __init__(self) -> None:
        self.said: list[str] = []

    async def send(self, chat: str, text: str) -> str:
        self.said.append(text)
        return str(len(self.said))

    async def edit(self, chat: str, message: str, text: str) -> None:
        self.said.append(text)

    async def send_file(self, chat: str, name: str, data: bytes, caption: str = "") -> str:
        return await self.send(chat, caption)

    async def send_image(self, chat: str, name: str, png: bytes, caption: str = "") -> str:
        return await self.send(chat, caption)

    async def download(self, file_ref: str, dest: Path) -> None:
        await asyncio.to_thread(shutil.copyfile, file_ref, dest)


PAGES = [
    "/",
    "/sources",
    "/timeline",
    "/people",
    "/status",
    "/history",
    "/questions",
    "/pictures/timeline.svg",
    "/search?q=coffee%20tomorrow",
    "/chat",
]


def whatsapp_export(path: Path, mb: int) -> None:
    rng = np.random.default_rng(5)
    vocab = vocabulary(30_000)
    probs = word_probabilities(len(vocab))
    words = np.array(vocab, dtype=object)
    written, minute = 0, 0
    with path.open("w", encoding="utf-8") as f:
        while written < mb * 1_000_000:
            ids = rng.choice(len(vocab), size=20_000, p=probs)
            lines, pos = [], 0
            for n in rng.integers(4, 30, size=1500):
                minute += int(rng.integers(1, 180))
                day, rest = divmod(minute, 1440)
                date = f"{day % 28 + 1:02d}/{day // 28 % 12 + 1:02d}/{2015 + day // 336}"
                name = NAMES[int(rng.integers(0, len(NAMES)))]
                lines.append(
                    f"{date}, {rest // 60:02d}:{rest % 60:02d} - {name}: "
                    f"{' '.join(words[ids[pos : pos + n]])}"
                )
                pos += n
            written += f.write("\n".join(lines) + "\n")


def browse(port: int, token: str, timings: Any) -> None:
    """20 page loads at once, as fast as they come back, over a real socket; each page's
    time goes to `timings`."""
    import httpx

    async def run() -> None:
        base = f"http://127.0.0.1:{port}"
        async with httpx.AsyncClient(base_url=base, timeout=60) as client:
            await client.get(f"/?token={token}", follow_redirects=True)

            async def one(path: str) -> None:
                t0 = time.perf_counter()
                r = await client.get(path)
                assert r.status_code == 200, (path, r.status_code)
                timings.put((path.split("?")[0], (time.perf_counter() - t0) * 1000))

            while True:
                await asyncio.gather(*(one(PAGES[i % len(PAGES)]) for i in range(20)))

    asyncio.run(run())


async def main(mb: int, embed_seconds: float, model_path: Path, web: bool = True) -> None:
    work = Path(tempfile.mkdtemp(prefix="biomd-lag-"))
    export = work / "WhatsApp Chat with Everyone.txt"
    whatsapp_export(export, mb)
    settings = Settings(
        _env_file=None,  # type: ignore[call-arg]
        data_dir=work / "data",
        embed_model="sentence-transformers/all-MiniLM-L6-v2",
        embed_model_path=model_path,
        web_port=0,
    )
    channel = LocalChannel()
    async with await Engine.open(settings) as engine:
        jobs = JobQueue(engine, {"bench": channel})
        assistant = Assistant(engine, jobs)
        await jobs.submit(SourceJob(platform="bench", chat="1", file=str(export), name=export.name))
        view = None
        if web:
            from biomd.frontends.web.server import WebView

            view = WebView(settings, engine, assistant, jobs, announce=lambda _: None)
            await view.start()
        worker = asyncio.create_task(jobs.run())
        lags: dict[str, list[float]] = {}
        page_ms: dict[str, list[float]] = {}
        by_page: dict[tuple[str, str], list[float]] = {}
        status_ms: dict[str, list[float]] = {}
        embedding_since: float | None = None
        started = time.perf_counter()

        def phase() -> str:
            last = next((s for s in reversed(channel.said) if s.startswith(export.name)), "")
            if "vectors" in last:
                return "embedding"
            if "indexing" in last or "converting" in last:
                return "converting + indexing"
            return "downloading"

        async def probe() -> None:
            while True:
                t0 = time.perf_counter()
                await asyncio.sleep(0.01)
                lags.setdefault(phase(), []).append((time.perf_counter() - t0 - 0.01) * 1000)

        async def status() -> None:
            while True:
                await asyncio.sleep(0.5)
                t0 = time.perf_counter()
                await assistant.on_command(channel, "1", "status", "")
                status_ms.setdefault(phase(), []).append((time.perf_counter() - t0) * 1000)

        async def collect() -> None:
            """Page timings from the browsing process, filed under the phase they ended in."""
            while True:
                while not timings.empty():
                    path, took = timings.get()
                    page_ms.setdefault(phase(), []).append(took)
                    by_page.setdefault((phase(), path), []).append(took)
                await asyncio.sleep(0.05)

        tasks = [asyncio.create_task(probe()), asyncio.create_task(status())]
        timings: Any = multiprocessing.get_context("spawn").Queue()
        browser = None
        if web:
            assert view is not None
            # The browser is another process, as a real one is: its work is not the bot's.
            browser = multiprocessing.get_context("spawn").Process(
                target=browse, args=(view.port, view.keys.token, timings), daemon=True
            )
            browser.start()
            tasks.append(asyncio.create_task(collect()))
        while not worker.done():
            await asyncio.sleep(0.5)
            if phase() == "embedding":
                embedding_since = embedding_since or time.perf_counter()
                if time.perf_counter() - embedding_since > embed_seconds:
                    break
        if browser is not None:
            browser.terminate()
        for task in [*tasks, worker]:
            task.cancel()
        await asyncio.gather(*tasks, worker, return_exceptions=True)
        if view is not None:
            await view.stop()
        elapsed = time.perf_counter() - started
    load = " with the web view under load (20 page loads at a time)" if web else ""
    print(f"\n{mb} MB WhatsApp export{load}, {elapsed:.0f} s observed\n")
    print(
        "| phase | loop samples | lag p50 ms | lag p99 ms | lag max ms | /status p50 ms |"
        " /status max ms |" + (" pages loaded | page p50 ms | page p95 ms |" if web else "")
    )
    print("|---|---:|---:|---:|---:|---:|---:|" + ("---:|---:|---:|" if web else ""))
    for name in ("converting + indexing", "embedding"):
        lag = np.array(lags.get(name, [0.0]))
        st = np.array(status_ms.get(name, [0.0]))
        row = (
            f"| {name} | {len(lag)} | {np.percentile(lag, 50):.1f} | "
            f"{np.percentile(lag, 99):.1f} | {lag.max():.1f} | {np.percentile(st, 50):.1f} | "
            f"{st.max():.1f} |"
        )
        if web:
            pg = np.array(page_ms.get(name, [0.0]))
            row += f" {len(pg)} | {np.percentile(pg, 50):.0f} | {np.percentile(pg, 95):.0f} |"
        print(row)
    if web:
        print("\n| phase | page | loads | p50 ms | max ms |\n|---|---|---:|---:|---:|")
        for (name, path), times in sorted(by_page.items()):
            print(
                f"| {name} | {path} | {len(times)} | {np.percentile(times, 50):.0f} |"
                f" {max(times):.0f} |"
            )
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--mb", type=int, default=50)
    ap.add_argument("--embed-seconds", type=float, default=30.0)
    ap.add_argument("--model-path", type=Path)
    ap.add_argument("--no-web", action="store_true", help="without the web view")
    args = ap.parse_args()
    path = args.model_path
    if path is None:
        from tests.support.model_files import minilm_dir

        path = minilm_dir()
    asyncio.run(main(args.mb, args.embed_seconds, path, web=not args.no_web))
