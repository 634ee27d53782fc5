"""The int8 copy of the embedding model: made once, loaded instead, off by a setting, and a
crash midway leaves no broken model behind."""

from __future__ import annotations

import os
import shutil
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from biomd.app.engine import Engine
from biomd.retrieval.embedding import FastEmbedder
from biomd.retrieval.quantise import copy_name, int8_copy, is_quantised
from tests.conftest import make_settings
from tests.support.model_files import MINILM_NAME

ROOT = Path(__file__).resolve().parents[2]


def tiny_model(folder: Path, tokenizer_from: Path) -> Path:
    """A small fp32 graph fastembed loads as MiniLM: a token table, a MatMul that widens and
    one that narrows to 384 (as a BERT's feed-forward layer does)."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    rng = np.random.default_rng(0)
    weights = {
        "table": rng.standard_normal((30522, 16)),
        "up": rng.standard_normal((16, 768)) / 4,
        "down": rng.standard_normal((768, 384)) / 28,
    }
    ids = ["input_ids", "attention_mask", "token_type_ids"]
    graph = helper.make_graph(
        [
            helper.make_node("Gather", ["table", "input_ids"], ["tokens"]),
            helper.make_node("MatMul", ["tokens", "up"], ["wide"]),
            helper.make_node("MatMul", ["wide", "down"], ["last_hidden_state"]),
        ],
        "tiny",
        [helper.make_tensor_value_info(n, TensorProto.INT64, ["b", "s"]) for n in ids],
        [helper.make_tensor_value_info("last_hidden_state", TensorProto.FLOAT, ["b", "s", 384])],
        [numpy_helper.from_array(w.astype(np.float32), n) for n, w in weights.items()],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    folder.mkdir(parents=True)
    onnx.save(model, str(folder / "model.onnx"))
    for f in tokenizer_from.iterdir():
        if f.suffix == ".json":
            shutil.copyfile(f, folder / f.name)
    return folder


@pytest.fixture
def fp32(tmp_path: Path, minilm_path: Path) -> Path:
    return tiny_model(tmp_path / "fp32", minilm_path)


@pytest.mark.slow
def test_the_int8_copy_is_quantised_loadable_and_made_once(fp32: Path, tmp_path: Path) -> None:
    import onnx
    import onnxruntime as ort

    cache = tmp_path / "int8"
    copy = int8_copy(MINILM_NAME, fp32, "model.onnx", cache)
    assert copy.parent == cache and is_quantised(copy / "model.onnx")
    assert not is_quantised(fp32 / "model.onnx")
    assert (copy / "tokenizer.json").read_bytes() == (fp32 / "tokenizer.json").read_bytes()
    graph = onnx.load(str(copy / "model.onnx")).graph
    kinds = {n.op_type for n in graph.node}
    assert "MatMulInteger" in kinds  # the widening MatMul is int8
    assert any(n.op_type == "MatMul" and n.input[1] == "down" for n in graph.node)  # not this
    assert any(n.op_type == "Gather" and n.input[0] == "table" for n in graph.node)  # nor this
    ids = np.array([[101, 2023, 102]], dtype=np.int64)
    feed = {"input_ids": ids, "attention_mask": np.ones_like(ids), "token_type_ids": ids * 0}
    out = [ort.InferenceSession(str(f / "model.onnx")).run(None, feed)[0] for f in (fp32, copy)]
    assert np.allclose(out[0], out[1], rtol=0.1, atol=0.2)

    made = (copy / "model.onnx").stat().st_mtime_ns
    assert int8_copy(MINILM_NAME, fp32, "model.onnx", cache) == copy
    assert (copy / "model.onnx").stat().st_mtime_ns == made
    assert [p.name for p in cache.iterdir()] == [copy.name]  # no temporary folder left


def test_a_model_that_is_int8_already_is_used_as_it_is(minilm_path: Path, tmp_path: Path) -> None:
    assert int8_copy(MINILM_NAME, minilm_path, "model.onnx", tmp_path / "int8") == minilm_path
    assert not (tmp_path / "int8").exists()


def vector(engine: Engine, text: str) -> np.ndarray:
    return engine.embeddings.embedder().embed_passages([text])[0]


@pytest.mark.slow
async def test_the_engine_embeds_with_the_int8_copy_unless_turned_off(
    fp32: Path, tmp_path: Path
) -> None:
    text = "My grandmother baked bread every Sunday."
    vectors = {}
    for quantise in (False, True):
        data = tmp_path / f"data-{quantise}"
        settings = make_settings(data, fp32, embed_quantise=quantise)
        async with await Engine.open(settings) as engine:
            vectors[quantise] = vector(engine, text)
        copies = list((settings.models_dir / "int8").glob("*/model.onnx"))
        assert len(copies) == (1 if quantise else 0)
        if quantise:  # made private, as the data dir it is in
            assert stat.S_IMODE(settings.models_dir.stat().st_mode) == 0o700
    plain = FastEmbedder(MINILM_NAME, model_path=fp32).embed_passages([text])[0]
    assert np.array_equal(vectors[False], plain)
    assert not np.array_equal(vectors[True], plain)  # the int8 model's, close to the fp32 one
    assert float(vectors[True] @ plain) > 0.99


@pytest.mark.slow
def test_an_error_midway_leaves_nothing_and_the_model_still_loads_as_it_is(
    fp32: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import onnxruntime.quantization as quantization

    def disk_full(model: Any, out: Path, **_: Any) -> None:
        Path(out).write_bytes(model.SerializeToString()[:1000])
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(quantization, "quantize_dynamic", disk_full)
    cache = tmp_path / "int8"
    with pytest.raises(OSError, match="No space"):
        int8_copy(MINILM_NAME, fp32, "model.onnx", cache)
    assert list(cache.iterdir()) == []

    embedder = FastEmbedder(MINILM_NAME, model_path=fp32, int8_cache=cache)
    plain = FastEmbedder(MINILM_NAME, model_path=fp32)
    text = ["a loaf of bread"]
    assert np.array_equal(embedder.embed_passages(text), plain.embed_passages(text))


_CRASH = """
import sys, time
from pathlib import Path
import onnxruntime.quantization as q
real = q.quantize_dynamic

