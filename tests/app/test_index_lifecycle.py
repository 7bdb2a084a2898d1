"""The index is a cache: deleted, corrupt, foreign or outdated, it is rebuilt from the
Markdown; unusable while running, search answers with a labeled substring scan."""

from __future__ import annotations

import os
import sqlite3

import pytest

from hoard.core.errors import InvalidArgument
from hoard.core.policy import OWNER


def _paths(hoard, query: str) -> list[str]:
    return [h.path for h in hoard.searching.search(query, caller=OWNER).results]


@pytest.fixture
def notes(write_note):
    for i in range(30):
        write_note(f"tech/n{i}.md", f"Note {i}", " ".join(f"word{j}" for j in range(200)))
    write_note("life/target.md", "Target", "the pangolin sleeps in the garden")


@pytest.fixture
def index_db(notes, open_hoard, state_dir):
    """An index built once and closed (no WAL left behind)."""
    open_hoard().close()
    db = state_dir / "index.db"
    assert db.is_file()
    return db


def test_a_first_open_builds_the_index(notes, open_hoard):
    h = open_hoard()

    report = h.startup_report
    assert report.rebuilt is True
    assert report.reason is not None and "missing" in report.reason
    assert report.notes == 31
    assert _paths(h, "pangolin") == ["life/target.md"]


def test_a_second_open_trusts_a_sound_index(index_db, open_hoard):
    h = open_hoard()

    assert h.startup_report.rebuilt is False
    assert h.startup_report.reason is None
    assert h.startup_report.notes == 31


def test_a_deleted_index_is_rebuilt_at_the_next_open(index_db, open_hoard):
    index_db.unlink()

    h = open_hoard()

    assert h.startup_report.rebuilt is True
    assert h.startup_report.notes == 31
    assert _paths(h, "pangolin") == ["life/target.md"]


