"""`hoard bench` measures a copy of the vault, writes a receipt, and compares receipts."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from hoard.cli import run

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "vault"


def _snapshot(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in root.rglob("*") if p.is_file()}


def test_bench_writes_a_receipt_and_leaves_the_vault_untouched(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    vault = tmp_path / "vault"
    shutil.copytree(EXAMPLE, vault)
    before = _snapshot(vault)
    receipt = tmp_path / "r.json"

    code = run(["bench", "--vault", str(vault), "--n", "3", "--receipt", str(receipt), "--json"])

    assert code == 0
    data = json.loads(receipt.read_text())
    assert data == json.loads(capsys.readouterr().out)
    assert data["notes"] == len([p for p in before if p.endswith(".md")])
    for name in (
        "search",
        "read",
        "links",
        "write dry run",
        "write (create, 500 B)",
        "archive",
        "raw FTS5 query",
        "naive substring scan (every file)",
    ):
        figure = data["figures"][name]
        assert figure["n"] >= 1 and figure["p50_ms"] >= 0
    assert _snapshot(vault) == before


def test_bench_compare_prints_ratios_against_an_earlier_receipt(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    vault = tmp_path / "vault"
    shutil.copytree(EXAMPLE, vault)
    first = tmp_path / "first.json"
    assert run(["bench", "--vault", str(vault), "--n", "2", "--receipt", str(first)]) == 0
    capsys.readouterr()

    code = run(
        [
            "bench",
            "--vault",
            str(vault),
            "--n",
            "2",
            "--receipt",
            str(tmp_path / "second.json"),
            "--compare",
            str(first),
        ]
    )

    assert code == 0
    table = capsys.readouterr().out
    assert "p50 vs base" in table
    assert "x |" in table
