"""vault_move: every link form rewritten in every linking note, both _INDEX.md files
updated, one journaled transaction; refusals change nothing."""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from hoard.app.hoard import Hoard
from hoard.core.errors import HoardError
from hoard.core.policy import OWNER, Caller

WRITER = Caller("writer", frozenset({"read", "write"}), "direct")


def fm(title: str, type_: str = "note") -> str:
    tags = "index, tech" if type_ == "index" else "home, light"
    return (
        f"---\ntitle: {title}\ntype: {type_}\nstatus: active\ntags: [{tags}]\n"
        "updated: 2026-03-01\n---\n"
    )


LAMP = fm("Lamp") + "# Lamp\n\nSee [[lamp#Setup]] and [the desk](../life/desk.md).\n\n## Setup\nx\n"
DESK = fm("Desk") + (
    "Links: [[lamp]], [[lamp|the lamp]], [[ lamp#Setup ]], ![[lamp]], [[tech/lamp]],\n"
    "[[tech/lamp.md|by path]], [a link](../tech/lamp.md#setup) and <[[nothere]]>.\n"
    "```\n[[lamp]] in a fence\n```\n`[[lamp]]` inline, and [[lamplight]] is another note.\n"
)
DESK_AFTER = fm("Desk") + (
    "Links: [[light]], [[light|the lamp]], [[ light#Setup ]], ![[light]], [[projects/light]],\n"
    "[[projects/light.md|by path]], [a link](../projects/light.md#setup) and <[[nothere]]>.\n"
    "```\n[[lamp]] in a fence\n```\n`[[lamp]]` inline, and [[lamplight]] is another note.\n"
)
TECH_INDEX = fm("Tech", "index") + "# Tech\n\n- [[lamp]] the lamp\n- [[lamplight]]\n"
PROJECTS_INDEX = fm("Projects", "index") + "# Projects\n\n- [[plan]]\n"


def sha(raw: bytes) -> str:
    return hashlib.sha256(raw).hexdigest()


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    root = tmp_path / "vault"
    files = {
        "tech/lamp.md": LAMP,
        "tech/lamplight.md": fm("Lamplight") + "Not the lamp.\n",
        "tech/_INDEX.md": TECH_INDEX,
        "life/desk.md": DESK,
        "projects/_INDEX.md": PROJECTS_INDEX,
        "personal-notes/diary.md": "the [[lamp]] flickers\n",
    }
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    return root


@pytest.fixture
def hoard(vault: Path, tmp_path: Path) -> Iterator[Hoard]:
    with Hoard(vault, tmp_path / "state") as h:
        yield h


def read(vault: Path, rel: str) -> str | None:
    p = vault / rel
    return p.read_text(encoding="utf-8") if p.exists() else None


def snapshot(vault: Path) -> dict[str, bytes]:
    return {str(p.relative_to(vault)): p.read_bytes() for p in vault.rglob("*") if p.is_file()}


def lamp_rev(vault: Path) -> str:
    return sha((vault / "tech" / "lamp.md").read_bytes())


def test_a_move_rewrites_every_link_form_and_both_indexes(hoard: Hoard, vault: Path) -> None:
    result = hoard.moves.move("tech/lamp.md", "projects/light.md", lamp_rev(vault), caller=WRITER)
    assert result.status == "moved"
    assert result.transaction_id is not None
    assert read(vault, "tech/lamp.md") is None
    assert read(vault, "projects/light.md") == LAMP.replace("[[lamp#Setup]]", "[[light#Setup]]")
    assert read(vault, "life/desk.md") == DESK_AFTER
    assert read(vault, "tech/_INDEX.md") == TECH_INDEX.replace("- [[lamp]] the lamp\n", "")
    assert read(vault, "projects/_INDEX.md") == PROJECTS_INDEX + "- [[light]] the lamp\n"
    assert read(vault, "personal-notes/diary.md") == "the [[lamp]] flickers\n"
    assert result.not_rewritten == ["personal-notes/diary.md"]
    roles = {f.path: f.role for f in result.files}
    assert roles == {
        "projects/light.md": "note",
        "life/desk.md": "link",
        "tech/_INDEX.md": "index",
        "projects/_INDEX.md": "index",
        "tech/lamp.md": "old",
    }
    # Nothing lost: every prior version is in the ledger; the index follows the move.
    kept = hoard.writes.retirement.history("life/desk.md", caller=OWNER).revisions
    assert (
        hoard.writes.retirement.history(revision_id=kept[-1].revision_id, caller=OWNER).content
        == DESK
    )
    assert hoard.reading.links("projects/light.md", caller=OWNER).backlinks == [
        "life/desk.md",
        "projects/_INDEX.md",
        "projects/light.md",
    ]
    assert hoard.writes.notes.recover(caller=OWNER).transactions == []


