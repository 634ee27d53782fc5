"""Without network and without the embedding model: no network is found out at once, a
failed download is said once and not tried again for a while (unless the owner asks),
sources are keyword-searchable at once, and search says why it has no vectors.
HF_HUB_OFFLINE makes fastembed fail at once, as it does after its retries on a machine with
no network."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from biomd.app import asking
from biomd.app.engine import Engine
from biomd.errors import EmbeddingError
from biomd.retrieval.embedding import FastEmbedder, download_failed
from biomd.settings import Settings
from biomd.storage.downloads import RETRY_DOWNLOAD_AFTER_S, no_network

MODEL = "BAAI/bge-small-en-v1.5"  # one fastembed lists, and that is not in this cache


@pytest.fixture
def offline(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")


def test_a_failed_download_is_not_tried_again_for_a_while(offline: None, tmp_path: Path) -> None:
    cache = tmp_path / "models"
    with pytest.raises(EmbeddingError, match="could not be loaded") as tried:
        FastEmbedder(MODEL, cache_dir=cache).embed_query("hello")
    assert "BIOMD_EMBED_MODEL_PATH" in tried.value.user_message
    with pytest.raises(EmbeddingError, match="not tried again") as waited:
        FastEmbedder(MODEL, cache_dir=cache).embed_query("hello")  # as the next process would
    assert "`biomd embed`" in waited.value.user_message
    assert download_failed(MODEL, cache, now=time.time() + RETRY_DOWNLOAD_AFTER_S + 1) is None


async def test_offline_sources_are_searchable_and_search_says_why_it_has_no_vectors(
    offline: None, tmp_path: Path
) -> None:
    settings = Settings(
        _env_file=None,  # type: ignore[call-arg]
        data_dir=tmp_path / "data",
        embed_model=MODEL,
        embed_cache_dir=tmp_path / "models",  # never the user's own cache
    )
    note = tmp_path / "walk.md"
    note.write_text("We walked to the lighthouse at Hook Head with Tadhg.")
    async with await Engine.open(settings) as engine:
        (added,) = [r async for r in engine.sources.ingest([note])]
        assert added.status == "added"
        with pytest.raises(EmbeddingError, match="could not be loaded"):
            await engine.sources.embed_pending()
        with pytest.raises(EmbeddingError, match="not tried again"):
            await engine.sources.embed_pending()  # the next ingest: at once, not retried
        with pytest.raises(EmbeddingError, match="could not be loaded"):
            await engine.sources.embed_pending(retry=True)  # `biomd embed`: tried again
        hits = await engine.sources.search("lighthouse", mode="keyword")
        assert [h.document_id for h in hits] == [added.document_id]
        why = await engine.sources.without_vectors()
        assert why is not None and "not tried again" in why
        reply = await asking.ask(engine, "Where did we walk?")
        assert isinstance(reply, str)
        assert "keyword search (there are no vectors yet)" in reply and "hybrid" not in reply


def test_no_network_is_found_out_at_once_and_a_proxy_leaves_it_to_the_download(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    with socket.socket() as listening:
        listening.bind(("127.0.0.1", 0))
        listening.listen()
        port = listening.getsockname()[1]
        assert no_network((("127.0.0.1", port),)) is None
    with socket.socket() as closed:  # a port nobody listens on: refused at once
        closed.bind(("127.0.0.1", 0))
        gone = closed.getsockname()[1]
    why = no_network((("127.0.0.1", gone), ("host.invalid", 443)))
    assert why is not None and why.startswith("no network: 127.0.0.1: ")
    assert "host.invalid" in why
    monkeypatch.setenv("HTTPS_PROXY", "http://127.0.0.1:3128")
    assert no_network((("127.0.0.1", gone),)) is None


def test_an_ingest_says_the_failure_once_and_only_what_is_true(
    offline: None, tmp_path: Path
) -> None:
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("BIOMD_")},
        "BIOMD_DATA_DIR": str(tmp_path / "data"),
        "BIOMD_CONFIG_DIR": str(tmp_path / "config"),
        "BIOMD_EMBED_MODEL": MODEL,
        "BIOMD_EMBED_CACHE_DIR": str(tmp_path / "models"),
        "HF_HUB_OFFLINE": "1",
    }
    note = tmp_path / "walk.md"
    note.write_text("We walked to the lighthouse at Hook Head with Tadhg.")
    biomd = [str(Path(sys.executable).with_name("biomd")), "ingest", "--no-read", str(note)]

    def ingest() -> str:
        done = subprocess.run(biomd, env=env, capture_output=True, text=True, timeout=120)
        return done.stdout + done.stderr

    first, again = ingest(), ingest()
    assert "1 added. Everything added is keyword-searchable now." in first
    assert "could not be loaded" in first
    assert "1 duplicate." in again and "added" not in again.split("duplicate", 1)[1]
    assert "keyword-searchable now" not in again and "could not be loaded" not in again
    assert "Vectors wait for the embedding model (`biomd doctor` says why)." in again
