"""How many tokens the model can see at once. BIOMD_LLM_CONTEXT_TOKENS when set; else asked
of the server: OpenRouter's and vLLM's model lists, llama.cpp's /props, Ollama's /api/ps and
/api/show (Ollama runs a model at its `num_ctx`, 4,096 tokens unless the model sets more,
and silently cuts longer prompts); else the default for where the model runs
(biomd.endpoints: LOCAL, CLOUD)."""

from __future__ import annotations

import logging
import re
from typing import Any

from biomd.endpoints import Endpoint

log = logging.getLogger(__name__)

OLLAMA_DEFAULT = 4096


def server_root(base_url: str) -> str:
    """The server's address without the OpenAI API's /v1."""
    return re.sub(r"/v1/?$", "", base_url.rstrip("/"))


async def context_tokens(ep: Endpoint) -> int:
    if ep.context_tokens:
        return ep.context_tokens
    try:
        found = await _ask(ep)
    except Exception as exc:  # any server, any answer: a wrong guess must not stop a turn
        log.info("could not ask the endpoint for the context window: %s", exc)
        found = None
    if found:
        return found
    return ep.defaults.context_tokens


async def _ask(ep: Endpoint) -> int | None:
    import httpx

    root = server_root(ep.base_url)
    model = ep.model
    headers = {"Authorization": f"Bearer {ep.api_key}"} if ep.api_key else {}
    async with httpx.AsyncClient(timeout=5.0, headers=headers) as http:
        if await _ok(http, f"{root}/api/version"):
            return await _ollama(http, root, model)
        listed = await fetch_json(http, f"{ep.base_url.rstrip('/')}/models")
        for entry in (listed or {}).get("data", []) if isinstance(listed, dict) else []:
            if isinstance(entry, dict) and entry.get("id") == model:
                for key in ("context_length", "max_model_len", "context_window"):
                    if isinstance(entry.get(key), int):
                        return int(entry[key])
                meta = entry.get("meta")
                if isinstance(meta, dict) and isinstance(meta.get("n_ctx_train"), int):
                    break  # llama.cpp lists the trained size; /props has the real one
        props = await fetch_json(http, f"{root}/props")
        if isinstance(props, dict):
            n = (props.get("default_generation_settings") or {}).get("n_ctx")
            if isinstance(n, int) and n > 0:
                return n
    return None


async def server_tokens(ep: Endpoint, text: str) -> int | None:
    """How many tokens `text` is for the server's model, by its own tokenizer (llama.cpp's
    /tokenize); None where the server has no such endpoint."""
    import httpx

    root = server_root(ep.base_url)
    async with httpx.AsyncClient(timeout=30.0) as http:
        found = await fetch_json(http, f"{root}/tokenize", {"content": text})
    tokens = found.get("tokens") if isinstance(found, dict) else None
    return len(tokens) if isinstance(tokens, list) else None


async def _ollama(http: Any, root: str, model: str) -> int:
    running = await fetch_json(http, f"{root}/api/ps")
    for m in (running or {}).get("models", []) if isinstance(running, dict) else []:
        if m.get("name") in (model, f"{model}:latest") and isinstance(m.get("context_length"), int):
            return int(m["context_length"])
    shown = await fetch_json(http, f"{root}/api/show", {"model": model})
    if isinstance(shown, dict):
        params = str(shown.get("parameters") or "")
        if m := re.search(r"^num_ctx\s+(\d+)", params, re.M):
            return int(m.group(1))
    return OLLAMA_DEFAULT


async def _ok(http: Any, url: str) -> bool:
    try:
        return bool((await http.get(url)).status_code == 200)
    except Exception:
        return False


async def fetch_json(http: Any, url: str, body: dict[str, Any] | None = None) -> Any:
    try:
        r = await (http.post(url, json=body) if body is not None else http.get(url))
        return r.json() if r.status_code == 200 else None
    except Exception:
        return None
