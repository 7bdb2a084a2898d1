"""Shared helpers for the bench scripts: where the evaluation data lives, machine facts for
receipts, percentiles and plain-text tables. Benchmarks are not tests (see DESIGN.md §5)."""

from __future__ import annotations

import json
import os
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import hoard
from hoard.benchmark.report import machine_info as package_machine_info
from hoard.benchmark.report import render_table, source_fingerprint
from hoard.benchmark.rows import SampleStats, percentile

__all__ = [
    "BENCH_DIR",
    "RECEIPTS_DIR",
    "REPO_ROOT",
    "SampleStats",
    "evaldata_dir",
    "machine_info",
    "now_iso",
    "percentile",
    "render_table",
    "source_fingerprint",
    "today",
    "write_receipt",
]

BENCH_DIR = Path(__file__).resolve().parent
REPO_ROOT = BENCH_DIR.parent
RECEIPTS_DIR = BENCH_DIR / "receipts"


def evaldata_dir() -> Path:
    """``$HOARD_EVALDATA``, else ``../shared/evaldata`` beside the repository. Used by path:
    the data is never copied into the project."""
    env = os.environ.get("HOARD_EVALDATA")
    return Path(env).expanduser().resolve() if env else (REPO_ROOT.parent / "shared" / "evaldata")


def machine_info() -> dict[str, Any]:
    """The package's machine facts (``hoard bench`` receipts), with the hoard version and a
    hash of its source (no git here)."""
    return {**package_machine_info(), "hoard": hoard.__version__, **source_fingerprint()}


def now_iso() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def today() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%d")


def write_receipt(name: str, payload: dict[str, Any], path: Path | None = None) -> Path:
    """Write ``bench/receipts/<name>-<date>.json`` (or ``path``) and return where."""
    out = path if path is not None else RECEIPTS_DIR / f"{name}-{today()}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(payload, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return out
