"""Ticking a task changes exactly the one character between its brackets."""

from __future__ import annotations

import pytest

from hoard.core.errors import InvalidArgument
from hoard.core.tasks import toggle_task

TEXT = (
    "# Todo\r\n\r\n- [ ] one\r\n  * [x] two\r\n3. [ ] three\r\n> - [ ] quoted\r\nplain [ ] line\r\n"
)


@pytest.mark.parametrize(("line", "checked"), [(2, True), (3, False), (4, True), (5, True)])
def test_ticking_a_task_changes_one_character_and_keeps_the_newlines(
    line: int, checked: bool
) -> None:
    after = toggle_task(TEXT, line, checked)
    diff = [i for i, (a, b) in enumerate(zip(TEXT, after, strict=True)) if a != b]
    assert len(diff) == 1
    assert after[diff[0]] == ("x" if checked else " ")
    start = len("".join(TEXT.splitlines(keepends=True)[:line]))
    assert TEXT[diff[0] - 1 : diff[0] + 2] in ("[ ]", "[x]")
    assert start < diff[0] < start + len(TEXT.splitlines()[line])


def test_a_task_already_in_the_asked_state_is_left_as_it_is() -> None:
    assert toggle_task(TEXT, 3, True) == TEXT


@pytest.mark.parametrize("line", [0, 1, 6, 7, -1])
def test_a_line_that_is_not_a_task_is_refused(line: int) -> None:
    with pytest.raises(InvalidArgument):
        toggle_task(TEXT, line, True)


def test_lines_are_counted_at_newlines_only_as_the_page_counts_them() -> None:
    text = "intro\u2028still intro\x0c\n- [ ] one\n- [ ] two\n"
    assert toggle_task(text, 2, True) == "intro\u2028still intro\x0c\n- [ ] one\n- [x] two\n"
