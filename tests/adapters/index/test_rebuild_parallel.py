"""A full rebuild prepares notes in worker processes on a large vault; the index it builds
is the same as one built in a single process, and a worker that dies costs only time."""

from __future__ import annotations

import logging
import sqlite3
from pathlib import Path

from hoard.adapters.fs.config_file import load_config
from hoard.adapters.fs.vault import Vault
from hoard.adapters.index.parallel import PARALLEL_FROM, prepared_notes, worker_count
from hoard.core.policy import OWNER


def _vault_of(write_note, n: int) -> None:
    for i in range(n):
        write_note(
            f"tech/n{i:03d}.md",
            f"Note {i} Århus",
            f"body {i} links to [[n{(i + 1) % n:03d}]] and [[missing-{i}]]",
        )


def _rows(state: Path) -> tuple[list[tuple[object, ...]], ...]:
    conn = sqlite3.connect(state / "index.db")
    try:
        return (
            conn.execute(
                "SELECT id, path, revision, title, fm_json, problems FROM notes ORDER BY id"
            ).fetchall(),
            conn.execute("SELECT rowid, title, body, alt FROM notes_fts ORDER BY rowid").fetchall(),
            conn.execute("SELECT src, target, line FROM links ORDER BY src, line").fetchall(),
        )
    finally:
        conn.close()


def test_notes_prepared_in_a_worker_equal_notes_prepared_here_in_order(vault, write_note):
    _vault_of(write_note, 40)
    write_note("tech/broken.md", raw="---\ntitle: [unclosed\n---\nbody\n")
    config = load_config(vault)
    v = Vault(vault, config)
    stats = sorted(v.walk(), key=lambda fs: fs.path)

    here = list(prepared_notes(v, config, stats, workers=0))
    there = list(prepared_notes(v, config, stats, workers=1))

    assert there == here
    assert [n.path for n in there if n is not None] == [fs.path for fs in stats]


def test_a_rebuild_in_workers_builds_the_same_index_as_one_in_this_process(
    tmp_path, vault, write_note, open_hoard
):
    _vault_of(write_note, 60)
    serial = open_hoard(state=tmp_path / "serial")
    serial.index.rebuild_workers = 0
    serial.index.rebuild()
    parallel = open_hoard(state=tmp_path / "parallel")
    parallel.index.rebuild_workers = 2
    report = parallel.index.rebuild()

    assert report.added == 60 and report.failed == 0
    assert _rows(tmp_path / "parallel") == _rows(tmp_path / "serial")
    assert [r.path for r in parallel.searching.search("aarhus 17", caller=OWNER).results][:1] == [
        "tech/n017.md"
    ]


def test_a_rebuild_finishes_in_this_process_when_a_worker_dies(
    tmp_path, vault, write_note, open_hoard, monkeypatch, caplog
):
    _vault_of(write_note, 30)
    hoard = open_hoard()
    hoard.index.rebuild_workers = 1
    monkeypatch.setenv("HOARD_FAILPOINT", "rebuild.worker")

    with caplog.at_level(logging.WARNING, logger="hoard.adapters.index.parallel"):
        report = hoard.index.rebuild()

    assert report.added == 30 and report.failed == 0
    assert "preparing notes in this process" in caplog.text
    assert len(hoard.searching.search("body", caller=OWNER).results) == 10


def test_only_a_large_vault_on_several_cores_gets_workers_one_per_core_up_to_4():
    assert worker_count(PARALLEL_FROM - 1, cores=8) == 0
    assert worker_count(PARALLEL_FROM, cores=1) == 0
    assert worker_count(PARALLEL_FROM, cores=2) == 2
    assert worker_count(250_000, cores=16) == 4
