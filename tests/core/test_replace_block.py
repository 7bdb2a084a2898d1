"""The replace_block edit: the marked paragraph or list item is replaced, its id kept."""

from __future__ import annotations

import pytest

from hoard.core.edits import apply_edits, parse_edits
from hoard.core.errors import InvalidArgument, NotFound

NOTE = "---\ntitle: T\n---\n# T\n\nOld text\nstill old ^p1\n\n- a\n- b ^item\n- c\n\n|x|\n\n^tbl\n"


def run(text: str, block: str, new: str) -> str:
    return apply_edits(text, parse_edits([{"op": "replace_block", "block": block, "text": new}]))


def test_replace_block_replaces_the_paragraph_and_keeps_its_id() -> None:
    out = run(NOTE, "p1", "New text")
    assert "\nNew text ^p1\n\n- a\n" in out
    assert "Old text" not in out


def test_replace_block_replaces_one_list_item_only() -> None:
    assert "- a\n- B! ^item\n- c\n" in run(NOTE, "^item", "- B!")


def test_replace_block_keeps_an_id_the_new_text_already_ends_with() -> None:
    assert "- a\n- new ^item\n- c\n" in run(NOTE, "item", "- new ^item")


def test_replace_block_of_an_id_on_its_own_line_keeps_that_line() -> None:
    assert run(NOTE, "tbl", "|y|").endswith("\n\n|y|\n\n^tbl\n")


def test_replace_block_keeps_crlf_line_ends() -> None:
    crlf = NOTE.replace("\n", "\r\n")
    assert "\r\nOne\r\nTwo ^p1\r\n\r\n" in run(crlf, "p1", "One\nTwo")


def test_replace_block_of_a_missing_block_is_not_found() -> None:
    with pytest.raises(NotFound, match=r"no block \^gone"):
        run(NOTE, "gone", "x")


def test_replace_block_needs_a_block_and_text() -> None:
    with pytest.raises(InvalidArgument):
        parse_edits([{"op": "replace_block", "block": "", "text": "x"}])
    with pytest.raises(InvalidArgument):
        parse_edits([{"op": "replace_block", "block": "p1", "text": "x", "heading": "T"}])
