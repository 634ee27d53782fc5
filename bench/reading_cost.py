"""What reading costs at the wire: real `Engine` ingest and `read_pending` against the local
fake OpenAI server, which plays a diligent reader and a diligent biographer and records every
request byte. Tokens are the request's characters / 4 (messages, tool schemas and response
format: all of the JSON sent), completions the reply's.

The reader takes a note per ~600 characters of what it is sent (a line quoted verbatim, a
one-line statement, the speaker as a person), of the kinds in KINDS (65% routine: events,
facts, people, which rules place; 35% for a reading turn to judge); a reading turn replies
with a cited inference for every third note it is given, in its one JSON reply;
consolidation (when bio.md passes its budget) keeps every citation and open question.
"Cached" is the share of prompt tokens whose start an earlier request of the same kind
(reader or biographer) already sent, counted as OpenAI's cache does (from 1,024 tokens, in
steps of 128): what a provider's prefix cache serves.

Workloads: `export`, a synthetic chat with 30% near-duplicate lines and no filler (the
chat filter saves nothing on it: the hard case); `chat`, a chat shaped like a real one
(bench/filler.py: 40% of its lines reactions, acks, logistics, media); `notes`, 200 journal
notes of 5 KB per MB.

    .venv/bin/python -m bench.reading_cost            # every workload, window and bio.md size
    .venv/bin/python -m bench.reading_cost --quick    # 1 MB export and the small notes, 128K
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.synth import chat_text, vocabulary
from biomd.app.engine import Engine
from biomd.settings import Settings
from tests.support.fake_llm import FakeLLM, fake_llm
from tests.support.model_files import MINILM_NAME, minilm_dir

PRICES = {  # (input, output) USD per million tokens, list prices, no caching
    "gpt-4o-mini": (0.15, 0.60),
    "claude-sonnet-4.5": (3.00, 15.00),
}
NOTE_EVERY = 600  # characters of source per note
_BLOCK = re.compile(r"<source_data id=(\d+)>\n(.*?)\n</source_data>", re.S)
_NOTE = re.compile(r"^- (\S+) (\w+)(?: \(([^)]*)\))?: (.*?) — .*\[#(\d+)\]$", re.M)
# The kinds of a reader's notes, in proportion: routine ones (event, fact, person) are placed
# by rules, the rest go to a reading turn to be judged (35%).
KINDS = ["event"] * 8 + ["person"] * 3 + ["fact"] * 2 + ["feeling"] * 3 + ["habit"] * 2
KINDS += ["claim"] * 1 + ["gap"] * 1
_SPEAKER = re.compile(r"^\[[^\]]+\] ([^:]{1,40}): ")
SECTIONS = "# bio.md\n\n## Summary\n\n## Timeline\n\n## People & relationships\n\n## Patterns\n"


def diligent_notes(body: dict[str, Any]) -> list[dict[str, Any]]:
    """A note per NOTE_EVERY characters of each source block, quoting a line of it."""
    text = str(body["messages"][-1]["content"])
    notes: list[dict[str, Any]] = []
    for doc, block in _BLOCK.findall(text):
        at = 0
        while at < len(block):
            end = block.find("\n", at + NOTE_EVERY // 2)
            line_start = block.rfind("\n", 0, at) + 1
            line = block[line_start : (end if end > 0 else len(block))].split("\n")[0]
            said = _SPEAKER.sub("", line).strip()
            if len(said) >= 12:
                m = _SPEAKER.match(line)
                notes.append(
                    {
                        "source": int(doc),
                        "kind": KINDS[(len(notes) * 7 + at) % len(KINDS)],
                        "statement": f"Talked about {' '.join(said.split()[:8])}",
                        "date": line[1:11] if line.startswith("[") else "",
                        "people": [m.group(1)] if m else [],
                        "quote": said[:160],
                    }
                )
            at += NOTE_EVERY
    return notes


def diligent_biographer(body: dict[str, Any]) -> dict[str, Any] | str:
    """A reading turn: a cited judgement (an inference with its confidence) for every third
    note, all in its one JSON reply with a one-line report. Consolidation keeps one line per
    citation."""
    messages = body["messages"]
    if not body.get("response_format") and not body.get("tools"):
        return consolidated("\n".join(str(m.get("content")) for m in messages))
    found = _NOTE.findall(str(messages[-1]["content"]))
    edits = [
        {
            "section": "Inferences",
            "old_text": "",
            "new_text": f"- {statement} ({kind}, {date}) (confidence: medium) [#{doc}]",
        }
        for date, kind, _people, statement, doc in (found[::3] or found[:1])[:40]
    ]
    return json.dumps({"edits": edits, "check": [], "report": "Placed the notes in bio.md."})


def consolidated(request: str) -> str:
    """What a diligent consolidator does: every citation and open question kept (one line
    each, first), then the newest other lines while bio.md stays within 80% of its budget."""
    found = re.search(r"at most ([\d,]+) characters", request)
    budget = int(found.group(1).replace(",", "")) if found else 30_000
    bio = request.split("<bio_md>\n", 1)[-1].rsplit("\n</bio_md>", 1)[0]
    lines = bio.split("\n")
    keep = [
        not (ln.startswith("- ") and re.search(r"#\d+", ln)) or bool(re.search(r"\[Q\d+\]", ln))
        for ln in lines
    ]  # every open question is kept, as the guard demands
    seen: set[tuple[str, ...]] = set()
    for i, ln in enumerate(lines):
        cites = tuple(re.findall(r"#\d+", ln))
        if not keep[i] and cites not in seen:
            seen.add(cites)
            keep[i] = True
    size = sum(len(ln) + 1 for ln, k in zip(lines, keep, strict=True) if k)
    for i in reversed(range(len(lines))):
        if not keep[i] and size + len(lines[i]) + 1 <= budget * 0.8:
            keep[i] = True
            size += len(lines[i]) + 1
    return "\n".join(ln for ln, k in zip(lines, keep, strict=True) if k) + "\n"


@dataclass
class Wire:
    calls: int = 0
    prompt: int = 0
    completion: int = 0
    cacheable: int = 0  # prompt tokens an earlier request's prefix covers (cache reads)
    written: int = 0  # prompt tokens a later request reuses, that were not cached (writes)
    reader_calls: int = 0
    reader_prompt: int = 0
    estimated: int = 0  # the cost preview's tokens, before reading
    estimated_usd: float = 0.0  # the preview's price at gpt-4o-mini's, and with the cache
    estimated_cached_usd: float = 0.0

    def usd(self, model: str, cached: bool = False) -> float:
        """What the tokens cost at `model`'s list prices, or with its prompt cache (OpenAI:
        a cached token at half price; Anthropic: a tenth, and 1.25x to write)."""
        p, c = PRICES[model]
        prompt = float(self.prompt)
        if cached:
            read, write = (0.1, 1.25) if model.startswith("claude") else (0.5, 1.0)
            prompt += self.cacheable * (read - 1) + self.written * (write - 1)
        return (prompt * p + self.completion * c) / 1e6


def shared_start(a: str, b: str) -> int:
    """How many characters two requests share from their start."""
    lo, hi = 0, min(len(a), len(b))
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if a[:mid] == b[:mid]:
            lo = mid
        else:
            hi = mid - 1
    return lo


def measure(llm: FakeLLM) -> Wire:
    """The wire's tokens; a request's cacheable part is the longest start it shares with an
    earlier one of its kind (what a provider's prefix cache serves, in 128-token steps after
    the first 1,024, as OpenAI's does)."""
    w = Wire()
    sent_by_kind: dict[bool, list[str]] = {True: [], False: []}
    hits: dict[bool, list[int]] = {True: [], False: []}
    for is_reader, req in [(True, r) for r in llm.reader_requests] + [
        (False, r) for r in llm.requests
    ]:
        sent = json.dumps(req["body"], ensure_ascii=False)
        w.calls += 1
        w.prompt += len(sent) // 4
        earlier = sent_by_kind[is_reader]
        same = max((shared_start(e, sent) for e in earlier[-32:]), default=0)
        tokens = same // 4
        hit = 0 if tokens < 1024 else 1024 + (tokens - 1024) // 128 * 128
        w.cacheable += hit
        earlier.append(sent)
        hits[is_reader].append(hit)
        if is_reader:
            w.reader_calls += 1
            w.reader_prompt += len(sent) // 4
    for kind, sent_list in sent_by_kind.items():
        for i, sent in enumerate(sent_list):  # what a later request reuses, less what was hit
            later = sent_list[i + 1 : i + 33]
            reused = max((shared_start(sent, x) for x in later), default=0) // 4
            w.written += max(0, reused - hits[kind][i])
    for reply in llm.sent:
        w.completion += len(json.dumps(reply["choices"][0]["message"], ensure_ascii=False)) // 4
    return w


def export_text(size: int) -> str:
    vocab = vocabulary(20_000)
    text = "".join(chat_text(size, vocab, seed=5, repeats=0.3))[:size]
    return text[: text.rfind("\n") + 1]


def real_shaped_export(size: int) -> str:
    """A chat shaped like a real one (bench/filler.py): 40% of its lines reactions, acks,
    logistics and media placeholders, the rest short and long messages."""
    from bench.filler import export

    lines = [line for _, line in export("en", size // 30, seed=5)]
    text = "WhatsApp chat with Maya\n" + "\n".join(lines) + "\n"
    return text[: text.rfind("\n", 0, size) + 1]


def journal_notes(n: int, size: int) -> list[str]:
    vocab = vocabulary(20_000)
    out = []
    for i in range(n):
        body = "".join(chat_text(size, vocab, seed=100 + i))[:size]
        out.append(f"Journal {i}\n\n" + body[: body.rfind("\n") + 1])
    return out


def latency(seconds_per_token: float, scale: float) -> Any:
    """A call's time at a cloud endpoint: 0.8 s, the prompt at 20,000 tokens/s, the reply at
    1/seconds_per_token tokens/s; slept `scale` times as long."""

    def wait(body: dict[str, Any], reply: str) -> None:
        prompt = len(json.dumps(body)) / 4
        time.sleep(scale * (0.8 + prompt / 20_000 + len(reply) / 4 * seconds_per_token))

    return wait


async def run_case(
    workload: str,
    window: int,
    bio_chars: int,
    mb: float,
    work: Path,
    concurrency: int = 4,
    scale: float = 0.0,
) -> tuple[Wire, float, int]:
    with fake_llm() as llm:
        wait = latency(1 / 100, scale) if scale else None

        def notes_for(body: dict[str, Any]) -> list[dict[str, Any]]:
            notes = diligent_notes(body)
            if wait:
                wait(body, json.dumps(notes))
            return notes

        def biographer(body: dict[str, Any]) -> dict[str, Any] | str:
            reply = diligent_biographer(body)
            if wait:
                wait(body, json.dumps(reply))
            return reply

        llm.notes_for = notes_for
        llm.responder = biographer
        settings = Settings(
            _env_file=None,  # type: ignore[call-arg]
            data_dir=work / f"{workload}-{window}-{bio_chars}",
            llm_base_url=llm.base_url,
            llm_api_key="sk-bench",
            llm_model="bench/model",
            llm_context_tokens=window,
            embed_model=MINILM_NAME,
            embed_model_path=minilm_dir(),
            owner_names="Grace",
            daily_spend_limit_usd=None,
            llm_price_prompt_per_mtok=PRICES["gpt-4o-mini"][0],
            llm_price_completion_per_mtok=PRICES["gpt-4o-mini"][1],
            prompt_cache="openai",
            reader_concurrency=concurrency,
            read_confirm_tokens=10**12,
        )
        async with await Engine.open(settings) as engine:
            if bio_chars:
                filler = "".join(
                    f"- 20{i % 20:02d}: an earlier fact number {i} about the owner [#1]\n"
                    for i in range(bio_chars // 60)
                )
                await engine.profile.replace(
                    SECTIONS.replace("## Timeline\n", "## Timeline\n" + filler),
                    turn_id=None,
                    mode="manual",
                    reason="bench",
                )
            size = int(mb * 1_000_000)
            if workload == "export":
                await engine.sources.keep_text(export_text(size), "WhatsApp Chat with Ana.txt")
            elif workload == "chat":
                text = real_shaped_export(size)
                await engine.sources.keep_text(text, "WhatsApp Chat with Maya.txt")
            else:
                for i, note in enumerate(journal_notes(int(200 * mb), 5_000)):
                    await engine.sources.keep_text(note, f"journal-{i:03d}.md")
            llm.requests.clear()
            guess = await engine.biographer.cost.estimate_all(
                await engine.biographer.reading.pending()
            )
            start = time.perf_counter()
            await engine.biographer.reading.read_pending()
            took = time.perf_counter() - start
            left = len(await engine.biographer.reading.pending())
            bio = len(await engine.profile.load())
        w = measure(llm)
        w.estimated = guess.prompt_tokens + guess.completion_tokens
        w.estimated_usd = guess.usd or 0.0
        w.estimated_cached_usd = guess.cached_usd or 0.0
        assert left == 0, f"{left} sources were not read"
        return w, took, bio


def row(workload: str, window: int, bio_chars: int, mb: float, w: Wire, bio: int) -> str:
    per = 1 / mb
    prompt_m = w.prompt * per / 1e6
    cost = {m: (50 * per * w.usd(m), 50 * per * w.usd(m, True)) for m in PRICES}
    mini, sonnet = cost["gpt-4o-mini"], cost["claude-sonnet-4.5"]
    return (
        f"| {workload} | {window // 1024}K | {bio_chars // 1000}K | {w.calls * per:.0f} "
        f"({w.reader_calls * per:.0f} reader) | {prompt_m:.2f} M | {w.completion * per / 1e6:.3f} M"
        f" | {w.cacheable / max(1, w.prompt):.0%} | ${mini[0]:.2f} / ${mini[1]:.2f} | "
        f"${sonnet[0]:.0f} / ${sonnet[1]:.0f} | {bio:,} | "
        f"{w.estimated / max(1, w.prompt + w.completion) - 1:+.0%} | "
        f"{w.estimated_cached_usd / max(1e-9, w.usd('gpt-4o-mini', True)) - 1:+.0%} |"
    )


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--mb", type=float, default=1.0)
    parser.add_argument(
        "--wall", action="store_true", help="time reading with realistic latency instead"
    )
    parser.add_argument("--scale", type=float, default=0.1, help="latency slept, as a share")
    parser.add_argument("--windows", help="context windows in K tokens, e.g. 8,128")
    parser.add_argument("--concurrency", default="1,8", help="with --wall: reader calls at once")
    parser.add_argument("--bios", help="bio.md sizes in K characters, e.g. 0,30")
    parser.add_argument("--workloads", default="export,chat,notes")
    args = parser.parse_args()
    if args.wall:
        await wall(args.mb, args.scale, [int(c) for c in args.concurrency.split(",")])
        return
    windows = [131_072] if args.quick else [8_192, 16_384, 131_072]
    bios = [0] if args.quick else [0, 30_000]
    if args.windows:
        windows = [int(w) * 1024 for w in args.windows.split(",")]
    if args.bios:
        bios = [int(b) * 1000 for b in args.bios.split(",")]
    workloads = args.workloads.split(",")
    print(
        "| workload | window | bio.md | calls/MB | prompt tokens/MB | completion/MB | "
        "cached | 50 MB gpt-4o-mini (list / cached) | 50 MB Sonnet (list / cached) | "
        "bio.md after | estimate vs measured, tokens | cached $ |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        for workload in workloads:
            for window in windows:
                for bio in bios:
                    w, _took, size = await run_case(workload, window, bio, args.mb, Path(tmp))
                    print(row(workload, window, bio, args.mb, w, size), flush=True)


async def wall(mb: float, scale: float, concurrency_list: list[int]) -> None:
    """Reading `mb` of export at 128K, at each reader concurrency, with each call's latency
    slept `scale` times as long. biomd's own time is measured apart (the same run with no
    latency), so the real time is own + (measured - own) / scale; then extrapolated to
    50 MB. Since the notes go into bio.md while the reader goes on, biomd's work overlaps
    the calls' waiting, and the formula overstates the time a little; at --scale 1 it is
    the time measured."""
    print(f"| reader concurrency | biomd's own time | {mb:g} MB read in | 50 MB extrapolated |")
    print("|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        _, own, _ = await run_case("export", 131_072, 0, mb, Path(tmp) / "own", 8, 0.0)
        for concurrency in concurrency_list:
            _, took, _ = await run_case(
                "export", 131_072, 0, mb, Path(tmp) / str(concurrency), concurrency, scale
            )
            real = own + max(0.0, took - own) / scale
            print(
                f"| {concurrency} | {own:.0f} s | {real / 60:.1f} min | "
                f"{real * 50 / mb / 3600:.1f} h |",
                flush=True,
            )


if __name__ == "__main__":
    asyncio.run(main())
