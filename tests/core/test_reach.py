"""The folders a caller may read and write (pure rules)."""

from __future__ import annotations

import pytest

from hoard.core.reach import (
    Sight,
    checked_reach,
    counts_as_hidden,
    folder_in_reach,
    glob_in_reach,
    in_reach,
    may_write,
    parse_globs,
)

READ = ("team/**", "shared/**")
WRITE = ("team/alice/**",)


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("team/alice/x.md", True),
        ("team/x.md", True),
        ("shared/deep/x.md", True),
        ("other/x.md", False),
        ("teams/x.md", False),
        ("Team/x.md", False),
        ("x.md", False),
    ],
)
def test_a_note_is_in_reach_only_when_a_read_glob_matches_it(path: str, expected: bool) -> None:
    assert in_reach(path, READ) is expected


@pytest.mark.parametrize(
    ("folder", "globs", "expected"),
    [
        ("team/", ("team/alice/**",), True),
        ("team/alice/", ("team/alice/**",), True),
        ("team/alice/deep/", ("team/alice/**",), True),
        ("team/bob/", ("team/alice/**",), False),
        ("other/", ("team/alice/**",), False),
        ("", ("team/alice/**",), True),
        ("any/where/", ("**/*.md",), True),
    ],
)
def test_a_folder_is_in_reach_on_the_way_to_or_inside_a_glob(
    folder: str, globs: tuple[str, ...], expected: bool
) -> None:
    assert folder_in_reach(folder, globs) is expected
    assert in_reach(folder, globs) is expected or folder == ""


@pytest.mark.parametrize(
    ("path", "expected"),
    [("team/alice/x.md", True), ("team/bob/x.md", False), ("shared/x.md", False)],
)
def test_a_write_needs_both_the_read_and_the_write_globs(path: str, expected: bool) -> None:
    assert may_write(path, READ, WRITE) is expected


def test_without_write_globs_a_caller_writes_where_it_reads_and_without_any_everywhere() -> None:
    assert may_write("shared/x.md", READ, ())
    assert not may_write("other/x.md", READ, ())
    assert may_write("other/x.md", (), ())


def test_globs_are_parsed_from_commas_and_a_climbing_glob_is_refused() -> None:
    assert parse_globs(" team/** , shared/**,,team/**") == ("team/**", "shared/**")
    assert parse_globs("") == () and parse_globs(None) == ()
    with pytest.raises(ValueError, match="inside the vault"):
        parse_globs("team/../secret/**")


@pytest.mark.parametrize(
    ("read", "write", "refused"),
    [
        ("team/**", "team/alice/**", None),
        ("team/**", "**", "**"),
        ("team/**", "other/**", "other/**"),
        ("team/*.md", "team/**", "team/**"),
        ("", "team/alice/**", None),
    ],
)
def test_write_globs_reaching_past_the_read_globs_are_refused_by_name(
    read: str, write: str, refused: str | None
) -> None:
    if refused is None:
        checked_reach(read, write)
        return
    with pytest.raises(ValueError, match="outside the read globs") as err:
        checked_reach(read, write)
    assert refused in str(err.value)


def test_a_protected_glob_is_named_only_when_it_may_reach_into_the_callers_folders() -> None:
    assert glob_in_reach("team/locked/**", READ)
    assert not glob_in_reach("secret/**", READ)
    assert glob_in_reach("**/secret.md", READ)


def test_a_note_outside_the_folders_is_not_counted_as_hidden_but_a_protected_one_is() -> None:
    sight = Sight(READ, lambda p: not p.startswith("team/locked/"))
    assert not sight("other/x.md") and not counts_as_hidden(sight, "other/x.md")
    assert not sight("team/locked/x.md") and counts_as_hidden(sight, "team/locked/x.md")
    assert counts_as_hidden(lambda p: False, "other/x.md"), "no folders: every refusal counts"