def test_an_index_with_garbage_in_the_middle_is_detected_and_rebuilt(index_db, open_hoard):
    data = bytearray(index_db.read_bytes())
    n = len(data)
    data[n // 4 : 3 * n // 4] = os.urandom(3 * n // 4 - n // 4)
    assert len(data) == n
    index_db.write_bytes(bytes(data))

    h = open_hoard()

    assert h.startup_report.rebuilt is True
    assert h.startup_report.reason
    assert _paths(h, "pangolin") == ["life/target.md"]
    assert h.searching.search("pangolin", caller=OWNER).engine == "fts5"


def test_an_index_of_random_bytes_is_detected_and_rebuilt(index_db, open_hoard):
    index_db.write_bytes(os.urandom(index_db.stat().st_size))

    h = open_hoard()

    assert h.startup_report.rebuilt is True
    assert h.startup_report.reason
    assert _paths(h, "pangolin") == ["life/target.md"]


def test_an_empty_index_file_is_rebuilt(index_db, open_hoard):
    index_db.write_bytes(b"")

    h = open_hoard()

    assert h.startup_report.rebuilt is True
    assert _paths(h, "pangolin") == ["life/target.md"]


def test_silently_corrupted_fts_segments_are_detected_and_rebuilt(index_db, open_hoard):
    conn = sqlite3.connect(index_db)
    conn.execute("UPDATE notes_fts_data SET block = randomblob(length(block)) WHERE id > 10")
    conn.commit()
    conn.close()

    h = open_hoard()

    assert h.startup_report.rebuilt is True
    assert h.startup_report.reason
    assert _paths(h, "pangolin") == ["life/target.md"]


def test_a_foreign_sqlite_file_is_rebuilt(index_db, open_hoard):
    index_db.unlink()
    conn = sqlite3.connect(index_db)
    conn.execute("CREATE TABLE notes(x)")
    conn.commit()
    conn.close()

    h = open_hoard()

    assert h.startup_report.rebuilt is True
    assert _paths(h, "pangolin") == ["life/target.md"]


def test_a_config_change_rebuilds_the_index_at_the_next_open(vault, index_db, open_hoard):
    before = open_hoard()
    plain = before.searching.search("pangolin", caller=OWNER).results[0].score
    before.close()
    (vault / "hoard.toml").write_text(
        '[search]\nfolder_weights = { "life/**" = 2.0 }\n', encoding="utf-8"
    )

    h = open_hoard()

    assert h.startup_report.rebuilt is True
    assert h.startup_report.reason and "config" in h.startup_report.reason
    assert h.searching.search("pangolin", caller=OWNER).results[0].score == pytest.approx(
        plain * 2.0, rel=1e-3
    )


def test_a_dropped_fts_table_while_running_falls_back_to_a_substring_scan(
    index_db, open_hoard, wait_until
):
    h = open_hoard()
    conn = sqlite3.connect(index_db)
    conn.execute("DROP TABLE notes_fts")
    conn.commit()
    conn.close()

    result = h.searching.search("pangolin", caller=OWNER)

    assert result.engine == "substring-fallback"
    assert result.error
    assert [r.path for r in result.results] == ["life/target.md"]
    hit = result.results[0]
    assert hit.title == "Target"
    assert "pangolin" in hit.snippet
    # The index repairs itself in the background; search is back on FTS5 soon after.
    wait_until(lambda: h.searching.search("pangolin", caller=OWNER).engine == "fts5", timeout=5)
    assert _paths(h, "pangolin") == ["life/target.md"]


def test_an_index_replaced_by_garbage_while_running_falls_back_then_recovers(
    index_db, open_hoard, state_dir, wait_until
):
    h = open_hoard()
    junk = state_dir / "junk"
    junk.write_bytes(os.urandom(64 * 1024))
    os.replace(junk, index_db)

    result = h.searching.search("pangolin", caller=OWNER)

    assert result.engine == "substring-fallback"
    assert result.error
    assert [r.path for r in result.results] == ["life/target.md"]
    wait_until(lambda: h.searching.search("pangolin", caller=OWNER).engine == "fts5", timeout=5)


def test_the_fallback_honours_folder_and_limit(index_db, open_hoard, write_note):
    write_note("life/second.md", "Second", "another pangolin")
    write_note("tech/third.md", "Third", "a third pangolin")
    h = open_hoard()
    conn = sqlite3.connect(index_db)
    conn.execute("DROP TABLE notes_fts")
    conn.commit()
    conn.close()

    in_life = h.searching.search("pangolin", folder="life", caller=OWNER)
    one = h.searching.search("pangolin", limit=1, caller=OWNER)

    assert in_life.engine == "substring-fallback"
    assert {r.path for r in in_life.results} == {"life/target.md", "life/second.md"}
    assert len(one.results) == 1


def test_fts_mode_syntax_errors_are_still_bad_query_when_the_index_is_broken(index_db, open_hoard):
    from hoard.core.errors import BadQuery

    h = open_hoard()
    conn = sqlite3.connect(index_db)
    conn.execute("DROP TABLE notes_fts")
    conn.commit()
    conn.close()

    with pytest.raises(BadQuery):
        h.searching.search("foo AND", mode="fts", caller=OWNER)


def test_a_note_with_broken_yaml_is_indexed_by_its_body_and_reported(write_note, open_hoard):
    write_note("tech/ok.md", "Fine", "an ordinary note")
    write_note(
        "tech/broken.md",
        raw="---\ntitle: [unclosed\ntags: {oops\n---\nThe body mentions a wombat.\n",
    )
    h = open_hoard()

    assert _paths(h, "wombat") == ["tech/broken.md"]
    assert h.startup_report.failed == 0
    bad = [v for v in h.maintenance.check().violations if v.path == "tech/broken.md"]
    assert bad
    assert all(v.field and v.rule and v.message for v in bad)
    assert not [v for v in h.maintenance.check().violations if v.path == "tech/ok.md"]


def test_a_note_that_is_not_utf8_is_still_indexed(write_note, open_hoard):
    write_note("tech/latin1.md", raw=b"---\ntitle: Latin\n---\nCaf\xe9 with a wombat\n")

    h = open_hoard()

    assert _paths(h, "wombat") == ["tech/latin1.md"]


def test_the_state_folder_may_not_be_inside_the_vault(vault, write_note):
    from hoard.app.hoard import Hoard

    write_note("tech/a.md", "A", "x")
    with pytest.raises(InvalidArgument):
        Hoard(vault, vault / ".hoard-state")
    assert not (vault / ".hoard-state").exists()


def test_ignored_globs_are_not_indexed(vault, write_note, open_hoard):
    (vault / "hoard.toml").write_text('ignore = ["drafts/**", "**/*.tmp.md"]\n', encoding="utf-8")
    write_note("drafts/d.md", "Draft", "pangolin draft")
    write_note("tech/x.tmp.md", "Tmp", "pangolin temp")
    write_note("tech/real.md", "Real", "pangolin real")

    assert _paths(open_hoard(), "pangolin") == ["tech/real.md"]


def test_the_substring_fallback_is_bounded_in_bytes(vault, write_note, open_hoard, state_dir):
    (vault / "hoard.toml").write_text("[limits]\nfallback_max_bytes = 2048\n", encoding="utf-8")
    for i in range(20):
        write_note(f"tech/n{i}.md", f"Note {i}", "pangolin " + "padding " * 100)
    h = open_hoard()
    conn = sqlite3.connect(state_dir / "index.db")
    conn.execute("DROP TABLE notes_fts")
    conn.commit()
    conn.close()

    result = h.searching.search("pangolin", limit=20, caller=OWNER)

    assert result.engine == "substring-fallback"
    assert 0 < len(result.results) < 20
