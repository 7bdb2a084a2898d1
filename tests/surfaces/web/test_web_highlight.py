"""The web app's snippet highlight marks query words in every script."""

from __future__ import annotations

import pytest

from hoard.surfaces.web.filters import highlight


@pytest.mark.parametrize(
    ("snippet", "query", "marked"),
    [
        ("每天晚上做一次数据库备份，保存七天。", "备份", "备份"),
        ("来週は東京へ行って、新幹線で大阪にも行きます。", "新幹線", "新幹線"),
        ("김치찌개는 돼지고기와 두부를 넣어 끓입니다.", "김치", "김치"),
        ("ภาษาไทยเป็นภาษาที่สวยงามมาก", "ที่สวย", "ที่สวย"),
        ("Back up the database every night.", "databases", "database"),
    ],
)
def test_the_highlight_marks_the_matched_characters_whole(
    snippet: str, query: str, marked: str
) -> None:
    assert f"<mark>{marked}</mark>" in str(highlight(snippet, query))
