"""Text embeddings: the `Embedder` protocol and its fastembed implementation."""

from __future__ import annotations

import logging
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt

from biomd.errors import EmbeddingError, EmbeddingWaits
from biomd.retrieval.quantise import int8_copy
from biomd.storage.database import ensure_private_dir
from biomd.storage.downloads import (
    cached,
    failed_lately,
    forget_download_failed,
    hub_hosts,
    no_network,
    note_download_failed,
)

log = logging.getLogger(__name__)

Matrix = npt.NDArray[np.float32]

_SEARCH_PREFIX = "Represent this sentence for searching relevant passages: "

# fastembed does not add the prefixes these models were trained with; we do.
QUERY_PREFIXES: dict[str, str] = {
    "snowflake/snowflake-arctic-embed-xs": _SEARCH_PREFIX,
    "snowflake/snowflake-arctic-embed-s": _SEARCH_PREFIX,
    "snowflake/snowflake-arctic-embed-m": _SEARCH_PREFIX,
    "snowflake/snowflake-arctic-embed-m-long": _SEARCH_PREFIX,
    "snowflake/snowflake-arctic-embed-l": _SEARCH_PREFIX,
    "BAAI/bge-small-en-v1.5": _SEARCH_PREFIX,
    "BAAI/bge-base-en-v1.5": _SEARCH_PREFIX,
    "BAAI/bge-large-en-v1.5": _SEARCH_PREFIX,
    "nomic-ai/nomic-embed-text-v1.5": "search_query: ",
    "intfloat/multilingual-e5-large": "query: ",
}
PASSAGE_PREFIXES: dict[str, str] = {
    "nomic-ai/nomic-embed-text-v1.5": "search_document: ",
    "intfloat/multilingual-e5-large": "passage: ",
}


class Embedder(Protocol):
    """Turns text into L2-normalised float32 vectors of a fixed dimension."""

    name: str
    dim: int

    def embed_passages(self, texts: Sequence[str]) -> Matrix: ...

    def embed_query(self, text: str) -> Matrix: ...


def normalise(vectors: Matrix) -> Matrix:
    norms = np.linalg.norm(vectors, axis=-1, keepdims=True)
    out: Matrix = (vectors / np.maximum(norms, 1e-12)).astype(np.float32, copy=False)
    return out


def model_dimension(name: str) -> int:
    """The output dimension fastembed lists for a model; a clear error for unknown names."""
    from fastembed import TextEmbedding

    for entry in TextEmbedding.list_supported_models():
        if entry["model"].lower() == name.lower():
            return int(entry["dim"])
    raise EmbeddingError(
        f"The embedding model '{name}' is not one fastembed knows. Set BIOMD_EMBED_MODEL to a "
        "supported name, such as snowflake/snowflake-arctic-embed-s."
    )


