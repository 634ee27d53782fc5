"""The biographer's prompt size per call, for a scripted chat turn, with 10 and with 10,000
sources in the corpus. A local fake OpenAI server plays the script and records the requests;
tokens are estimated at 4 characters each.

    .venv/bin/python -m bench.agent_cost
"""

from __future__ import annotations

import asyncio
import json
import tempfile
from pathlib import Path

from biomd.app.engine import Engine
from biomd.settings import Settings
from tests.support.fake_llm import fake_llm, tool_reply
from tests.support.samples import add_sources


async def run(sources: int, base_url: str, work: Path) -> None:
    settings = Settings(
        _env_file=None,  # type: ignore[call-arg]
        data_dir=work / f"data-{sources}",
        llm_base_url=base_url,
        llm_api_key="sk-bench",
        embed_model="sentence-transformers/all-MiniLM-L6-v2",
    )
    async with await Engine.open(settings) as engine:
        texts = [
            f"Day {i}: walked the dog on Salthill promenade and met neighbour {i}. " * 8
            for i in range(sources)
        ]
        await add_sources(engine, texts, name="journal-{i}.txt")
        await engine.biographer.chat.ask("Where do I usually walk the dog, and with whom?")


async def main() -> None:
    work = Path(tempfile.mkdtemp(prefix="biomd-cost-"))
    rows = []
    for sources in (10, 10_000):
        with fake_llm() as llm:
            llm.reply_with(
                tool_reply(("search", {"query": "walk the dog", "limit": 8})),
                tool_reply(("grep", {"pattern": "Salthill"})),
                tool_reply(("read_source", {"document_id": 3, "offset": 0, "length": 4000})),
                "You walk the dog on Salthill promenade [#3].",
            )
            await run(sources, llm.base_url, work)
            sizes = [len(json.dumps(b["messages"])) // 4 for b in llm.bodies]
            rows.append((sources, sizes))
    print("\n| sources | calls in the turn | estimated prompt tokens per call |")
    print("|---:|---:|---|")
    for sources, sizes in rows:
        print(f"| {sources:,} | {len(sizes)} | {', '.join(f'{s:,}' for s in sizes)} |")


if __name__ == "__main__":
    asyncio.run(main())
