"""The same encoder as :mod:`hoard.adapters.semantic.encoder`, as an ONNX graph built in
memory from the model's safetensors weights and run by onnxruntime (its kernels are faster
than numpy's BLAS calls one by one: measured in ``bench/semantic.py``). Nothing is exported
to disk or downloaded: the graph is put together node by node at load time (~0.5 s)."""

from __future__ import annotations

import os
from typing import Any

import numpy as np
import onnx
import onnxruntime as ort
from numpy.typing import NDArray
from onnx import TensorProto, helper, numpy_helper

OPSET = 20
CONTRIB = "com.microsoft"
"""onnxruntime's own operators (every CPU build has them)."""

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

    def fused(self, op: str, inputs: list[str], out: str, **attrs: Any) -> str:
        """An onnxruntime contrib operator (``com.microsoft``)."""
        return self.node(op, inputs, out, domain=CONTRIB, **attrs)

    def weight(self, at: str, out: str) -> str:
        """A dense layer's weight, transposed for ``x @ W``."""
        return self.init(out + ".w", self.w[at + ".weight"].T)

    def bias(self, at: str, out: str) -> str:
        return self.init(out + ".b", self.w[at + ".bias"])

    def add_norm(self, x: str, residual: str, dense: str, at: str, out: str, eps: float) -> str:
        """LayerNorm(x + residual + the dense layer's bias), one fused node."""
        gamma = self.init(out + ".g", self.w[at + ".weight"])
        beta = self.bias(at, out)
        bias = self.bias(dense, out + ".dense")
        return self.fused(
            "SkipLayerNormalization", [x, residual, gamma, beta, bias], out, epsilon=eps
        )

    def layer(self, x: str, i: int, heads: int, eps: float, out: str) -> str:
        """One encoder block: attention (the query, key and value projections, scaled
        dot products, softmax and context in one node), its output projection with the
        residual and LayerNorm, then the feed-forward block (exact erf GELU) likewise."""
        at, t = f"encoder.layer.{i}.", f"l{i}"
        qkv = [f"{at}attention.self.{s}" for s in ("query", "key", "value")]
        qkv_w = self.init(t + ".qkv.w", np.concatenate([self.w[q + ".weight"].T for q in qkv], 1))
        qkv_b = self.init(t + ".qkv.b", np.concatenate([self.w[q + ".bias"] for q in qkv]))
        ctx = self.fused("Attention", [x, qkv_w, qkv_b], t + ".ctx", num_heads=heads)
        dense = at + "attention.output.dense"
        o = self.node("MatMul", [ctx, self.weight(dense, t + ".o")], t + ".o")
        x = self.add_norm(o, x, dense, at + "attention.output.LayerNorm", t + ".n1", eps)
        up = at + "intermediate.dense"
        u = self.node("MatMul", [x, self.weight(up, t + ".u")], t + ".u")
        u = self.fused("BiasGelu", [u, self.bias(up, t + ".u")], t + ".g")
        down = at + "output.dense"
        d = self.node("MatMul", [u, self.weight(down, t + ".d")], t + ".d")
        return self.add_norm(d, x, down, at + "output.LayerNorm", out, eps)


def build_model(weights: dict[str, NDArray[Any]], config: dict[str, Any]) -> bytes:
    """The BERT encoder as a serialised ONNX model: inputs ``words`` (the tokens' rows of
    the word embedding table, float32, 1 x n x hidden) and ``positions`` (int64, 1 x n),
    output ``hidden`` (float32, 1 x n x hidden). The word table (47 of the model's 90 MB)
    stays out of the graph: the caller looks the rows up in the mapped weights file, so
    only the rows of tokens in use are ever in memory.

    Each block is seven nodes of onnxruntime's fused operators (``Attention``,
    ``SkipLayerNormalization``, ``BiasGelu``) rather than ~27 standard ones, with the same
    vectors (cosine 0.9999998, largest difference 1.7e-7 against the standard-operator
    graph) and a query ~0.1-0.4 ms faster."""
    g = _Graph(weights)
    hidden = int(config["hidden_size"])
    heads = int(config["num_attention_heads"])
    eps = float(config["layer_norm_eps"])
    g.init("ln0.g", weights["embeddings.LayerNorm.weight"])
    g.init("ln0.b", weights["embeddings.LayerNorm.bias"])
    pos = g.init("pos", weights["embeddings.position_embeddings.weight"])
    token_type = g.init("type", weights["embeddings.token_type_embeddings.weight"][0])
    x = g.node("Add", ["words", g.node("Gather", [pos, "positions"], "emb.pos")], "emb.sum")
    x = g.node("Add", [x, token_type], "emb.typed")
    x = g.node("LayerNormalization", [x, "ln0.g", "ln0.b"], "e", axis=-1, epsilon=eps)
    layers = int(config["num_hidden_layers"])
    for i in range(layers):
        x = g.layer(x, i, heads, eps, "hidden" if i == layers - 1 else f"l{i}.out")
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
    opsets = [helper.make_opsetid("", OPSET), helper.make_opsetid(CONTRIB, 1)]
    model = helper.make_model(graph, opset_imports=opsets)
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