class FastEmbedder:
    """fastembed on the CPU. The model loads on first use, once, from a thread-safe path."""

    def __init__(
        self,
        name: str,
        *,
        model_path: Path | None = None,
        cache_dir: Path | None = None,
        threads: int | None = None,
        batch_size: int = 32,
        int8_cache: Path | None = None,
    ) -> None:
        self.name = name
        self._int8_cache = int8_cache  # where int8 copies are kept; None: the model as it is
        self.dim = model_dimension(name)
        self._model_path = model_path
        self._cache_dir = cache_dir
        self._threads = threads
        self._batch_size = batch_size
        self._model: Any = None
        self._lock = threading.Lock()
        self._query_prefix = QUERY_PREFIXES.get(name, "")
        self._passage_prefix = PASSAGE_PREFIXES.get(name, "")

    def _load(self) -> Any:
        with self._lock:
            if self._model is None:
                self._model = self._build()
            return self._model

    def _build(self) -> Any:
        from fastembed import TextEmbedding

        kwargs: dict[str, Any] = {"threads": self._threads}
        if self._cache_dir is not None and self._model_path is None:
            ensure_private_dir(self._cache_dir)  # the data dir's models/: private
            kwargs["cache_dir"] = str(self._cache_dir)
        if self._model_path is not None:
            if not self._model_path.is_dir():
                raise EmbeddingError(
                    f"BIOMD_EMBED_MODEL_PATH is {self._model_path}, which is not a folder."
                )
            kwargs["specific_model_path"] = str(self._model_path)
        _quiet_fastembed_logs()
        marker = None
        if self._model_path is None and self._cache_dir is not None:
            marker = ready_marker(self.name, self._cache_dir)
        first = marker is not None and not marker.exists()
        failed = None
        if first and self._cache_dir is not None:
            failed = download_failed(self.name, self._cache_dir)
        if failed:
            raise EmbeddingWaits(failed)
        if first and self._cache_dir is not None and not cached(self.name, self._cache_dir):
            offline = no_network(hub_hosts())
            if offline:  # found out at once, not after a minute of the download's retries
                note_download_failed(self.name, self._cache_dir, offline)
                raise EmbeddingError(_not_loaded(self.name, "(it downloads once)", offline))
        if first:
            log.warning(
                "Downloading the embedding model %s (%s), once. It is kept in %s.",
                self.name,
                download_size(self.name),
                self._cache_dir,
            )
        try:
            if self._int8_cache is not None:
                quick = self._load_int8(kwargs)
                if quick is not None:
                    if first and marker is not None:
                        marker.touch()
                        forget_download_failed(self.name, marker.parent)
                    return quick
            model = TextEmbedding(self.name, **kwargs)
            if first and marker is not None:
                marker.touch()
                forget_download_failed(self.name, marker.parent)
            return model
        except Exception as exc:
            where = (
                f"from {self._model_path}"
                if self._model_path
                else "(it downloads once, on first use)"
            )
            message = _not_loaded(self.name, where, str(exc).rstrip("."))
            if first and self._cache_dir is not None:
                note_download_failed(self.name, self._cache_dir, str(exc).rstrip(".")[:200])
            raise EmbeddingError(message) from exc

    def _load_int8(self, kwargs: dict[str, Any]) -> Any:
        """The model from its int8 copy (made once, beside the download), or None to load it
        as it is: the copy could not be made, or the model is quantised already."""
        from fastembed import TextEmbedding

        assert self._int8_cache is not None
        source = self._model_path
        if source is None:  # download it (once) without loading it, to find its folder
            lazy = TextEmbedding(self.name, **kwargs, lazy_load=True)
            source = lazy.model._model_dir  # type: ignore[attr-defined]  # the download
        try:
            folder = int8_copy(self.name, Path(source), model_file(self.name), self._int8_cache)
            if folder == Path(source):
                return None
            return TextEmbedding(self.name, threads=self._threads, specific_model_path=str(folder))
        except Exception as exc:  # the model as it is still works, only slower
            log.warning("The embedding model is used without int8 quantisation: %s", exc)
            return None

    def embed_passages(self, texts: Sequence[str]) -> Matrix:
        model = self._load()
        inputs = [self._passage_prefix + t for t in texts] if self._passage_prefix else list(texts)
        if not inputs:
            return np.zeros((0, self.dim), dtype=np.float32)
        rows = list(model.embed(inputs, batch_size=self._batch_size))
        return normalise(np.asarray(rows, dtype=np.float32))

    def embed_query(self, text: str) -> Matrix:
        model = self._load()
        rows = list(model.embed([self._query_prefix + text], batch_size=1))
        return normalise(np.asarray(rows[0], dtype=np.float32))


def model_file(name: str) -> str:
    """The ONNX file's path inside the model's folder, as fastembed lists it."""
    from fastembed import TextEmbedding

    for m in TextEmbedding.list_supported_models():
        if m["model"].lower() == name.lower():
            return str(m.get("model_file") or "model.onnx")
    return "model.onnx"


def download_size(name: str) -> str:
    """The model's download size as fastembed lists it, e.g. "130 MB"."""
    from fastembed import TextEmbedding

    for m in TextEmbedding.list_supported_models():
        if m["model"].lower() == name.lower():
            return f"{float(m.get('size_in_GB', 0)) * 1000:,.0f} MB"
    return "size unknown"


def ready_marker(name: str, cache_dir: Path) -> Path:
    """The file biomd leaves once `name` has loaded from `cache_dir` (downloaded)."""
    return cache_dir / f".ready-{name.replace('/', '--')}"


def model_downloaded(name: str, cache_dir: Path) -> bool:
    """Whether biomd has loaded `name` from `cache_dir` before (no download needed)."""
    return ready_marker(name, cache_dir).exists()


def download_failed(name: str, cache_dir: Path, now: float | None = None) -> str | None:
    """Why downloading the embedding model `name` failed, if it failed within
    RETRY_DOWNLOAD_AFTER_S; said as a reason not to try again yet."""
    failed = failed_lately(name, cache_dir, now)
    if failed is None:
        return None
    return (
        f"Vectors wait: the embedding model could not be downloaded at {failed.at}, and is not "
        f"tried again for {failed.hours} hours unless you run `biomd embed`. "
        f"Sources are keyword-searchable meanwhile. Without network access, put the model "
        f"files in a folder and set BIOMD_EMBED_MODEL_PATH. (It failed with: {failed.why}.)"
    )


def _not_loaded(name: str, where: str, why: str) -> str:
    return (
        f"The embedding model {name} could not be loaded {where}: {why}. Sources are kept and "
        "keyword-searchable; vectors wait. Without network access, put the model files in a "
        "folder and set BIOMD_EMBED_MODEL_PATH; or connect and run `biomd embed`."
    )


def _quiet_fastembed_logs() -> None:
    """fastembed logs each failed download attempt through loguru; our error says it once."""
    try:
        from loguru import logger
    except ImportError:  # pragma: no cover - older fastembed logs through `logging`
        return
    logger.disable("fastembed")


def to_blob(vector: Matrix) -> bytes:
    """Little-endian float32 bytes."""
    return np.asarray(vector, dtype="<f4").tobytes()


def from_blobs(blobs: Sequence[bytes], dim: int) -> Matrix:
    flat = np.frombuffer(b"".join(blobs), dtype="<f4").astype(np.float32, copy=False)
    return flat.reshape(len(blobs), dim)
