"""Model servers on this computer: Ollama, llama.cpp, LM Studio and vLLM at their usual
ports, with the models each serves, and Ollama's context window set for biomd."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from biomd.models.context_window import OLLAMA_DEFAULT, server_root

KNOWN: tuple[tuple[str, str], ...] = (
    ("Ollama", "http://localhost:11434"),
    ("llama.cpp", "http://localhost:8080"),
    ("LM Studio", "http://localhost:1234"),
    ("vLLM", "http://localhost:8000"),
)
WANTED_CONTEXT = 16_384  # what a reading turn needs to hold the rules, bio.md and a page or two


@dataclass(frozen=True, slots=True)
class LocalServer:
    kind: str
    base_url: str  # the OpenAI-compatible address, ending in /v1
    models: tuple[str, ...]


async def find(
    candidates: Sequence[tuple[str, str]] = KNOWN, wait_s: float = 1.5
) -> list[LocalServer]:
    """The servers that answer, each with its models (an empty list where none is loaded)."""
    import httpx

    async with httpx.AsyncClient(timeout=wait_s) as http:
        found = await asyncio.gather(*(_probe(http, kind, root) for kind, root in candidates))
    return [s for s in found if s is not None]


async def _probe(http: Any, kind: str, root: str) -> LocalServer | None:
    root = server_root(root)
    ollama = await _get(http, f"{root}/api/tags")
    if isinstance(ollama, dict) and isinstance(ollama.get("models"), list) and kind == "Ollama":
        names = tuple(str(m.get("name")) for m in ollama["models"] if m.get("name"))
        return LocalServer("Ollama", f"{root}/v1", names)
    listed = await _get(http, f"{root}/v1/models")
    if not isinstance(listed, dict):
        return None
    ids = tuple(
        str(m.get("id")) for m in listed.get("data", []) if isinstance(m, dict) and m.get("id")
    )
    return LocalServer(kind, f"{root}/v1", ids)


async def ollama_context(base_url: str, model: str) -> int | None:
    """The num_ctx Ollama runs `model` with (its default when the model sets none); None
    when the server is not Ollama."""
    import httpx

    root = server_root(base_url)
    async with httpx.AsyncClient(timeout=5.0) as http:
        if await _get(http, f"{root}/api/version") is None:
            return None
        shown = await _post(http, f"{root}/api/show", {"model": model})
    params = str((shown or {}).get("parameters") or "") if isinstance(shown, dict) else ""
    for line in params.splitlines():
        key, _, value = line.partition(" ")
        if key == "num_ctx" and value.strip().isdigit():
            return int(value.strip())
    return OLLAMA_DEFAULT


async def make_ollama_variant(base_url: str, model: str, context: int = WANTED_CONTEXT) -> str:
    """A copy of `model` that Ollama runs with a `context`-token window (Ollama's OpenAI
    API can't set num_ctx per request, and its default silently cuts long prompts). Its
    name, for BIOMD_LLM_MODEL."""
    import httpx

    base, _, tag = model.partition(":")
    name = f"{base}-biomd{context // 1024}k" + (f":{tag}" if tag and tag != "latest" else "")
    body = {"model": name, "from": model, "parameters": {"num_ctx": context}, "stream": False}
    async with httpx.AsyncClient(timeout=120.0) as http:
        r = await http.post(f"{server_root(base_url)}/api/create", json=body)
        r.raise_for_status()
    return name


async def _get(http: Any, url: str) -> Any:
    try:
        r = await http.get(url)
        return r.json() if r.status_code == 200 else None
    except Exception:
        return None


async def _post(http: Any, url: str, body: dict[str, Any]) -> Any:
    try:
        r = await http.post(url, json=body)
        return r.json() if r.status_code == 200 else None
    except Exception:
        return None
