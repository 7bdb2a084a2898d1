"""`hoard bench` measures a copy of the vault through the MCP client over loopback HTTP,
beside in-process rows and naive baselines, writes a receipt and compares receipts.

One real run on the example vault (n = 3) is shared by the module; no test asserts a time."""

from __future__ import annotations

import contextlib
import io
import json
import random
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from hoard.benchmark.queries import build, find_query_file, sampled
from hoard.benchmark.report import render
from hoard.benchmark.rows import Row, targets_for
from hoard.benchmark.run import failures
from hoard.surfaces.cli.commands import build_parser
from hoard.surfaces.cli.main import run
from tests.helpers import EXAMPLE_VAULT

EXAMPLE = EXAMPLE_VAULT

HTTP_ROWS = (
    "read_small",
    "read_large",
    "recent",
    "context",
    "search",
    "links",
    "code_trivial",
    "code_search",
    "write_dry",
    "write_create",
    "write_overwrite",
    "archive",
    "history",
    "list_500",
)
FLOOR_ROWS = (
    "policy",
    "healthz",
    "raw_policy",
    "raw_read_small",
    "raw_read_large",
    "raw_search",
    "raw_links",
    "raw_list_500",
)
API_ROWS = ("api_read_small", "api_search")
IN_PROCESS_ROWS = ("rebuild", "sync_nochange", "stat_walk", "raw_fts")
BASELINE_ROWS = ("naive_substring", "naive_any_word", "grep")


@dataclass
class Outcome:
    code: int
    stdout: str
    stderr: str


def _snapshot(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in root.rglob("*") if p.is_file()}


def _run(argv: list[str]) -> Outcome:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = run(argv)
    return Outcome(code, out.getvalue(), err.getvalue())


@dataclass
class FullRun:
    vault: Path
    before: dict[str, bytes]
    receipt_path: Path
    receipt: dict[str, Any]
    outcome: Outcome


@pytest.fixture(scope="module")
def full_run(tmp_path_factory: pytest.TempPathFactory) -> FullRun:
    tmp = tmp_path_factory.mktemp("bench")
    vault = tmp / "vault"
    shutil.copytree(EXAMPLE, vault)
    before = _snapshot(vault)
    receipt = tmp / "receipt.json"
    outcome = _run(
        ["bench", "--vault", str(vault), "--n", "3", "--receipt", str(receipt), "--json"]
    )
    return FullRun(vault, before, receipt, json.loads(receipt.read_text()), outcome)


def test_a_full_run_measures_every_row_with_samples_and_no_errors(full_run: FullRun) -> None:
    assert full_run.outcome.code == 0, full_run.outcome.stderr
    figures = full_run.receipt["figures"]
    for key in HTTP_ROWS + API_ROWS + FLOOR_ROWS + IN_PROCESS_ROWS + BASELINE_ROWS:
        assert figures[key]["n"] > 0, key
        assert figures[key]["errors"] == 0, (key, figures[key]["error_examples"])
        assert figures[key]["p50_ms"] >= 0
    assert {figures[k]["group"] for k in HTTP_ROWS} == {"http"}
    assert {figures[k]["group"] for k in API_ROWS} == {"api"}
    assert figures["search"]["n"] == 3


def test_the_rerank_row_is_present_and_says_not_configured(full_run: FullRun) -> None:
    rerank = full_run.receipt["figures"]["search_rerank"]
    assert rerank["n"] == 0
    assert rerank["skipped"] == "not configured"
    assert "not configured" in render(full_run.receipt)


def test_the_receipt_has_machine_versions_corpus_and_every_figure(full_run: FullRun) -> None:
    data = full_run.receipt
    assert json.loads(full_run.outcome.stdout) == data
    assert data["machine"]["cpu_count"] >= 1 and data["machine"]["sqlite"]
    assert data["versions"]["hoard"] and data["versions"]["mcp"] != "?"
    notes = [p for p in full_run.before if p.endswith(".md")]
    assert data["corpus"]["notes"] == len(notes)
    assert data["corpus"]["source"] == str(full_run.vault.resolve())
    assert data["corpus"]["index_bytes"] > 0
    assert data["settings"]["n"] == 3
    assert data["server"]["ready_s"] >= 0
    if Path("/proc/self/status").exists():
        assert data["rss"]["VmHWM_mb"] > 0


def test_the_source_vault_is_left_unchanged_and_scratch_notes_are_archived(
    full_run: FullRun,
) -> None:
    assert _snapshot(full_run.vault) == full_run.before
    assert full_run.receipt["source_vault_untouched"] is True
    assert full_run.receipt["search"]["large_scratch_archived"] is True
    assert full_run.receipt["figures"]["archive"]["n"] == 3


def test_the_table_shows_targets_with_pass_or_miss_and_the_facts(full_run: FullRun) -> None:
    table = render(full_run.receipt)
    assert "| via " in table and "p50 ms" in table and "p95 ms" in table and "max ms" in table
    assert "p50 < 2 ms" in table
    assert " pass " in table or " miss " in table
    assert "index on disk:" in table and "server RSS:" in table
    assert "naive substring scan" in table and "that of vault_search" in table


