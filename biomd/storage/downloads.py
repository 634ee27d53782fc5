"""A model downloaded once: whether there is any network to download it over (found out in
a second or two, not after a download's minute of retries), and a failed download
remembered, so it is not tried again for a while unless the owner asks."""

from __future__ import annotations

import contextlib
import os
import socket
import time
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

RETRY_DOWNLOAD_AFTER_S = 6 * 3600
"""How long a failed download of a model is not tried again, unless asked (`biomd embed`):
without network each try costs a start or an ingest some 40 seconds."""
PROBE_S = 2.0  # the most a look for the network takes, per host
PROXIES = ("HTTPS_PROXY", "https_proxy", "ALL_PROXY", "all_proxy")


@dataclass(frozen=True, slots=True)
class Failure:
    """A download that failed lately: when (HH:MM) and why."""

    at: str
    why: str
    hours: int = RETRY_DOWNLOAD_AFTER_S // 3600


def _failed_marker(name: str, cache_dir: Path) -> Path:
    return cache_dir / f".unreachable-{name.replace('/', '--')}"


def note_download_failed(name: str, cache_dir: Path, cause: str) -> None:
    """Remember that downloading `name` failed just now, and why."""
    with contextlib.suppress(OSError):
        _failed_marker(name, cache_dir).write_text(cause, encoding="utf-8")


def failed_lately(name: str, cache_dir: Path, now: float | None = None) -> Failure | None:
    """The failure of a download of `name` within RETRY_DOWNLOAD_AFTER_S, if there was one."""
    marker = _failed_marker(name, cache_dir)
    try:
        at = marker.stat().st_mtime
        why = marker.read_text(encoding="utf-8")
    except OSError:
        return None
    if (now if now is not None else time.time()) - at > RETRY_DOWNLOAD_AFTER_S:
        return None
    return Failure(datetime.fromtimestamp(at).strftime("%H:%M"), why)


def forget_download_failed(name: str, cache_dir: Path) -> None:
    """The model loaded: a failure before no longer counts."""
    _failed_marker(name, cache_dir).unlink(missing_ok=True)


def hub_hosts() -> tuple[tuple[str, int], ...]:
    """Where models are downloaded from: the Hugging Face hub (or the mirror HF_ENDPOINT
    names), and Google's storage, fastembed's other source."""
    endpoint = os.environ.get("HF_ENDPOINT", "").strip()
    hub, port = "huggingface.co", 443
    if endpoint:
        where = endpoint.split("//", 1)[-1].split("/", 1)[0]
        hub, _, given = where.partition(":")
        port = int(given) if given.isdigit() else 80 if endpoint.startswith("http:") else 443
    return ((hub, port), ("storage.googleapis.com", 443))


def cached(name: str, cache_dir: Path) -> bool:
    """Whether a download of `name` seems to be in `cache_dir` already (then no network is
    needed to load it)."""
    tail = name.split("/")[-1].lower()
    with contextlib.suppress(OSError):
        return any(tail in p.name.lower() for p in cache_dir.iterdir() if p.is_dir())
    return False


def no_network(hosts: tuple[tuple[str, int], ...], timeout: float = PROBE_S) -> str | None:
    """Why none of `hosts` (host, port) can be reached from here, in a few seconds at most;
    None when one can, or when a proxy is set (then only the download itself can tell)."""
    if any(os.environ.get(p) for p in PROXIES):
        return None
    reasons = []
    for host, port in hosts:
        try:
            with socket.create_connection((host, port), timeout=timeout):
                return None
        except OSError as exc:
            reasons.append(f"{host}: {exc.strerror or exc.__class__.__name__}")
    return "no network: " + "; ".join(reasons)