def cut_short(source, out, **kw):
    real(source, out, **kw)
    data = Path(out).read_bytes()
    Path(out).write_bytes(data[: len(data) // 2])  # half written when the power goes
    print("half", flush=True)
    time.sleep(60)

q.quantize_dynamic = cut_short
from biomd.retrieval.quantise import int8_copy
int8_copy(sys.argv[1], Path(sys.argv[2]), "model.onnx", Path(sys.argv[3]))
"""


@pytest.mark.slow
def test_a_crash_midway_leaves_no_model_and_the_next_start_makes_it(
    fp32: Path, tmp_path: Path
) -> None:
    cache = tmp_path / "int8"
    with subprocess.Popen(
        [sys.executable, "-c", _CRASH, MINILM_NAME, str(fp32), str(cache)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
    ) as child:
        assert child.stdout is not None and child.stdout.readline().strip() == "half"
        os.kill(child.pid, signal.SIGKILL)
    target = cache / copy_name(MINILM_NAME, fp32 / "model.onnx")
    assert not target.exists()
    (left,) = cache.iterdir()  # the interrupted copy's temporary folder, with a half model
    assert left.name.startswith(".tmp-")

    copy = int8_copy(MINILM_NAME, fp32, "model.onnx", cache)
    assert copy == target and is_quantised(copy / "model.onnx")
    vec = FastEmbedder(MINILM_NAME, model_path=copy).embed_passages(["bread"])
    assert vec.shape == (1, 384)

    hour_ago = time.time() - 7200
    os.utime(left, (hour_ago, hour_ago))
    shutil.rmtree(copy)
    int8_copy(MINILM_NAME, fp32, "model.onnx", cache)
    assert [p.name for p in cache.iterdir()] == [target.name]  # stale leftovers are cleared
