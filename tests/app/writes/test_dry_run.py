"""dry_run: every gate is evaluated, nothing is written, and contract problems are reported in
the preflight instead of raised."""

from __future__ import annotations

import pytest

from hoard.app.hoard import Hoard
from hoard.core.policy import LOCAL_DEFAULT, OWNER, Caller
from tests.helpers import sha

WRITER = Caller("writer", frozenset({"read", "write"}), "direct")


@pytest.fixture
def lamp(put, note_text) -> bytes:
    raw = note_text("Lamp", "The desk lamp.").encode()
    put("tech/lamp.md", raw)
    return raw


def test_a_dry_run_create_writes_nothing_and_reports_create(hoard: Hoard, vault, note_text) -> None:
    text = note_text("Fresh", "Brand new.")

    result = hoard.writes.write("tech/fresh.md", text, dry_run=True, caller=OWNER)

    assert result.status == "dry_run"
    assert result.revision == sha(text.encode())
    assert result.previous_revision is None
    assert result.preflight is not None
    assert result.preflight.current_revision is None
    assert result.preflight.revision_check == "create"
    assert result.preflight.violations == []
    assert not (vault / "tech" / "fresh.md").exists()
    assert hoard.writes.retirement.history("tech/fresh.md", caller=OWNER).events == []


@pytest.mark.parametrize(
    ("expected", "check"),
    [("current", "overwrite"), (None, "exists"), ("0" * 64, "conflict")],
    ids=["right-revision", "no-revision", "wrong-revision"],
)
def test_a_dry_run_over_an_existing_note_reports_the_revision_check_and_changes_nothing(
    hoard: Hoard, lamp, snap, note_text, expected: str | None, check: str
) -> None:
    before = snap("tech/lamp.md")
    text = note_text("Lamp", "A brighter lamp.")

    result = hoard.writes.write(
        "tech/lamp.md",
        text,
        sha(lamp) if expected == "current" else expected,
        dry_run=True,
        caller=OWNER,
    )

    assert result.status == "dry_run"
    assert result.preflight.current_revision == sha(lamp)
    assert result.preflight.revision_check == check
    assert snap("tech/lamp.md") == before
    assert "+A brighter lamp." in (result.diff or "")
    assert "-The desk lamp." in (result.diff or "")


def test_a_dry_run_with_an_expected_revision_for_a_missing_note_reports_conflict(
    hoard: Hoard, vault, note_text
) -> None:
    result = hoard.writes.write(
        "tech/ghost.md", note_text("Ghost"), "a" * 64, dry_run=True, caller=OWNER
    )

    assert result.preflight.revision_check == "conflict"
    assert result.preflight.current_revision is None
    assert not (vault / "tech" / "ghost.md").exists()


def test_a_dry_run_never_errors_for_contract_problems_and_lists_them(
    hoard: Hoard, lamp, snap
) -> None:
    before = snap("tech/lamp.md")
    broken = "---\ntitle: Lamp\ntags: [Alpha]\nupdated: 2026-02-30\n---\nno final newline"

    result = hoard.writes.write("tech/lamp.md", broken, sha(lamp), dry_run=True, caller=OWNER)

    assert result.status == "dry_run"
    rules = {(v["field"], v["rule"]) for v in result.preflight.violations}
    assert {
        ("type", "required"),
        ("status", "required"),
        ("tags", "tags_count"),
        ("tags", "tag_format"),
        ("updated", "date_invalid"),
        ("file", "final_newline"),
    } <= rules
    for v in result.preflight.violations:
        assert set(v) == {"field", "rule", "message"}
    assert snap("tech/lamp.md") == before


def test_a_dry_run_without_frontmatter_lists_frontmatter_missing(hoard: Hoard) -> None:
    result = hoard.writes.write("tech/bare.md", "# Bare\n", dry_run=True, caller=OWNER)

    assert [v["rule"] for v in result.preflight.violations] == ["frontmatter_missing"]


def test_a_dry_run_reports_a_related_block_change_as_a_violation(
    hoard: Hoard, put, note_text, snap
) -> None:
    raw = (note_text("Shelf", "A shelf.") + "\nRelated:\n- [[lamp]]\n").encode()
    put("tech/shelf.md", raw)
    before = snap("tech/shelf.md")

    result = hoard.writes.write(
        "tech/shelf.md", note_text("Shelf", "A shelf."), sha(raw), dry_run=True, caller=WRITER
    )

    assert "related_block" in {v["rule"] for v in result.preflight.violations}
    assert snap("tech/shelf.md") == before