def test_no_http_skips_the_http_rows_and_compare_prints_ratios(
    full_run: FullRun, tmp_path: Path
) -> None:
    second = tmp_path / "second.json"

    outcome = _run(
        [
            "bench",
            "--vault",
            str(full_run.vault),
            "--n",
            "3",
            "--no-http",
            "--receipt",
            str(second),
            "--compare",
            str(full_run.receipt_path),
        ]
    )

    assert outcome.code == 0, outcome.stderr
    data = json.loads(second.read_text())
    assert set(data["figures"]) == set(IN_PROCESS_ROWS + BASELINE_ROWS)
    assert data["server"] is None and data["rss"] is None
    assert "p50 vs base" in outcome.stdout
    assert "x |" in outcome.stdout
    assert "MCP/HTTP" not in outcome.stdout
    assert "hoard bench:" in outcome.stderr and "hoard bench:" not in outcome.stdout


def test_without_a_vault_the_bench_runs_on_a_generated_one(tmp_path: Path) -> None:
    receipt = tmp_path / "r.json"

    outcome = _run(["bench", "--notes", "60", "--n", "2", "--no-http", "--receipt", str(receipt)])

    assert outcome.code == 0, outcome.stderr
    data = json.loads(receipt.read_text())
    assert data["corpus"]["source"] is None
    assert data["corpus"]["generated"]["notes"] == data["corpus"]["notes"] == 60
    assert data["source_vault_untouched"] is None


def test_a_missing_vault_exits_2(tmp_path: Path) -> None:
    outcome = _run(["bench", "--vault", str(tmp_path / "nope"), "--no-http"])
    assert outcome.code == 2
    assert "no vault" in outcome.stderr


def test_only_the_bench_command_defaults_to_no_vault() -> None:
    parser = build_parser()
    assert parser.parse_args(["bench"]).vault is None
    assert parser.parse_args(["search", "x"]).vault == Path(".")


def test_a_compare_against_a_receipt_without_a_row_shows_a_dash(full_run: FullRun) -> None:
    old = {"figures": {"search": {"p50_ms": full_run.receipt["figures"]["search"]["p50_ms"]}}}
    table = render(full_run.receipt, old)
    search_line = next(line for line in table.splitlines() if "| vault_search " in line)
    links_line = next(line for line in table.splitlines() if "| vault_links " in line)
    assert search_line.rstrip(" |").endswith("1.00x")
    assert links_line.rstrip(" |").endswith("—")


def test_a_judged_query_file_beside_the_vault_is_used(tmp_path: Path) -> None:
    notes = tmp_path / "set" / "notes"
    notes.mkdir(parents=True)
    (notes / "a.md").write_text("---\ntitle: A\n---\nalpha\n")
    lines = [
        {"query": "alpha", "relevant": {"a.md": 1}, "kind": "known"},
        {"query": "gone", "relevant": {"missing.md": 1}},
    ]
    qfile = tmp_path / "set" / "queries.jsonl"
    qfile.write_text("".join(json.dumps(x) + "\n" for x in lines))

    found = find_query_file(notes)
    queries, origin = build(notes, [], 4, random.Random(1), found)

    assert found == qfile and origin == str(qfile)
    assert [q.text for q in queries] == ["alpha"] * 4
    assert queries[0].relevant == frozenset({"a.md"})


def test_without_a_query_file_the_set_mixes_titles_typos_and_multi_word_queries() -> None:
    titles = [(f"n{i}.md", f"Backup strategy number {i} restic") for i in range(30)]
    queries = sampled(titles, 50, random.Random(3))
    kinds = {q.kind for q in queries}
    assert kinds == {"known-item", "misspelled", "multi-word"}
    assert len(queries) == 50


def test_a_row_with_errors_never_passes_and_targets_scale_with_the_corpus() -> None:
    row = Row("search", "vault_search", "http", targets=[("p50", 8.0)])
    row.add(1.0)
    assert row.passed is True
    row.error("boom")
    assert row.passed is False
    assert failures({"figures": {"search": row.as_dict()}}) == ["vault_search: 1 errors"]
    assert targets_for(13_415)["rebuild"] == [("p50", 6_000.0)]
    assert targets_for(167_093)["search"] == [("p50", 30.0), ("p95", 100.0)]
    assert "rebuild" not in targets_for(50_000)


def test_the_report_prints_the_json_api_beside_the_same_mcp_calls(full_run: FullRun) -> None:
    lines = render(full_run.receipt).splitlines()
    assert any(line.startswith("| API/HTTP") for line in lines)
    read = [line for line in lines if line.startswith("- JSON API: GET note")]
    search = [line for line in lines if line.startswith("- JSON API: GET search")]
    assert len(read) == 1 and "vault_read, small note" in read[0] and read[0].endswith("x")
    assert len(search) == 1 and "vault_search (MCP/HTTP)" in search[0]
