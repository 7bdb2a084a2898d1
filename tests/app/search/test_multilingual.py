"""Words of scripts written without spaces (Chinese, Japanese, Korean, Thai) are found inside
longer runs, and Latin, Cyrillic and Arabic text scores exactly as before the side columns."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest

from hoard.adapters.index.schema import SCHEMA_VERSION
from hoard.app.hoard import Hoard
from hoard.core.policy import OWNER
from tests.helpers import make_vault, note_text

CJK_NOTES = {
    "db.md": note_text("数据库备份", "每天晚上做一次数据库备份，保存七天。"),
    "travel/tokyo.md": note_text(
        "東京旅行の計画", "来週は東京へ行って、新幹線で大阪にも行きます。"
    ),
    "food/kimchi.md": note_text("김치찌개", "김치찌개는 돼지고기와 두부를 넣어 끓입니다."),
    "th/lang.md": note_text("ภาษา", "ภาษาไทยเป็นภาษาที่สวยงามมากและมีประวัติยาวนาน"),
    "en/sqlite.md": note_text("SQLite notes", "SQLite is a small database engine."),
    "zh/sqlite.md": note_text("笔记", "SQLite数据库很小，备份只要复制一个文件。"),
}


@pytest.fixture
def cjk(tmp_path: Path, open_hoard: Callable[..., Hoard]) -> Hoard:
    return open_hoard(make_vault(tmp_path / "cjk", CJK_NOTES), tmp_path / "cjk-state")


def paths(h: Hoard, query: str) -> list[str]:
    return [r.path for r in h.searching.search(query, caller=OWNER).results]


@pytest.mark.parametrize(
    ("query", "note"),
    [
        ("数据库", "db.md"),
        ("备份", "db.md"),
        ("東京", "travel/tokyo.md"),
        ("新幹線", "travel/tokyo.md"),
        ("김치", "food/kimchi.md"),
        ("두부", "food/kimchi.md"),
        ("สวยงาม", "th/lang.md"),
        ("ประวัติ", "th/lang.md"),
    ],
)
def test_a_word_inside_a_longer_run_finds_its_note(cjk: Hoard, query: str, note: str) -> None:
    assert note in paths(cjk, query)[:1] or paths(cjk, query)[0] == note


def test_a_word_in_the_title_ranks_its_note_above_one_holding_it_in_the_body(cjk: Hoard) -> None:
    assert paths(cjk, "数据库")[:2] == ["db.md", "zh/sqlite.md"]


@pytest.mark.parametrize(
    ("query", "note"), [("幹", "travel/tokyo.md"), ("찌", "food/kimchi.md"), ("份", "db.md")]
)
def test_a_query_of_one_character_finds_notes_holding_it_anywhere_in_a_run(
    cjk: Hoard, query: str, note: str
) -> None:
    assert note in paths(cjk, query)


def test_a_mixed_query_finds_latin_and_chinese_notes_even_a_word_written_against_a_run(
    cjk: Hoard,
) -> None:
    found = paths(cjk, "SQLite 数据库")
    assert set(found) == {"en/sqlite.md", "zh/sqlite.md", "db.md"}
    assert found.index("zh/sqlite.md") < found.index("db.md")  # both words beat one
    assert "zh/sqlite.md" in paths(cjk, "sqlite")  # written as SQLite数据库


def test_a_run_that_is_not_in_any_note_finds_nothing_rather_than_its_single_characters(
    cjk: Hoard,
) -> None:
    assert paths(cjk, "库数") == []


@pytest.mark.parametrize(
    ("query", "shown"),
    [
        ("新幹線", "新幹線"),
        ("备份", "备份"),
        ("김치", "김치"),
        ("สวยงาม", "สวยงาม"),
    ],
)
def test_snippets_show_the_original_text_around_the_matched_characters(
    cjk: Hoard, query: str, shown: str
) -> None:
    hit = cjk.searching.search(query, caller=OWNER).results[0]
    assert shown in hit.snippet


def test_a_long_unspaced_body_has_a_snippet_holding_the_match(
    tmp_path: Path, open_hoard: Callable[..., Hoard]
) -> None:
    body = "这是一个很长的句子" * 40 + "数据库备份" + "然后我们继续写很多字" * 40
    h = open_hoard(make_vault(tmp_path / "long", {"a.md": note_text("长", body)}), tmp_path / "s")
    assert "数据库" in h.searching.search("数据库", caller=OWNER).results[0].snippet


def test_a_chinese_query_gets_no_typo_correction(cjk: Hoard) -> None:
    res = cjk.searching.search("数剧库", caller=OWNER)  # one character wrong
    assert res.results == []
    assert not [w for w in res.warnings if w.code == "typo_corrected"]


# -- Latin, Cyrillic and Arabic: exactly as before ------------------------------------------

LATIN_NOTES = {
    "db/backup.md": note_text(
        "Database backup", "Back up the SQLite database every night; keep seven copies."
    ),
    "db/restore.md": note_text(
        "Restoring a database", "Restore from the newest backup, then check the database."
    ),
    "trips/prague.md": note_text(
        "Praha", "Výlet do Prahy: Karlův most, Staroměstské náměstí, trdelník."
    ),
    "trips/aarhus.md": note_text("Århus", "Smørrebrød og øl i Aarhus; besøg ARoS."),
    "ru/moscow.md": note_text("Москва", "Поездка в Москву: Красная площадь и метро."),
    "ar/cairo.md": note_text("القاهرة", "رحلة إلى القاهرة والأهرامات"),
    "home/assistant.md": note_text(
        "Home Assistant", "Home automation with Zigbee lights and the Hue bridge."
    ),
}

BEFORE = {
    # Recorded from the index before it had side columns (same notes, same queries).
    "database backup": [("db/backup.md", 7.27071), ("db/restore.md", 4.53824)],
    "backups": [("db/backup.md", 3.01849), ("db/restore.md", 1.50734)],
    "prahy most": [("trips/prague.md", 6.0298)],
    "aarhus": [("trips/aarhus.md", 4.20719)],
    "smorrebrod": [("trips/aarhus.md", 2.76449)],
    "москва": [("ru/moscow.md", 5.66719)],
    "площадь": [("ru/moscow.md", 3.06111)],
    "القاهرة": [("ar/cairo.md", 5.80045)],
    "zigbee lights": [("home/assistant.md", 6.92224)],
    "databse": [("db/backup.md", 0.91213), ("db/restore.md", 0.909269)],
}


def test_latin_cyrillic_and_arabic_notes_score_exactly_as_before_the_side_columns(
    tmp_path: Path, open_hoard: Callable[..., Hoard]
) -> None:
    h = open_hoard(make_vault(tmp_path / "latin", LATIN_NOTES), tmp_path / "latin-state")
    got = {
        q: [(r.path, r.score) for r in h.searching.search(q, caller=OWNER).results] for q in BEFORE
    }
    assert got == BEFORE


def test_a_vault_without_these_scripts_leaves_the_side_columns_empty(
    tmp_path: Path, open_hoard: Callable[..., Hoard]
) -> None:
    state = tmp_path / "latin-state"
    h = open_hoard(make_vault(tmp_path / "latin", LATIN_NOTES), state)
    h.searching.search("backup", caller=OWNER)
    with sqlite3.connect(state / "index.db") as conn:
        filled = conn.execute(
            "SELECT count(*) FROM notes_fts WHERE title_seg != '' OR body_seg != ''"
        ).fetchone()[0]
    assert filled == 0


def test_an_index_of_the_previous_format_is_rebuilt_with_the_side_columns(
    tmp_path: Path, open_hoard: Callable[..., Hoard]
) -> None:
    vault = make_vault(tmp_path / "cjk", CJK_NOTES)
    state = tmp_path / "state"
    open_hoard(vault, state).close()
    with sqlite3.connect(state / "index.db") as conn:
        fp = conn.execute("SELECT value FROM meta WHERE key='fingerprint'").fetchone()[0]
        old = fp.replace(f'"v": {SCHEMA_VERSION}', f'"v": {SCHEMA_VERSION - 1}')
        assert old != fp
        conn.execute("UPDATE meta SET value=? WHERE key='fingerprint'", (old,))
    assert paths(open_hoard(vault, state), "数据库")[0] == "db.md"