def test_a_dry_run_by_a_propose_mode_caller_is_a_dry_run_not_a_proposal(
    hoard: Hoard, vault, note_text
) -> None:
    result = hoard.writes.write(
        "tech/idea.md", note_text("Idea"), dry_run=True, caller=LOCAL_DEFAULT
    )

    assert result.status == "dry_run"
    assert result.proposal_id is None
    assert hoard.writes.proposals(caller=OWNER).proposals == []
    assert not (vault / "tech" / "idea.md").exists()


def test_a_dry_run_hints_at_most_five_notes_with_the_same_file_name_elsewhere(
    put, note_text, open_hoard
) -> None:
    for i in range(7):
        put(f"folder{i}/lamp.md", note_text(f"Lamp {i}"))
    put("tech/other.md", note_text("Other"))
    hoard = open_hoard()

    result = hoard.writes.write("tech/lamp.md", note_text("Lamp"), dry_run=True, caller=OWNER)

    dups = result.preflight.duplicates
    assert len(dups) == 5
    assert len(set(dups)) == 5
    assert all(d.startswith("folder") and d.endswith("/lamp.md") for d in dups)


def test_a_dry_run_hints_the_few_duplicates_there_are_and_not_the_note_itself(
    put, note_text, open_hoard
) -> None:
    put("life/lamp.md", note_text("Lamp at home"))
    put("tech/lamp.md", note_text("Lamp"))
    put("tech/other.md", note_text("Other"))
    hoard = open_hoard()
    raw = (hoard.vault.root / "tech" / "lamp.md").read_bytes()

    over = hoard.writes.write(
        "tech/lamp.md", note_text("Lamp", "v2"), sha(raw), dry_run=True, caller=OWNER
    )
    unique = hoard.writes.write("tech/unique.md", note_text("Unique"), dry_run=True, caller=OWNER)

    assert over.preflight.duplicates == ["life/lamp.md"]
    assert unique.preflight.duplicates == []


def test_a_dry_run_says_when_the_folder_index_is_missing(hoard: Hoard, note_text) -> None:
    result = hoard.writes.write("tech/fresh.md", note_text("Fresh"), dry_run=True, caller=OWNER)

    assert any("tech/_INDEX.md" in o for o in result.preflight.obligations)


def test_a_dry_run_says_when_the_folder_index_does_not_link_the_note(
    hoard: Hoard, put, note_text
) -> None:
    put("tech/_INDEX.md", note_text("Tech index", "- [[other]]", type="index"))

    result = hoard.writes.write("tech/fresh.md", note_text("Fresh"), dry_run=True, caller=OWNER)

    assert len(result.preflight.obligations) == 1
    assert "tech/_INDEX.md" in result.preflight.obligations[0]
    assert "fresh" in result.preflight.obligations[0]


@pytest.mark.parametrize("link", ["[[fresh]]", "[[fresh|The fresh note]]", "[[tech/fresh]]"])
def test_a_dry_run_has_no_index_obligation_when_the_index_links_the_note(
    hoard: Hoard, put, note_text, link: str
) -> None:
    put("tech/_INDEX.md", note_text("Tech index", f"- {link}", type="index"))

    result = hoard.writes.write("tech/fresh.md", note_text("Fresh"), dry_run=True, caller=OWNER)

    assert result.preflight.obligations == []


def test_a_dry_run_of_a_private_note_has_no_index_obligation(hoard: Hoard) -> None:
    result = hoard.writes.write("personal-notes/diary.md", "# Diary\n", dry_run=True, caller=OWNER)

    assert result.preflight.obligations == []
    assert result.preflight.violations == []


def test_a_dry_run_of_file_note_changes_neither_the_note_nor_the_index(
    hoard: Hoard, put, note_text, snap
) -> None:
    put("tech/_INDEX.md", note_text("Tech index", "- [[other]]", type="index"))
    before = snap("tech/_INDEX.md")

    result = hoard.writes.notes.file_note(
        "tech/fresh.md", note_text("Fresh"), dry_run=True, caller=OWNER
    )

    assert result.status == "dry_run"
    assert result.transaction_id is None
    assert result.index_changed is True
    assert result.preflight.revision_check == "create"
    assert snap("tech/fresh.md") is None
    assert snap("tech/_INDEX.md") == before
