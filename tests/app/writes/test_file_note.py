"""vault_file_note: the note and its folder's _INDEX.md line, as one journaled transaction."""

from __future__ import annotations

import json

import pytest

from hoard.app.hoard import Hoard
from hoard.core.policy import OWNER, Caller
from hoard.surfaces.cli.main import run
from tests.helpers import sha

WRITER = Caller("writer", frozenset({"read", "write"}), "direct")


@pytest.fixture
def index_text(note_text):
    def make(body: str) -> str:
        return note_text("Tech index", body, type="index", tags=("index", "tech"))

    return make


def test_file_note_writes_the_note_and_appends_its_link_to_the_folder_index(
    hoard: Hoard, put, note_text, index_text, vault
) -> None:
    old_index = index_text("- [[lamp]]").encode()
    put("tech/_INDEX.md", old_index)
    note = note_text("Kettle", "Boils water.")

    result = hoard.writes.notes.file_note("tech/kettle.md", note, caller=WRITER)

    new_index = (vault / "tech" / "_INDEX.md").read_bytes()
    assert (vault / "tech" / "kettle.md").read_text(encoding="utf-8") == note
    assert new_index == old_index + b"- [[kettle]]\n"
    assert result.status == "written"
    assert isinstance(result.transaction_id, str) and result.transaction_id
    assert result.note_revision == sha(note.encode())
    assert (result.index_path, result.index_revision) == ("tech/_INDEX.md", sha(new_index))
    assert result.index_changed is True


def test_the_index_line_goes_before_the_related_block_which_stays_byte_identical(
    hoard: Hoard, put, index_text, note_text, vault
) -> None:
    related = b"Related:\n- [[hardware]]\n- [[home]]\n"
    old_index = index_text("- [[lamp]]\n").encode() + b"\n" + related
    put("tech/_INDEX.md", old_index)

    hoard.writes.notes.file_note("tech/kettle.md", note_text("Kettle"), caller=WRITER)

    new_index = (vault / "tech" / "_INDEX.md").read_bytes()
    assert new_index.endswith(b"\n" + related)
    assert new_index.index(b"- [[kettle]]\n") < new_index.index(b"\nRelated:\n")
    assert new_index.replace(b"- [[kettle]]\n", b"", 1) == old_index
    assert hoard.maintenance.check().violations == []


@pytest.mark.parametrize("link", ["[[kettle]]", "[[kettle|The kettle]]", "[[tech/kettle]]"])
def test_an_index_that_already_links_the_note_is_left_unchanged(
    hoard: Hoard, put, index_text, note_text, snap, link: str
) -> None:
    old_index = index_text(f"- {link}").encode()
    put("tech/_INDEX.md", old_index)
    before = snap("tech/_INDEX.md")

    result = hoard.writes.notes.file_note("tech/kettle.md", note_text("Kettle"), caller=OWNER)

    assert result.status == "written"
    assert result.index_changed is False
    assert result.index_revision == sha(old_index)
    assert snap("tech/_INDEX.md") == before
    assert snap("tech/kettle.md") is not None


FOLDERS = ["tech", "Projects 2026/sub folder", "index", "café", "#inbox", "[drafts]"]


@pytest.mark.parametrize("folder", FOLDERS)
def test_a_folder_without_an_index_gets_one_that_passes_hoard_check(
    hoard: Hoard, note_text, vault, state_dir, capsys, folder: str
) -> None:
    result = hoard.writes.notes.file_note(f"{folder}/kettle.md", note_text("Kettle"), caller=OWNER)

    assert result.status == "written"
    assert result.index_changed is True
    index = (vault / folder / "_INDEX.md").read_text(encoding="utf-8")
    assert "[[kettle]]" in index
    assert index.startswith("---\n")
    code = run(["check", "--vault", str(vault), "--state-dir", str(state_dir), "--json"])
    report = json.loads(capsys.readouterr().out)
    assert report["violations"] == []
    assert code == 0


def test_a_note_at_the_vault_root_is_filed_in_the_root_index(
    hoard: Hoard, note_text, vault
) -> None:
    result = hoard.writes.notes.file_note("kettle.md", note_text("Kettle"), caller=OWNER)

    assert result.index_path == "_INDEX.md"
    assert "- [[kettle]]\n" in (vault / "_INDEX.md").read_text(encoding="utf-8")
    assert hoard.maintenance.check().violations == []


def test_a_custom_index_line_is_written_as_given(
    hoard: Hoard, put, index_text, note_text, vault
) -> None:
    old_index = index_text("- [[lamp]]").encode()
    put("tech/_INDEX.md", old_index)
    line = "- [[kettle|Kettle]] — boils water, 1.7 l"

    hoard.writes.notes.file_note(
        "tech/kettle.md", note_text("Kettle"), index_line=line, caller=OWNER
    )

    assert (vault / "tech" / "_INDEX.md").read_bytes() == old_index + (line + "\n").encode()


