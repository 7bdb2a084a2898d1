"""What "a save keeps a write" means: every line the write added is still a line of the
saved bytes, wherever it is; trailing white space and blank lines do not count."""

from __future__ import annotations

from hoard.core.clobber import keeps_write, lines_added

BEFORE = b"# Lamp\n\nIn the hall.\n"
WRITTEN = b"# Lamp\n\nIn the hall.\n\nA glimmerquartz bulb.\n"


def test_the_lines_a_write_added_are_those_the_replaced_revision_lacked() -> None:
    assert lines_added(BEFORE, WRITTEN) == {"A glimmerquartz bulb."}
    assert lines_added(None, WRITTEN) == {"# Lamp", "In the hall.", "A glimmerquartz bulb."}


def test_a_save_from_a_buffer_read_before_the_write_does_not_keep_it() -> None:
    assert not keeps_write(BEFORE, WRITTEN, b"# Lamp\n\nIn the hall, by the door.\n")


def test_a_save_that_moved_the_writes_lines_or_added_its_own_keeps_it() -> None:
    saved = b"A glimmerquartz bulb.   \n# Lamp\n\nIn the hall, by the door.\n\nMore.\n"
    assert keeps_write(BEFORE, WRITTEN, saved)


def test_a_write_that_only_removed_lines_is_kept_by_any_save() -> None:
    assert keeps_write(WRITTEN, BEFORE, b"something else entirely\n")
