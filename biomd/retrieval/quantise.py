"""An int8 copy of an embedding model's ONNX file (dynamic quantisation), made once.

The copy is a folder laid out like the model's own (the tokenizer files beside it), so
fastembed loads it with `specific_model_path`. It is built in a temporary folder and renamed
into place last: a crash midway leaves no half-written model, and the next start redoes it.
"""

from __future__ import annotations

import hashlib
import logging
import os
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

from biomd.storage.atomic import fsync_dir
from biomd.storage.database import ensure_private_dir

log = logging.getLogger(__name__)

_QUANTISED_OPS = {
    "DynamicQuantizeLinear",
    "MatMulInteger",
    "QLinearMatMul",
    "QuantizeLinear",
    "DequantizeLinear",
    "DynamicQuantizeMatMul",
}
# Measured on MiniLM over chat chunks (bench/RESULTS.md, "Time to searchable by meaning"):
# per-tensor weights left the vectors at cosine 0.947 of fp32's, per-channel at 0.993. Two
# parts stay fp32: each feed-forward down-projection (its input, after GELU, has the widest
# range) and the token embedding table (as int8 it cost the pooled LoCoMo vector R@5c 0.011,
# and saved only disk space). Then cosine 0.997 and R@5c within 0.001. A 7-bit range (reduce_range)
# avoids the int8 overflow of CPUs without VNNI. The recipe is part of the copy's name, so
# a changed one makes a new copy.
_RECIPE = "dynamic-qint8-matmul-per-channel-reduce-range-fp32-down-projections"
_STALE_SECONDS = 3600  # a temporary folder this old was left by a crash, not a busy neighbour


def copy_name(name: str, onnx_file: Path) -> str:
    """The folder name of `onnx_file`'s int8 copy: a new model file gets a new copy."""
    st = onnx_file.stat()
    key = f"{onnx_file.resolve()}|{st.st_size}|{st.st_mtime_ns}|{_RECIPE}".encode()
    return f"{name.replace('/', '--')}-int8-{hashlib.sha256(key).hexdigest()[:12]}"


def is_quantised(onnx_file: Path) -> bool:
    """Whether the graph already holds int8 weights or quantised operators."""
    import onnx

    model = onnx.load(str(onnx_file), load_external_data=False)
    small = {onnx.TensorProto.INT8, onnx.TensorProto.UINT8}
    return any(n.op_type in _QUANTISED_OPS for n in model.graph.node) or any(
        t.data_type in small for t in model.graph.initializer
    )


def int8_copy(name: str, source: Path, model_file: str, cache: Path) -> Path:
    """The folder of `source`'s int8 copy under `cache`, made now if needed; `source` itself
    when its model is quantised already. Slow the first time: call it from a thread."""
    onnx_file = source / model_file
    target = cache / copy_name(name, onnx_file)
    if (target / model_file).is_file():
        return target
    if is_quantised(onnx_file):
        return source
    ensure_private_dir(cache)
    _remove_stale(cache, target.name)
    log.warning("Making an int8 copy of the embedding model %s, once, in %s.", name, cache)
    started = time.monotonic()
    work = Path(tempfile.mkdtemp(dir=cache, prefix=f".tmp-{target.name}-"))
    try:
        _build(source, model_file, work)
        try:
            work.rename(target)
        except OSError:  # another process finished the same copy first
            if not (target / model_file).is_file():
                raise
            shutil.rmtree(work, ignore_errors=True)
    except BaseException:
        shutil.rmtree(work, ignore_errors=True)
        raise
    fsync_dir(cache)
    log.warning("The int8 copy took %.0f s.", time.monotonic() - started)
    return target


def _build(source: Path, model_file: str, work: Path) -> None:
    """Quantise `model_file` into `work`, with the small files it is loaded with beside it."""
    import onnx
    from onnxruntime.quantization import QuantType, quantize_dynamic

    for f in source.iterdir():
        if f.is_file() and f.suffix in {".json", ".txt", ".model"}:  # tokenizer and config
            shutil.copyfile(f, work / f.name)
    out = work / model_file
    out.parent.mkdir(parents=True, exist_ok=True)
    model = onnx.load(str(source / model_file))
    quantize_dynamic(
        model,
        out,
        weight_type=QuantType.QInt8,
        per_channel=True,
        reduce_range=True,
        op_types_to_quantize=["MatMul"],
        nodes_to_exclude=down_projections(model),
    )
    for f in work.rglob("*"):
        if f.is_file():
            with f.open("rb") as handle:
                os.fsync(handle.fileno())


def down_projections(model: Any) -> list[str]:
    """Names of the MatMuls whose weight narrows (more rows than columns): in a BERT, the
    second feed-forward layer. Nodes without a name are given one, so they can be named."""
    shapes = {t.name: tuple(t.dims) for t in model.graph.initializer}
    found = []
    for i, node in enumerate(model.graph.node):
        if not node.name:
            node.name = f"{node.op_type}_{i}"
        if node.op_type == "MatMul" and len(node.input) == 2:
            dims = shapes.get(node.input[1], ())
            if len(dims) == 2 and dims[0] > dims[1]:
                found.append(node.name)
    return found


def _remove_stale(cache: Path, name: str) -> None:
    """Delete temporary folders an interrupted copy left behind."""
    for old in cache.glob(f".tmp-{name}-*"):
        if time.time() - old.stat().st_mtime > _STALE_SECONDS:
            shutil.rmtree(old, ignore_errors=True)
