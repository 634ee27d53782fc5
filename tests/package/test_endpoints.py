"""The settings in groups: each model endpoint as one value (the biographer's, the reader's,
the vision model's) with the local-versus-cloud defaults filled in."""

from __future__ import annotations

from typing import Any

from biomd.endpoints import CLOUD, LOCAL, Endpoint
from biomd.settings import Settings

CLOUD_URL = "https://openrouter.ai/api/v1"
LOCAL_URL = "http://localhost:8080/v1"


def settings(**values: Any) -> Settings:
    return Settings(_env_file=None, **values)


def defaults_of(e: Endpoint) -> tuple[float, float, int, bool]:
    return e.call_timeout, e.turn_timeout, e.retries, e.stream


def test_a_cloud_endpoint_gets_the_cloud_defaults_and_needs_a_key() -> None:
    e = settings(llm_base_url=CLOUD_URL, llm_model="m").endpoint()
    assert defaults_of(e) == (120.0, 900.0, 4, False)
    assert defaults_of(e) == (CLOUD.call_timeout, CLOUD.turn_timeout, CLOUD.retries, CLOUD.stream)
    assert not e.is_local and not e.configured
    assert e.defaults is CLOUD and CLOUD.context_tokens == 128_000
    assert settings(llm_base_url=CLOUD_URL, llm_api_key="sk-1").endpoint().configured


def test_a_local_endpoint_gets_the_local_defaults_and_needs_no_key() -> None:
    e = settings(llm_base_url=LOCAL_URL).endpoint()
    assert defaults_of(e) == (900.0, 3600.0, 1, True)
    assert defaults_of(e) == (LOCAL.call_timeout, LOCAL.turn_timeout, LOCAL.retries, LOCAL.stream)
    assert e.is_local and e.configured
    assert e.defaults is LOCAL and LOCAL.context_tokens == 8192
    for url in ("http://ollama.lan:11434/v1", "http://box.local/v1", "http://[::1]:8080/v1"):
        assert Endpoint.at(url, "m").is_local, url


def test_what_is_set_wins_over_the_defaults_even_zero_and_off() -> None:
    chosen = {"llm_timeout": 30, "llm_turn_timeout": 60, "llm_max_retries": 0, "llm_stream": False}
    local = settings(llm_base_url=LOCAL_URL, **chosen)
    for e in (local.endpoint(), local.reader_endpoint()):
        assert defaults_of(e) == (30.0, 60.0, 0, False)
    cloud = settings(llm_base_url=CLOUD_URL, llm_stream=True, llm_max_retries=7).endpoint()
    assert defaults_of(cloud) == (120.0, 900.0, 7, True)


def test_the_biographers_endpoint_is_its_settings() -> None:
    e = settings(
        llm_base_url=CLOUD_URL,
        llm_api_key="sk-1",
        llm_model="a/b",
        llm_context_tokens=32_000,
        llm_max_tokens=2048,
        llm_price_prompt_per_mtok=1.0,
        llm_price_completion_per_mtok=4.0,
    ).endpoint()
    assert (e.base_url, e.api_key, e.model, e.context_tokens, e.max_tokens) == (
        CLOUD_URL,
        "sk-1",
        "a/b",
        32_000,
        2048,
    )
    assert e.priced and e.usd(1_000_000, 500_000) == 3.0
    assert "sk-1" not in repr(e), "the key stays out of logs"


BIOGRAPHER: dict[str, Any] = {
    "llm_base_url": CLOUD_URL,
    "llm_api_key": "sk-bio",
    "llm_model": "big/model",
    "llm_context_tokens": 64_000,
    "llm_price_prompt_per_mtok": 2.0,
    "llm_price_completion_per_mtok": 8.0,
}


def test_a_reader_set_to_nothing_is_the_biographers_model_with_its_window_and_prices() -> None:
    s = settings(**BIOGRAPHER, reader_max_tokens=3000)
    r = s.reader_endpoint()
    b = s.endpoint()
    assert (r.base_url, r.api_key, r.model, r.context_tokens) == (
        b.base_url,
        b.api_key,
        b.model,
        b.context_tokens,
    )
    assert (r.price_prompt_per_mtok, r.price_completion_per_mtok) == (2.0, 8.0)
    assert r.max_tokens == 3000, "the reader's longest reply"
    named = settings(
        **BIOGRAPHER, reader_model="big/model", reader_base_url=CLOUD_URL, reader_max_tokens=3000
    )
    assert named.reader_endpoint() == r, "the same model and endpoint, named again"


def test_another_model_on_the_same_endpoint_keeps_the_key_but_not_the_window_or_prices() -> None:
    r = settings(**BIOGRAPHER, reader_model="small/model").reader_endpoint()
    assert (r.base_url, r.api_key, r.model) == (CLOUD_URL, "sk-bio", "small/model")
    assert r.context_tokens is None, "asked of the server"
    assert (r.price_prompt_per_mtok, r.price_completion_per_mtok) == (0.0, 0.0)
    assert defaults_of(r) == defaults_of(settings(**BIOGRAPHER).endpoint())


def test_a_reader_endpoint_of_its_own_has_its_own_key_and_defaults() -> None:
    s = settings(**BIOGRAPHER, reader_base_url=LOCAL_URL, reader_api_key="sk-reader")
    r = s.reader_endpoint()
    assert (r.base_url, r.api_key, r.model) == (LOCAL_URL, "sk-reader", "big/model")
    assert r.context_tokens is None and not r.priced, "another server: nothing carries over"
    assert r.is_local and s.reader_is_local and not s.llm_is_local
    assert defaults_of(r) == (900.0, 3600.0, 1, True), "the defaults of where it runs"
    assert settings(**BIOGRAPHER, reader_base_url=LOCAL_URL).reader_endpoint().api_key is None


def test_the_readers_own_window_and_prices_win_even_a_price_of_zero() -> None:
    r = settings(
        **BIOGRAPHER,
        reader_context_tokens=16_000,
        reader_price_prompt_per_mtok=0.0,
        reader_price_completion_per_mtok=0.5,
    ).reader_endpoint()
    assert r.context_tokens == 16_000
    assert (r.price_prompt_per_mtok, r.price_completion_per_mtok) == (0.0, 0.5)


def test_the_vision_endpoint_is_the_biographers_with_the_vision_model() -> None:
    assert settings(**BIOGRAPHER).vision_endpoint() is None
    s = settings(**BIOGRAPHER, vision_model="eyes/model")
    v = s.vision_endpoint()
    assert v is not None and v.model == "eyes/model"
    assert _fields(v) == {**_fields(s.endpoint()), "model": "eyes/model"}


def _fields(e: Endpoint) -> dict[str, Any]:
    return {name: getattr(e, name) for name in e.__dataclass_fields__}
