"""Speech to text with faster-whisper, locally. Long audio is decoded and transcribed in
windows, so hours of sound never sit in memory at once."""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from biomd.errors import CorruptSource, SpeechModelError
from biomd.ingest.convert.context import Segment
from biomd.storage.database import ensure_private_dir
from biomd.storage.downloads import (
    forget_download_failed,
    hub_hosts,
    no_network,
    note_download_failed,
)

log = logging.getLogger(__name__)

# download sizes of faster-whisper's converted models, for the first-run message
MODEL_MB = {"tiny": 75, "base": 145, "small": 484, "medium": 1530, "large-v3": 3090}
_FILES = ["config.json", "preprocessor_config.json", "model.bin", "tokenizer.json", "vocabulary.*"]

SAMPLE_RATE = 16_000
WINDOW_SECONDS = 600
PROMPT_TOKENS = 200  # Whisper keeps at most 223 prompt tokens; leave room for the text before


def decode_windows(
    path: Path, name: str, window_seconds: int = WINDOW_SECONDS
) -> Iterator[tuple[float, npt.NDArray[np.float32]]]:
    """(offset in seconds, 16 kHz mono float32 samples) for each window of the audio track."""
    import av

    try:
        container = av.open(str(path))
    except (av.error.FFmpegError, OSError, ValueError) as exc:
        raise CorruptSource(f"{name}: not audio or video that can be decoded ({exc}).") from exc
    with container:
        streams = [s for s in container.streams if s.type == "audio"]
        if not streams:
            raise CorruptSource(f"{name}: has no audio track.")
        resampler = av.AudioResampler(format="s16", layout="mono", rate=SAMPLE_RATE)
        window = window_seconds * SAMPLE_RATE
        parts: list[npt.NDArray[np.int16]] = []
        held, offset = 0, 0.0
        try:
            for frame in container.decode(streams[0]):
                for out in resampler.resample(frame):  # type: ignore[arg-type]
                    samples = out.to_ndarray().reshape(-1).astype(np.int16, copy=False)
                    parts.append(samples)
                    held += len(samples)
                    if held >= window:
                        audio = np.concatenate(parts)
                        yield offset, audio[:window].astype(np.float32) / 32768.0
                        parts, held = [audio[window:]], len(audio) - window
                        offset += window_seconds
            for out in resampler.resample(None):
                parts.append(out.to_ndarray().reshape(-1).astype(np.int16, copy=False))
        except av.error.FFmpegError as exc:
            raise CorruptSource(f"{name}: the audio is damaged ({exc}).") from exc
        rest = np.concatenate(parts) if parts else np.zeros(0, dtype=np.int16)
        if offset == 0 and len(rest) == 0:
            raise CorruptSource(f"{name}: the recording is empty (0 seconds of sound).")
        if len(rest):
            yield offset, rest.astype(np.float32) / 32768.0


def _not_loaded(model: str, why: str) -> str:
    return (
        f"The speech model {model} could not be loaded: {why}. Without network access, set "
        "BIOMD_WHISPER_MODEL to a local folder."
    )


def _offline(exc: BaseException) -> bool:
    """Whether loading failed because the model is not here and the hub cannot be reached."""
    from huggingface_hub.errors import LocalEntryNotFoundError

    return isinstance(exc, LocalEntryNotFoundError | OSError | ConnectionError) or (
        "internet connection" in str(exc)
    )


def likeliest(probabilities: Sequence[tuple[str, float]], likely: Sequence[str]) -> str | None:
    """The owner's language Whisper hears most in a note's first window, so the whole note
    is heard in it (Whisper alone guesses afresh for every 30 s, and among 99 languages)."""
    ours = [(p, lang) for lang, p in probabilities if lang in likely]
    return max(ours)[1] if ours else None


class WhisperTranscriber:
    """faster-whisper with VAD; int8 on the CPU. The model loads on first use."""

    def __init__(
        self,
        model: str,
        *,
        device: str = "auto",
        compute_type: str = "auto",
        cache_dir: Path | None = None,
        window_seconds: int = WINDOW_SECONDS,
        language: str = "",
        likely: Sequence[str] = (),
    ) -> None:
        self.model_name = model
        self.language = language  # always this language (ISO 639-1), if set
        self.likely = tuple(likely)  # else the owner's languages: a note is heard in one
        self._device = device
        self._compute_type = compute_type
        self._cache_dir = cache_dir
        self._window = window_seconds
        self._model: Any = None
        self._lock = threading.Lock()

    def _load(self) -> Any:
        with self._lock:
            if self._model is None:
                from faster_whisper import WhisperModel

                device = self._device
                compute = self._compute_type
                if compute == "auto":
                    compute = "int8" if device in ("auto", "cpu") else "default"
                if self._cache_dir is not None:
                    ensure_private_dir(self._cache_dir)  # the data dir's models/: private
                try:
                    self._model = WhisperModel(
                        self._fetch(),
                        device=device,
                        compute_type=compute,
                        download_root=str(self._cache_dir) if self._cache_dir else None,
                    )
                except SpeechModelError:
                    raise
                except Exception as exc:
                    why = "it could not be downloaded" if _offline(exc) else str(exc).rstrip(".")
                    if _offline(exc) and self._cache_dir is not None:
                        note_download_failed(self.model_name, self._cache_dir, why)
                    raise SpeechModelError(_not_loaded(self.model_name, why)) from exc
            return self._model

    def _fetch(self) -> str:
        """A model name becomes a local folder, downloaded (with a progress bar and a word
        about its size) the first time; a folder, or a name we cannot map, is left as is."""
        from faster_whisper import utils

        repo = getattr(utils, "_MODELS", {}).get(self.model_name)
        if repo is None or Path(self.model_name).is_dir():
            return self.model_name
        from huggingface_hub import snapshot_download

        cache = str(self._cache_dir) if self._cache_dir else None
        try:
            return str(
                snapshot_download(
                    repo, cache_dir=cache, allow_patterns=_FILES, local_files_only=True
                )
            )
        except Exception:  # not downloaded yet
            offline = no_network(hub_hosts())
            if offline:  # found out at once, not after a minute of the download's retries
                if self._cache_dir is not None:
                    note_download_failed(self.model_name, self._cache_dir, offline)
                raise SpeechModelError(_not_loaded(self.model_name, offline)) from None
            size = MODEL_MB.get(self.model_name.removesuffix(".en"))
            log.warning(
                "Downloading the speech model %s (%s), once. It is kept in %s.",
                self.model_name,
                f"{size} MB" if size else "size unknown",
                cache or "~/.cache",
            )
        from huggingface_hub.utils.tqdm import enable_progress_bars

        enable_progress_bars()  # fastembed may have turned them off for its own cache checks
        folder = str(snapshot_download(repo, cache_dir=cache, allow_patterns=_FILES))
        if self._cache_dir is not None:
            forget_download_failed(self.model_name, self._cache_dir)
        return folder

    def count_tokens(self, text: str) -> int:
        return len(self._load().hf_tokenizer.encode(text).ids)

    def transcribe(self, path: Path, prompt: str = "", name: str = "") -> Iterator[Segment]:
        model = self._load()
        language: str | None = self.language or None
        for offset, audio in decode_windows(path, name or path.name, self._window):
            if language is None and self.likely and model.model.is_multilingual:
                language = likeliest(model.detect_language(audio)[2], self.likely)
            segments, _ = model.transcribe(
                audio,
                vad_filter=True,
                initial_prompt=prompt or None,
                beam_size=5,
                language=language,
            )
            for s in segments:
                text = s.text.strip()
                if text:
                    yield Segment(offset + s.start, offset + s.end, text)