def test_a_rename_in_place_keeps_relative_links_and_one_index(hoard: Hoard, vault: Path) -> None:
    hoard.moves.move("tech/lamp.md", "tech/desk-lamp.md", lamp_rev(vault), caller=WRITER)
    text = read(vault, "tech/desk-lamp.md")
    assert text is not None and "[the desk](../life/desk.md)" in text
    assert "[[desk-lamp#Setup]]" in text
    assert read(vault, "tech/_INDEX.md") == TECH_INDEX.replace("[[lamp]]", "[[desk-lamp]]")


def test_a_move_to_another_folder_rebases_the_notes_own_relative_links(
    hoard: Hoard, vault: Path
) -> None:
    hoard.moves.move("tech/lamp.md", "home/rooms/lamp.md", lamp_rev(vault), caller=WRITER)
    text = read(vault, "home/rooms/lamp.md")
    assert text is not None and "[the desk](../../life/desk.md)" in text
    assert "[[lamp#Setup]]" in text  # its stem stayed unique: the short form stays
    created = read(vault, "home/rooms/_INDEX.md")
    assert created is not None and "- [[lamp]] the lamp" in created


@pytest.mark.parametrize(
    ("new_path", "code"),
    [
        ("tech/lamplight.md", "exists"),
        ("personal-notes/lamp.md", "private_note"),
        ("../outside.md", "path_rejected"),
        ("tech/lamp.md", "invalid_argument"),
    ],
)
def test_a_refused_move_changes_nothing(
    hoard: Hoard, vault: Path, new_path: str, code: str
) -> None:
    before = snapshot(vault)
    with pytest.raises(HoardError) as info:
        hoard.moves.move("tech/lamp.md", new_path, lamp_rev(vault), caller=WRITER)
    assert info.value.code == code
    assert snapshot(vault) == before
    assert (
        hoard.writes.retirement.history("tech/lamp.md", caller=OWNER).events[-1].decision
        == "refused"
    )


def test_a_stale_revision_is_a_conflict(hoard: Hoard, vault: Path) -> None:
    before = snapshot(vault)
    with pytest.raises(HoardError) as info:
        hoard.moves.move("tech/lamp.md", "projects/light.md", "0" * 64, caller=WRITER)
    assert info.value.code == "conflict"
    assert snapshot(vault) == before


def test_a_dry_run_lists_every_file_with_its_diff(hoard: Hoard, vault: Path) -> None:
    before = snapshot(vault)
    result = hoard.moves.move(
        "tech/lamp.md", "projects/light.md", lamp_rev(vault), dry_run=True, caller=WRITER
    )
    assert result.status == "dry_run"
    assert snapshot(vault) == before
    assert {f.path for f in result.files} == {
        "projects/light.md",
        "life/desk.md",
        "tech/_INDEX.md",
        "projects/_INDEX.md",
        "tech/lamp.md",
    }
    diff = result.diff or ""
    for header in ("+++ b/life/desk.md", "+++ b/projects/_INDEX.md", "--- a/tech/lamp.md"):
        assert header in diff
    assert "+Links: [[light]]" in diff


def test_without_update_links_only_the_note_and_indexes_move(hoard: Hoard, vault: Path) -> None:
    hoard.moves.move(
        "tech/lamp.md", "projects/light.md", lamp_rev(vault), update_links=False, caller=WRITER
    )
    assert read(vault, "life/desk.md") == DESK
    assert read(vault, "projects/light.md") == LAMP


def test_a_proposed_move_is_applied_by_confirm(hoard: Hoard, vault: Path) -> None:
    agent = Caller("agent", frozenset({"read", "write"}), "propose")
    result = hoard.moves.move("tech/lamp.md", "projects/light.md", lamp_rev(vault), caller=agent)
    assert result.status == "proposed" and result.proposal_id
    assert read(vault, "projects/light.md") is None
    assert "+Links: [[light]]" in (result.diff or "")
    confirmed = hoard.writes.confirm(result.proposal_id, caller=OWNER)
    assert confirmed.status == "moved"
    assert read(vault, "life/desk.md") == DESK_AFTER


def test_an_edit_of_a_linking_note_during_a_move_is_kept(hoard: Hoard, vault: Path) -> None:
    """The move plans under the linking notes' locks: a write holding one finishes first,
    and the move rewrites the note as that write left it."""
    rev = lamp_rev(vault)
    out: list[object] = []
    with hoard.shared.path_locks().lock("life/desk.md"):
        t = threading.Thread(
            target=lambda: out.append(
                hoard.moves.move("tech/lamp.md", "projects/light.md", rev, caller=WRITER)
            )
        )
        t.start()
        (vault / "life" / "desk.md").write_text(DESK + "Added: [[lamp]] again.\n", "utf-8")
    t.join(timeout=60)
    assert out and getattr(out[0], "status", None) == "moved"
    assert read(vault, "life/desk.md") == DESK_AFTER + "Added: [[light]] again.\n"
