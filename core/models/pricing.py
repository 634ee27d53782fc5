"""What a model's tokens cost, in USD per million: the BIOMD_*_PRICE_* settings when set;
nothing for a model on this machine; else the endpoint's model list where it publishes
prices (OpenRouter's /models gives USD per token); else unknown."""

from __future__ import annotations

import logging

from core.models.context_window import fetch_json
from core.settings import Settings

log = logging.getLogger(__name__)

_known: dict[tuple[str, str], tuple[float, float] | None] = {}


async def prices(settings: Settings) -> tuple[float, float] | None:
    """(prompt, completion) USD per million tokens of the configured model, or None."""
    s = settings
    if s.llm_price_prompt_per_mtok or s.llm_price_completion_per_mtok:
        return s.llm_price_prompt_per_mtok, s.llm_price_completion_per_mtok
    if s.llm_is_local:
        return 0.0, 0.0
    key = (s.llm_base_url, s.llm_model)
    if key not in _known:
        _known[key] = await _listed(s)
    return _known[key]


async def _listed(settings: Settings) -> tuple[float, float] | None:
    import httpx

    headers = {"Authorization": f"Bearer {settings.llm_api_key}"} if settings.llm_api_key else {}
    try:
        async with httpx.AsyncClient(timeout=5.0, headers=headers) as http:
            listed = await fetch_json(http, f"{settings.llm_base_url.rstrip('/')}/models")
    except Exception as exc:  # an estimate without a price is still an estimate
        log.info("could not ask the endpoint for prices: %s", exc)
        return None
    for entry in (listed or {}).get("data", []) if isinstance(listed, dict) else []:
        if isinstance(entry, dict) and entry.get("id") == settings.llm_model:
            pricing = entry.get("pricing")
            if isinstance(pricing, dict):
                try:
                    return float(pricing["prompt"]) * 1e6, float(pricing["completion"]) * 1e6
                except (KeyError, TypeError, ValueError):
                    return None
    return None
