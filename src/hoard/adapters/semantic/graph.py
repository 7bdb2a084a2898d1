"""The same encoder as :mod:`hoard.adapters.semantic.encoder`, as an ONNX graph built in
memory from the model's safetensors weights and run by onnxruntime (its kernels are faster
than numpy's BLAS calls one by one: measured in ``bench/semantic.py``). Nothing is exported
to disk or downloaded: the graph is put together node by node at load time (~0.5 s)."""

from __future__ import annotations

import math
import os
from typing import Any

import numpy as np
import onnx
import onnxruntime as ort
from numpy.typing import NDArray
from onnx import TensorProto, helper, numpy_helper

OPSET = 20  # Gelu is an operator from opset 20 on

THREADS = min(2, os.cpu_count() or 1)
"""Threads of one forward pass (see :class:`OnnxEncoder`)."""


class _Graph:
    def __init__(self, weights: dict[str, NDArray[Any]]) -> None:
        self.w = weights
        self.nodes: list[onnx.NodeProto] = []
        self.inits: list[onnx.TensorProto] = []

    def init(self, name: str, arr: NDArray[Any]) -> str:
        self.inits.append(numpy_helper.from_array(np.ascontiguousarray(arr), name))
        return name

    def node(self, op: str, inputs: list[str], out: str, **attrs: Any) -> str:
        self.nodes.append(helper.make_node(op, inputs, [out], **attrs))
        return out

    def linear(self, x: str, at: str, out: str) -> str:
        weight = self.init(out + ".w", self.w[at + ".weight"].T)
        bias = self.init(out + ".b", self.w[at + ".bias"])
        return self.node("Add", [self.node("MatMul", [x, weight], out + ".mm"), bias], out)

    def norm(self, x: str, at: str, out: str, eps: float) -> str:
        weight = self.init(out + ".w", self.w[at + ".weight"])
        bias = self.init(out + ".b", self.w[at + ".bias"])
        return self.node("LayerNormalization", [x, weight, bias], out, axis=-1, epsilon=eps)

    def heads(self, x: str, out: str, perm: list[int]) -> str:
        shaped = self.node("Reshape", [x, "heads_shape"], out + ".r")
        return self.node("Transpose", [shaped], out, perm=perm)


def build_model(weights: dict[str, NDArray[Any]], config: dict[str, Any]) -> bytes:
    """The BERT encoder as a serialised ONNX model: inputs ``words`` (the tokens' rows of
    the word embedding table, float32, 1 x n x hidden) and ``positions`` (int64, 1 x n),
    output ``hidden`` (float32, 1 x n x hidden). The word table (47 of the model's 90 MB)
    stays out of the graph: the caller looks the rows up in the mapped weights file, so
    only the rows of tokens in use are ever in memory."""
    g = _Graph(weights)
    hidden = int(config["hidden_size"])
    n_heads = int(config["num_attention_heads"])
    eps = float(config["layer_norm_eps"])
    d = hidden // n_heads
    g.init("heads_shape", np.array([0, 0, n_heads, d], np.int64))
    g.init("merge_shape", np.array([0, 0, hidden], np.int64))
    g.init("scale", np.array(1 / math.sqrt(d), np.float32))
    pos = g.init("pos", weights["embeddings.position_embeddings.weight"])
    token_type = g.init("type", weights["embeddings.token_type_embeddings.weight"][0])
    x = g.node("Add", ["words", g.node("Gather", [pos, "positions"], "emb.pos")], "emb.sum")
    x = g.norm(g.node("Add", [x, token_type], "emb.typed"), "embeddings.LayerNorm", "e", eps)
    layers = int(config["num_hidden_layers"])
    for i in range(layers):
        at, t = f"encoder.layer.{i}.", f"l{i}"
        q = g.heads(g.linear(x, at + "attention.self.query", t + ".q"), t + ".qh", [0, 2, 1, 3])
        k = g.heads(g.linear(x, at + "attention.self.key", t + ".k"), t + ".kh", [0, 2, 3, 1])
        v = g.heads(g.linear(x, at + "attention.self.value", t + ".v"), t + ".vh", [0, 2, 1, 3])
        s = g.node("Mul", [g.node("MatMul", [q, k], t + ".s"), "scale"], t + ".ss")
        s = g.node("Softmax", [s], t + ".p", axis=-1)
        c = g.node("Transpose", [g.node("MatMul", [s, v], t + ".c")], t + ".ct", perm=[0, 2, 1, 3])
        c = g.node("Reshape", [c, "merge_shape"], t + ".cm")
        o = g.linear(c, at + "attention.output.dense", t + ".o")
        x = g.norm(
            g.node("Add", [x, o], t + ".r1"), at + "attention.output.LayerNorm", t + ".n1", eps
        )
        u = g.node("Gelu", [g.linear(x, at + "intermediate.dense", t + ".u")], t + ".g")
        o = g.linear(u, at + "output.dense", t + ".d")
        out = "hidden" if i == layers - 1 else t + ".n2"
        x = g.norm(g.node("Add", [x, o], t + ".r2"), at + "output.LayerNorm", out, eps)
    graph = helper.make_graph(
        g.nodes,
        "minilm",
        [
            helper.make_tensor_value_info("words", TensorProto.FLOAT, [1, None, hidden]),
            helper.make_tensor_value_info("positions", TensorProto.INT64, [1, None]),
        ],
        [helper.make_tensor_value_info("hidden", TensorProto.FLOAT, [1, None, hidden])],
        g.inits,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)])
    model.ir_version = 9
    return bytes(model.SerializeToString())


class OnnxEncoder:
    """One onnxruntime session with a pool of :data:`THREADS` threads that sleep when idle.

    Every text, even a 4-token query, reads all 44 MB of the layers' weights: the forward
    pass is bound by memory bandwidth, and two threads read it faster than one (a query
    ~3.9 ms instead of ~5.6 on this machine's 2 cores). Idle threads must not spin: with
    spinning off, two threads still beat one with both cores busy elsewhere (~7.1 against
    ~9.1 ms), where spinning threads would only take a core from the work that waits.
    The builder's two concurrent runs share the pool, which costs the build ~7% (zk note
    texts: 28.5-29.8 notes/s against 30.4-32.3 on one thread each): a one-time cost beside
    every query's."""

    def __init__(
        self, weights: dict[str, NDArray[Any]], config: dict[str, Any], word: NDArray[Any]
    ) -> None:
        self.word = word
        """The word embedding table, a view of the mapped weights file (rows read on use)."""
        options = ort.SessionOptions()
        options.intra_op_num_threads = THREADS
        options.inter_op_num_threads = 1
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        options.log_severity_level = 3
        self.session = ort.InferenceSession(
            build_model(weights, config), options, providers=["CPUExecutionProvider"]
        )
        # The session keeps the serialised model (86 MB of weights it has already copied)
        # only to rebuild itself on a provider change, which never happens here.
        self.session._model_bytes = None

    def hidden(self, ids: list[int]) -> NDArray[np.float32]:
        feed = {
            "words": np.asarray(self.word[ids], np.float32)[None],
            "positions": np.arange(len(ids), dtype=np.int64)[None],
        }
        out = self.session.run(["hidden"], feed)[0]
        return np.asarray(out[0], np.float32)
