"""What a model's tokens cost, in USD per million: the BIOMD_*_PRICE_* settings when set;
nothing for a model on this machine; else the endpoint's model list where it publishes
prices (OpenRouter's /models gives USD per token); else unknown."""

from __future__ import annotations

import logging

from biomd.endpoints import Endpoint
from biomd.models.context_window import fetch_json

log = logging.getLogger(__name__)

_known: dict[tuple[str, str], tuple[float, float] | None] = {}


async def prices(ep: Endpoint) -> tuple[float, float] | None:
    """(prompt, completion) USD per million tokens of the endpoint's model, or None."""
    if ep.priced:
        return ep.price_prompt_per_mtok, ep.price_completion_per_mtok
    if ep.is_local:
        return 0.0, 0.0
    key = (ep.base_url, ep.model)
    if key not in _known:
        _known[key] = await _listed(ep)
    return _known[key]


async def _listed(ep: Endpoint) -> tuple[float, float] | None:
    import httpx

    headers = {"Authorization": f"Bearer {ep.api_key}"} if ep.api_key else {}
    try:
        async with httpx.AsyncClient(timeout=5.0, headers=headers) as http:
            listed = await fetch_json(http, f"{ep.base_url.rstrip('/')}/models")
    except Exception as exc:  # an estimate without a price is still an estimate
        log.info("could not ask the endpoint for prices: %s", exc)
        return None
    for entry in (listed or {}).get("data", []) if isinstance(listed, dict) else []:
        if isinstance(entry, dict) and entry.get("id") == ep.model:
            pricing = entry.get("pricing")
            if isinstance(pricing, dict):
                try:
                    return float(pricing["prompt"]) * 1e6, float(pricing["completion"]) * 1e6
                except (KeyError, TypeError, ValueError):
                    return None
    return None
