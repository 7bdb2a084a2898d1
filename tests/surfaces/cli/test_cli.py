"""The ``hoard`` CLI through its runner (``hoard.surfaces.cli.main.run``), plus one
subprocess smoke test of
the installed console script."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from hoard.surfaces.cli.main import run

SEARCH_FIELDS = {
    "query",
    "engine",
    "error",
    "contested",
    "reranked",
    "hidden_protected",
    "took_ms",
    "results",
    "warnings",
}
HIT_FIELDS = {"path", "title", "score", "snippet", "folder", "frontmatter", "warnings"}
READ_FIELDS = {
    "path",
    "revision",
    "size",
    "content",
    "offset",
    "next_offset",
    "truncated",
    "frontmatter",
    "warnings",
}


@pytest.fixture
def cli(example_vault, tmp_path, capsys):
    """``cli("search", "zigbee")`` → (exit code, parsed JSON stdout, stderr)."""
    state = tmp_path / "cli-state"

    def call(*args: str, as_json: bool = True) -> tuple[int, object, str]:
        argv = [*args, "--vault", str(example_vault), "--state-dir", str(state)]
        if as_json:
            argv.append("--json")
        code = run(argv)
        out, err = capsys.readouterr()
        return code, (json.loads(out) if as_json else out), err

    return call


def test_search_json_has_the_spec_fields(cli):
    code, data, _ = cli("search", "zigbee")

    assert code == 0
    assert set(data) >= SEARCH_FIELDS
    assert data["query"] == "zigbee"
    assert data["engine"] == "fts5"
    assert data["error"] is None
    assert isinstance(data["took_ms"], int | float)
    assert data["results"]
    for hit in data["results"]:
        assert set(hit) >= HIT_FIELDS
        assert hit["score"] > 0
    assert data["results"][0]["path"] == "tech/zigbee.md"


def test_search_takes_limit_folder_and_mode(cli):
    code, data, _ = cli("search", "zigbee", "--limit", "2", "--folder", "daily")
    assert code == 0
    assert 1 <= len(data["results"]) <= 2
    assert all(h["path"].startswith("daily/") for h in data["results"])

    code, data, _ = cli("search", "title:zigbee", "--mode", "fts")
    assert code == 0
    assert [h["path"] for h in data["results"]] == ["tech/zigbee.md"]


def test_search_as_you_type_takes_the_last_word_as_a_prefix(cli):
    code, data, _ = cli("search", "zigb", "--mode", "typeahead")

    assert code == 0
    assert data["results"][0]["path"] == "tech/zigbee.md"


def test_search_with_a_mode_outside_the_choices_is_a_usage_error(cli, capsys):
    with pytest.raises(SystemExit) as info:
        cli("search", "zigbee", "--mode", "regex")

    assert info.value.code == 2
    err = capsys.readouterr().err
    assert "invalid choice: 'regex'" in err
    assert "typeahead" in err


def test_a_hoard_toml_with_a_retired_ranking_key_still_searches_and_warns_naming_it(
    cli, example_vault, caplog
):
    (example_vault / "hoard.toml").write_text("[search]\nposting_budget = 10\n", encoding="utf-8")

    code, data, _ = cli("search", "zigbee")

    assert code == 0
    assert data["results"][0]["path"] == "tech/zigbee.md"
    assert any(
        "search.posting_budget is no longer configurable" in r.getMessage() for r in caplog.records
    )


def test_search_with_a_bad_fts_query_exits_2_with_bad_query(cli):
    code, data, _ = cli("search", "foo AND", "--mode", "fts")

    assert code == 2
    assert data["error"] == "bad_query"
    assert data["message"]


def test_search_folds_diacritics_on_the_example_vault(cli):
    _, data, _ = cli("search", "ukol")

    assert "projects/home-automation-revamp.md" in [h["path"] for h in data["results"]]


def test_read_json_has_the_spec_fields(cli, example_vault):
    code, data, _ = cli("read", "tech/zigbee.md")

    raw = (example_vault / "tech" / "zigbee.md").read_bytes()
    assert code == 0
    assert set(data) >= READ_FIELDS
    assert data["content"].encode() == raw
    assert data["size"] == len(raw)
    assert data["next_offset"] is None
    assert data["truncated"] is False
    assert data["frontmatter"]["title"] == "Zigbee Network Notes"


def test_read_a_range(cli):
    code, data, _ = cli("read", "tech/zigbee.md", "--offset", "4", "--max-bytes", "10")

    assert code == 0
    assert data["offset"] == 4
    assert data["next_offset"] == 14
    assert data["truncated"] is True
    assert len(data["content"].encode()) == 10


def test_read_a_section_by_heading_prints_its_bytes_and_range(cli, example_vault):
    code, data, _ = cli("read", "references/homelab-reading-list.md", "--heading", "networking")

    raw = (example_vault / "references" / "homelab-reading-list.md").read_bytes()
    part = data["part"]
    assert code == 0
    assert data["content"].startswith("## Networking\n")
    assert data["content"].encode() == raw[part["start"] : part["end"]]
    assert raw[part["end"] - 1 : part["end"] + 22] == b"\n## Storage and backups"


def test_read_of_a_missing_block_exits_2_with_not_found(cli):
    code, _, err = cli("read", "tech/zigbee.md", "--block", "nope", as_json=False)

    assert code == 2
    assert "not_found" in err and "^nope" in err


def test_read_of_a_missing_note_exits_2_with_not_found(cli):
    code, data, _ = cli("read", "tech/missing.md")

    assert code == 2
    assert data["error"] == "not_found"
    assert data["message"]


def test_read_of_a_hostile_path_exits_2_with_path_rejected(cli):
    code, data, _ = cli("read", "../etc/passwd")

    assert code == 2
    assert data["error"] == "path_rejected"


def test_an_error_without_json_goes_to_stderr(cli):
    code, out, err = cli("read", "tech/missing.md", as_json=False)

    assert code == 2
    assert out == ""
    assert "not_found" in err


def test_a_bad_hoard_toml_exits_2_naming_the_key(cli, example_vault):
    (example_vault / "hoard.toml").write_text("[search]\nno_such_key = 1\n", encoding="utf-8")

    code, data, _ = cli("search", "zigbee")

    assert code == 2
    assert data["error"] == "invalid_argument"
    assert "search.no_such_key" in data["message"]


def test_an_invalid_limit_exits_2_with_invalid_argument(cli):
    code, data, _ = cli("search", "zigbee", "--limit", "0")

    assert code == 2
    assert data["error"] == "invalid_argument"


def test_list_json_has_the_spec_fields(cli):
    code, data, _ = cli("list", "tech")

    assert code == 0
    assert set(data) >= {"path", "entries", "truncated"}
    assert data["path"] == "tech"
    assert data["truncated"] is False
    paths = [e["path"] for e in data["entries"]]
    assert "tech/zigbee.md" in paths
    assert "tech/homelab" in paths
    for e in data["entries"]:
        assert set(e) >= {"path", "kind", "size", "mtime"}
        assert isinstance(e["mtime"], str)


def test_list_recursive_with_a_limit(cli):
    code, data, _ = cli("list", "--recursive", "--limit", "5")

    assert code == 0
    assert len(data["entries"]) == 5
    assert data["truncated"] is True


def test_list_of_a_missing_folder_exits_2(cli):
    code, data, _ = cli("list", "nowhere")

    assert code == 2
    assert data["error"] == "not_found"


def test_links_json_has_the_spec_fields(cli):
    code, data, _ = cli("links", "projects/home-automation-revamp.md")

    assert code == 0
    assert set(data) >= {"path", "outgoing", "backlinks", "broken"}
    assert data["broken"] == ["zigbee-migration-plan"]
    for o in data["outgoing"]:
        assert set(o) >= {"target", "resolved_path", "broken"}
    assert "tech/zigbee.md" in {o["resolved_path"] for o in data["outgoing"]}

    _, data, _ = cli("links", "tech/hue-bridge.md")
    assert "tech/zigbee.md" in data["backlinks"]


def test_index_rebuild_reports_a_rebuild(cli):
    code, data, _ = cli("index", "--rebuild")

    assert code == 0
    assert data["rebuilt"] is True
    assert data["notes"] == 65

    code, data, _ = cli("index")
    assert code == 0
    assert data["rebuilt"] is False
    assert (data["added"], data["updated"], data["removed"]) == (0, 0, 0)


def test_check_on_the_example_vault_exits_0_with_the_spec_shape(cli):
    code, data, _ = cli("check")

    assert code == 0
    assert isinstance(data["checked"], int) and data["checked"] > 0
    assert data["violations"] == []


def test_check_exits_1_and_lists_violations(cli, example_vault):
    (example_vault / "tech" / "bad.md").write_text("---\ntitle: Bad\n---\nbody\n")

    code, data, _ = cli("check")

    assert code == 1
    bad = [v for v in data["violations"] if v["path"] == "tech/bad.md"]
    assert bad
    for v in data["violations"]:
        assert set(v) >= {"path", "field", "rule", "message"}
    assert {v["rule"] for v in bad} >= {"required"}


def test_human_output_is_readable(cli):
    code, out, _ = cli("search", "zigbee", as_json=False)
    assert code == 0
    assert "tech/zigbee.md" in out

    code, out, _ = cli("check", as_json=False)
    assert code == 0
    assert "zigbee-migration-plan" in out

    code, out, _ = cli("read", "tech/zigbee.md", as_json=False)
    assert code == 0
    assert out.startswith("---\ntitle: Zigbee Network Notes")


def test_the_cli_never_writes_into_the_vault(cli, example_vault):
    before = sorted(str(p.relative_to(example_vault)) for p in example_vault.rglob("*"))

    for args in (("search", "zigbee"), ("index", "--rebuild"), ("check",), ("list",)):
        cli(*args)

    after = sorted(str(p.relative_to(example_vault)) for p in example_vault.rglob("*"))
    assert after == before


def _console_script() -> str:
    beside = Path(sys.executable).parent / "hoard"
    if beside.exists():
        return str(beside)
    found = shutil.which("hoard")
    if found is None:
        pytest.fail("the hoard console script is not installed")
    return found


def test_the_installed_console_script_searches_the_example_vault(example_vault, tmp_path):
    proc = subprocess.run(
        [
            _console_script(),
            "search",
            "zigbee",
            "--vault",
            str(example_vault),
            "--state-dir",
            str(tmp_path / "smoke-state"),
            "--json",
        ],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )

    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert data["engine"] == "fts5"
    assert data["results"][0]["path"] == "tech/zigbee.md"


def test_a_long_sections_read_says_how_many_of_its_bytes_remain(cli, example_vault):
    code, out, err = cli(
        "read",
        "references/homelab-reading-list.md",
        "--heading",
        "networking",
        "--max-bytes",
        "10",
        as_json=False,
    )
    _, data, _ = cli("read", "references/homelab-reading-list.md", "--heading", "networking")
    length = data["part"]["end"] - data["part"]["start"]
    assert code == 0 and out == "## Network"
    assert f"{length - 10} more bytes; --offset 10" in err