@pytest.mark.parametrize("line", ["", "   ", "- [[a]]\n- [[b]]", "- [[a]]\r"])
def test_an_index_line_that_is_not_one_line_is_an_invalid_argument(
    hoard: Hoard, put, index_text, note_text, snap, line: str
) -> None:
    put("tech/_INDEX.md", index_text("- [[lamp]]"))
    before = snap("tech/_INDEX.md")

    with pytest.raises(Exception) as info:
        hoard.writes.notes.file_note(
            "tech/kettle.md", note_text("Kettle"), index_line=line, caller=OWNER
        )

    assert getattr(info.value, "code", None) == "invalid_argument"
    assert snap("tech/_INDEX.md") == before
    assert snap("tech/kettle.md") is None


def test_filing_the_index_itself_is_an_invalid_argument(hoard: Hoard, index_text, snap) -> None:
    with pytest.raises(Exception) as info:
        hoard.writes.notes.file_note("tech/_INDEX.md", index_text("- [[x]]"), caller=OWNER)

    assert getattr(info.value, "code", None) == "invalid_argument"
    assert snap("tech/_INDEX.md") is None


def test_a_note_breaking_the_contract_files_nothing(hoard: Hoard, put, index_text, snap) -> None:
    put("tech/_INDEX.md", index_text("- [[lamp]]"))
    before = snap("tech/_INDEX.md")

    with pytest.raises(Exception) as info:
        hoard.writes.notes.file_note("tech/kettle.md", "# Kettle\n", caller=OWNER)

    assert getattr(info.value, "code", None) == "contract_violation"
    assert snap("tech/kettle.md") is None
    assert snap("tech/_INDEX.md") == before
    assert (
        hoard.writes.retirement.history("tech/kettle.md", caller=OWNER).events[-1].decision
        == "refused"
    )


def test_an_index_breaking_the_contract_blocks_the_filing_and_nothing_is_written(
    hoard: Hoard, put, note_text, snap
) -> None:
    put("tech/_INDEX.md", "# Tech\n\n- [[lamp]]\n")  # no frontmatter
    before = snap("tech/_INDEX.md")

    with pytest.raises(Exception) as info:
        hoard.writes.notes.file_note("tech/kettle.md", note_text("Kettle"), caller=OWNER)

    assert getattr(info.value, "code", None) == "contract_violation"
    assert snap("tech/kettle.md") is None
    assert snap("tech/_INDEX.md") == before


def test_file_note_overwrites_with_the_expected_revision_and_preserves_the_prior_note(
    hoard: Hoard, put, index_text, note_text, vault
) -> None:
    old = note_text("Kettle", "Old words.").encode()
    put("tech/kettle.md", old)
    put("tech/_INDEX.md", index_text("- [[lamp]]"))
    new = note_text("Kettle", "New words.")

    result = hoard.writes.notes.file_note(
        "tech/kettle.md", new, expected_revision=sha(old), caller=OWNER
    )

    assert result.status == "written"
    assert (vault / "tech" / "kettle.md").read_text(encoding="utf-8") == new
    [preserved] = hoard.writes.retirement.history("tech/kettle.md", caller=OWNER).revisions
    assert (
        hoard.writes.retirement.history(
            revision_id=preserved.revision_id, caller=OWNER
        ).content.encode()
        == old
    )


def test_file_note_over_an_existing_note_without_expected_revision_is_exists(
    hoard: Hoard, put, index_text, note_text, snap
) -> None:
    old = note_text("Kettle", "Old words.").encode()
    put("tech/kettle.md", old)
    put("tech/_INDEX.md", index_text("- [[lamp]]"))
    before = (snap("tech/kettle.md"), snap("tech/_INDEX.md"))

    with pytest.raises(Exception) as info:
        hoard.writes.notes.file_note("tech/kettle.md", note_text("Kettle", "New."), caller=OWNER)

    assert getattr(info.value, "code", None) == "exists"
    assert info.value.to_object()["current_revision"] == sha(old)
    assert (snap("tech/kettle.md"), snap("tech/_INDEX.md")) == before


def test_the_transaction_is_recorded_done_and_both_writes_carry_its_id(
    hoard: Hoard, put, index_text, note_text
) -> None:
    put("tech/_INDEX.md", index_text("- [[lamp]]"))

    result = hoard.writes.notes.file_note("tech/kettle.md", note_text("Kettle"), caller=OWNER)

    [item] = hoard.writes.notes.recover(result.transaction_id, caller=OWNER).transactions
    assert (item.transaction_id, item.state) == (result.transaction_id, "done")
    for path in ("tech/kettle.md", "tech/_INDEX.md"):
        [event] = hoard.writes.retirement.history(path, caller=OWNER).events
        assert (event.tool, event.decision, event.reason) == (
            "vault_file_note",
            "written",
            result.transaction_id,
        )


def test_a_filed_note_is_searchable_and_linked_from_the_index_right_away(
    hoard: Hoard, put, index_text, note_text
) -> None:
    put("tech/_INDEX.md", index_text("- [[lamp]]"))

    hoard.writes.notes.file_note(
        "tech/kettle.md", note_text("Kettle", "A thermoglyph kettle."), caller=OWNER
    )

    assert [h.path for h in hoard.searching.search("thermoglyph", caller=OWNER).results] == [
        "tech/kettle.md"
    ]
    assert "tech/_INDEX.md" in hoard.reading.links("tech/kettle.md", caller=OWNER).backlinks
