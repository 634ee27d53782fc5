"""What biomd costs in LLM tokens: the sample life read by the biographer, then questions,
with a scripted model on the local fake OpenAI server that researches and edits the way the
real one does (reading: the diligent reader and biographer of bench/reading_cost.py, a note
per ~600 characters and a cited edit per three notes; a question: a search, a read and an
answer). Prompt tokens count everything sent (instructions, tool schemas,
bio.md, the source part, the conversation so far); all tokens are estimated at 4
characters each. Dollars use the list prices below, per million tokens.

    .venv/bin/python -m bench.cost
"""

from __future__ import annotations

import asyncio
import json
import tempfile
from pathlib import Path
from typing import Any

from bench.reading_cost import diligent_biographer, diligent_notes, measure
from biomd import sample
from biomd.app.engine import Engine
from biomd.settings import Settings
from tests.support.fake_llm import FakeLLM, fake_llm, tool_reply
from tests.support.model_files import MINILM_NAME, minilm_dir, whisper_dir

# (input, output) USD per million tokens, list prices at the time of writing
PRICES = {
    "openai/gpt-4o-mini": (0.15, 0.60),
    "anthropic/claude-sonnet-4.5": (3.00, 15.00),
}
SECTIONS = ["## Timeline", "## People & relationships", "## Patterns"]
QUESTIONS = [
    "Where did I work before Lisbon, and for how long?",
    "What happened between me and Tom?",
    "Do I still smoke?",
]


def question_script() -> list[Any]:
    return [
        tool_reply(("search", {"query": "Fieldnote Studio job", "limit": 8})),
        tool_reply(("read_source", {"document_id": 1, "offset": 0, "length": 4000})),
        "You worked at Fieldnote Studio in Hackney, London, from 2013 until the end of 2020 "
        "[#1, #2]; you handed in your notice on 18 December 2020 [#2] and moved to Lisbon in "
        "February 2021 [#3].",
    ]


def tokens(llm: FakeLLM, start: int, end: int) -> tuple[int, int, int]:
    """(calls, prompt tokens, completion tokens) for requests start..end."""
    prompt = completion = 0
    for r in llm.requests[start:end]:
        body = r["body"]
        prompt += len(json.dumps(body.get("messages", [])) + json.dumps(body.get("tools", [])))
    for reply in llm.sent[start:end]:
        completion += len(json.dumps(reply["choices"][0]["message"]))
    return end - start, prompt // 4, completion // 4


async def main() -> None:
    work = Path(tempfile.mkdtemp(prefix="biomd-cost-"))
    with fake_llm() as llm:
        settings = Settings(
            _env_file=None,  # type: ignore[call-arg]
            data_dir=work / "data",
            llm_base_url=llm.base_url,
            llm_api_key="sk-bench",
            embed_model=MINILM_NAME,
            embed_model_path=minilm_dir(),
            whisper_model=str(whisper_dir()),
            owner_names=sample.OWNER_NAMES,
            timezone=sample.TIMEZONE,
        )
        async with await Engine.open(settings) as engine:
            results = [r async for r in engine.sources.ingest(sample.files())]
            ids = [r.document_id for r in results if r.document_id]
            chars = sum(r.chars for r in results)
            llm.notes_for = diligent_notes
            llm.responder = diligent_biographer
            await engine.biographer.reading.read_pending()
            read = measure(llm)
            llm.responder = None
            llm.requests.clear()
            llm.sent.clear()
            for q in QUESTIONS:
                llm.reply_with(*question_script())
                await engine.biographer.chat.ask(q)
            bio = await engine.profile.load()
    reading = (read.calls, read.prompt, read.completion)
    rows = [
        ("reading one source (average of the sample's)", *per(reading, len(ids))),
        ("one question", *per(tokens(llm, 0, len(llm.requests)), len(QUESTIONS))),
    ]
    print(f"\nsample: {len(ids)} sources, {chars:,} characters; bio.md after: {len(bio):,} chars\n")
    names = list(PRICES)
    print("| | calls | prompt tokens | completion tokens | " + " | ".join(names) + " |")
    print("|---|---:|---:|---:|" + "---:|" * len(names))
    for label, calls, p, c in rows:
        usd = [f"${(p * PRICES[n][0] + c * PRICES[n][1]) / 1e6:.4f}" for n in names]
        print(f"| {label} | {calls:.1f} | {p:,.0f} | {c:,.0f} | " + " | ".join(usd) + " |")


def per(total: tuple[int, int, int], n: int) -> tuple[float, float, float]:
    return total[0] / n, total[1] / n, total[2] / n


if __name__ == "__main__":
    asyncio.run(main())
