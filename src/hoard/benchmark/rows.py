"""One row of the bench table: samples, errors, a target, and the pass/miss verdict."""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

# Targets on loopback HTTP (2 cores), by row key: (statistic, limit in ms). The search and
# rebuild targets depend on the corpus size: see :func:`targets_for`.
TARGETS_MS: dict[str, tuple[str, float]] = {
    "read_small": ("p50", 2.0),
    "search": ("p50", 8.0),
    "links": ("p50", 3.0),
    "write_dry": ("p50", 3.0),
    "write_create": ("p50", 5.0),
    "write_overwrite": ("p50", 5.0),
    "archive": ("p50", 10.0),
    "list_500": ("p50", 30.0),
    "code_trivial": ("p50", 15.0),
    "code_search": ("p50", 40.0),
    "sync_nochange": ("p50", 5.0),
}
SCALE_NOTES = 167_000  # "at scale": the CVE corpus (167,093 notes)
SMALL_NOTES = 15_000  # the 13k-note Zettelkasten and anything smaller
RSS_TARGET_MB = 500.0


def targets_for(notes: int) -> dict[str, list[tuple[str, float]]]:
    """Every target that applies to a corpus of ``notes`` notes, by row key."""
    out = {key: [target] for key, target in TARGETS_MS.items()}
    if notes >= SCALE_NOTES:
        out["search"] = [("p50", 30.0), ("p95", 100.0)]
        out["rebuild"] = [("p50", 180_000.0)]
    elif notes <= SMALL_NOTES:
        out["rebuild"] = [("p50", 6_000.0)]
        out["stat_walk"] = [("p50", 60.0)]
    return out


def percentile(values: Sequence[float], q: float) -> float:
    """Linear-interpolated percentile, ``q`` in [0, 100]; NaN for no values."""
    if not values:
        return float("nan")
    s = sorted(values)
    pos = (len(s) - 1) * q / 100.0
    lo = int(pos)
    hi = min(lo + 1, len(s) - 1)
    return s[lo] + (s[hi] - s[lo]) * (pos - lo)


def call_label(args: dict[str, Any]) -> str:
    """The arguments of a call, for the receipt's slowest calls (contents left out)."""
    shown = {k: v for k, v in args.items() if k not in ("content", "code")}
    if "code" in args:
        shown["code"] = str(args["code"])[:80]
    return json.dumps(shown, ensure_ascii=False)[:160]


class SampleStats:
    """p50 / p95 / max over ``samples_ms``, for every bench's row class."""

    samples_ms: list[float]

    @property
    def p50(self) -> float:
        return percentile(self.samples_ms, 50)

    @property
    def p95(self) -> float:
        return percentile(self.samples_ms, 95)

    @property
    def max(self) -> float:
        return max(self.samples_ms) if self.samples_ms else float("nan")


@dataclass
class Row(SampleStats):
    """A measured operation. ``group`` is ``http``, ``floor``, ``in-process`` or
    ``baseline``; ``skipped`` says why a row has no samples on purpose."""

    key: str
    name: str
    group: str
    samples_ms: list[float] = field(default_factory=list)
    labels: list[str] = field(default_factory=list)
    errors: int = 0
    error_examples: list[str] = field(default_factory=list)
    targets: list[tuple[str, float]] = field(default_factory=list)
    note: str = ""
    skipped: str = ""
    server_cpu_ms: float | None = None  # the server process's CPU over the timed calls
    client_cpu_ms: float | None = None  # this process's CPU over the timed calls

    @property
    def n(self) -> int:
        return len(self.samples_ms)

    def stat(self, name: str) -> float:
        return {"p50": self.p50, "p95": self.p95, "max": self.max}[name]

    def add(self, ms: float, label: str = "") -> None:
        self.samples_ms.append(ms)
        self.labels.append(label)

    def error(self, msg: str) -> None:
        self.errors += 1
        if len(self.error_examples) < 5:
            self.error_examples.append(msg[:300])

    @property
    def target_text(self) -> str:
        return ", ".join(f"{stat} < {_limit(ms)}" for stat, ms in self.targets)

    @property
    def passed(self) -> bool | None:
        """False on any error; else whether every target is met (None: no target)."""
        if self.errors:
            return False
        if not self.targets or not self.samples_ms:
            return None
        return all(self.stat(stat) < limit for stat, limit in self.targets)

    def slowest(self, k: int = 5) -> list[dict[str, Any]]:
        pairs = sorted(zip(self.samples_ms, self.labels, strict=False), reverse=True)[:k]
        return [{"ms": round(ms, 3), "call": label} for ms, label in pairs if label]

    def as_dict(self) -> dict[str, Any]:
        n = self.n

        def r(x: float) -> float | None:
            return None if math.isnan(x) else round(x, 3)

        def per_call(total: float | None) -> float | None:
            return None if total is None or not n else round(total / n, 3)

        return {
            "name": self.name,
            "group": self.group,
            "n": n,
            "errors": self.errors,
            "error_examples": self.error_examples,
            "p50_ms": r(self.p50),
            "p95_ms": r(self.p95),
            "max_ms": r(self.max),
            "mean_ms": round(sum(self.samples_ms) / n, 3) if n else None,
            "min_ms": round(min(self.samples_ms), 3) if n else None,
            "target": self.target_text or None,
            "pass": self.passed,
            "skipped": self.skipped or None,
            "note": self.note or None,
            "server_cpu_ms_per_call": per_call(self.server_cpu_ms),
            "client_cpu_ms_per_call": per_call(self.client_cpu_ms),
            "slowest": self.slowest(),
        }


def _limit(ms: float) -> str:
    if ms >= 60_000:
        return f"{ms / 60_000:g} min"
    if ms >= 1_000:
        return f"{ms / 1_000:g} s"
    return f"{ms:g} ms"
