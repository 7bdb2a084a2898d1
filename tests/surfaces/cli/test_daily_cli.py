"""``hoard daily``: the daily note's path, made with --create."""

from __future__ import annotations

import json

from hoard.surfaces.cli.main import run


def test_hoard_daily_prints_the_path_and_creates_with_create(tmp_path, capsys):
    vault = tmp_path / "v"
    (vault / ".obsidian").mkdir(parents=True)
    (vault / ".obsidian" / "daily-notes.json").write_text(
        '{"folder": "log", "format": "YYYY-[W]WW-E"}'
    )
    common = ["--vault", str(vault), "--state-dir", str(tmp_path / "state")]

    assert run(["daily", "--date", "2026-03-05", *common]) == 0
    out, err = capsys.readouterr()
    assert out == "log/2026-W10-4.md\n" and "missing: 2026-03-05" in err
    assert run(["daily", "--date", "2026-03-05", "--create", "--json", *common]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["status"] == "written" and data["path"] == "log/2026-W10-4.md"
    assert (vault / "log" / "2026-W10-4.md").read_text().startswith("---\ntitle: ")
    assert run(["daily", "--date", "2026-13-01", *common]) == 2
    assert "invalid_argument" in capsys.readouterr().err
