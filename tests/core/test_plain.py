"""A snippet shown to a person reads as text: Markdown's syntax is taken out, its words kept."""

from __future__ import annotations

import pytest

from hoard.core.plain import plain_text


@pytest.mark.parametrize(
    ("snippet", "shown"),
    [
        ("## Restore **every** night", "Restore every night"),
        ("see [[ops/restore|the runbook]] first", "see the runbook first"),
        ("see [[ops/restore]] first", "see restore first"),
        ("see [[ops/restore#Steps]] first", "see restore › Steps first"),
        ('read [the docs](https://example.com/a "A") now', "read the docs now"),
        ("| host | port | |---|---| | db | 5432 |", "host · port · db · 5432"),
        ("- first item - [ ] open task * starred", "first item open task starred"),
        ("> quoted _words_ and `code`", "quoted words and code"),
        ("``` python x = 1 ```", "python x = 1"),
        ("…ops/restore|the runbook]] tail", "…the runbook tail"),
        ("tail [[ops/restore|the run…", "tail the run…"),
    ],
)
def test_markdown_syntax_is_taken_out_of_a_snippet(snippet: str, shown: str) -> None:
    assert plain_text(snippet) == shown


@pytest.mark.parametrize(
    "text",
    [
        "snake_case and 2*3*4 stay",
        "the #homelab tag stays",
        "每天晚上做一次数据库备份，保存七天。",
        "ภาษาไทยเป็นภาษาที่สวยงามมาก",
    ],
)
def test_plain_text_is_left_as_it_is(text: str) -> None:
    assert plain_text(text) == text
