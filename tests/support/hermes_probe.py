"""Run inside Hermes Agent's own Python (tests/support/hermes_agent.py): load biomd's memory
provider with Hermes's own loader from HERMES_HOME, put it behind Hermes's MemoryManager, and
play a session through it. Prints one JSON object of what Hermes got. Imports nothing of
biomd or of the tests: Hermes's environment has neither."""

from __future__ import annotations

import json
import sys
import time


def main() -> None:
    question, session = sys.argv[1], sys.argv[2]
    import logging

    logging.basicConfig(level=logging.INFO, stream=sys.stderr)
    from agent.memory_manager import MemoryManager, build_memory_context_block
    from plugins.memory import discover_memory_providers, load_memory_provider

    listed = {name: available for name, _, available in discover_memory_providers()}
    provider = load_memory_provider("biomd")
    out: dict[str, object] = {"listed": listed, "loaded": provider is not None}
    if provider is None:
        print(json.dumps(out))
        return
    out["available"] = provider.is_available()
    manager = MemoryManager()
    manager.add_provider(provider)
    started = time.monotonic()
    manager.initialize_all(session_id=session, platform="cli", agent_context="primary")
    out["initialize_s"] = time.monotonic() - started
    out["system_prompt"] = manager.build_system_prompt()
    started = time.monotonic()  # search loads in the background: the first messages get nothing
    while not manager.prefetch_all(question) and time.monotonic() - started < 120:
        time.sleep(0.5)
    out["warm_s"] = time.monotonic() - started
    timings = []
    for _ in range(3):
        started = time.monotonic()
        recalled = manager.prefetch_all(question)
        timings.append(time.monotonic() - started)
    out["prefetch_s"] = timings
    out["prefetch"] = recalled
    out["social"] = manager.prefetch_all("thanks!")
    out["tools"] = [t["name"] for t in manager.get_all_tool_schemas()]
    out["search"] = manager.handle_tool_call("biomd_search", {"query": "half marathon"})
    shown = build_memory_context_block(recalled)
    manager.sync_all(
        f"{question}\n\n{shown}", "You ran it on 7 April 2019 [#1].", session_id=session
    )
    manager.sync_all("And who is Inês?", "Your partner, a potter.", session_id=session)
    manager.on_session_end([])
    manager.on_session_end([])  # Hermes may end a session twice
    manager.shutdown_all()
    print(json.dumps(out))


if __name__ == "__main__":
    main()
