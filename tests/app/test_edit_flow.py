"""vault_edit as a use-case: the edits go through the one write path (gates, revision,
ledger, proposals, dry runs), on real files, a real ledger and a real index."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from hoard.app.hoard import Hoard
from hoard.core.errors import HoardError
from hoard.core.policy import OWNER, Caller
from tests.helpers import sha

WRITER = Caller("writer", frozenset({"read", "write"}), "direct")
PROPOSER = Caller("agent", frozenset({"read", "write"}), "propose")
CONFIRMER = Caller("person", frozenset({"read", "write", "confirm"}), "direct")

NOTE = (
    "---\ntitle: Lamp\ntype: note\nstatus: draft\ntags: [home, light]\nupdated: 2026-03-01\n"
    "---\n# Lamp\n\n## Log\n- bought\n\n## Notes\nWarm white.\n"
)


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    root = tmp_path / "vault"
    (root / "tech").mkdir(parents=True)
    (root / "personal-notes").mkdir()
    (root / "tech" / "lamp.md").write_text(NOTE, encoding="utf-8")
    (root / "personal-notes" / "diary.md").write_text("dear diary\n", encoding="utf-8")
    return root


@pytest.fixture
def hoard(vault: Path, tmp_path: Path) -> Iterator[Hoard]:
    with Hoard(vault, tmp_path / "state") as h:
        yield h


def lamp(vault: Path) -> bytes:
    return (vault / "tech" / "lamp.md").read_bytes()


def refused(hoard: Hoard, vault: Path, code: str, **kwargs: object) -> HoardError:
    before = lamp(vault)
    events = len(hoard.writes.retirement.history("tech/lamp.md", caller=OWNER).events)
    with pytest.raises(HoardError) as info:
        hoard.edits.edit(**{"path": "tech/lamp.md", "caller": WRITER, **kwargs})  # type: ignore[arg-type]
    assert info.value.code == code, info.value.to_object()
    assert lamp(vault) == before
    history = hoard.writes.retirement.history("tech/lamp.md", caller=OWNER).events
    assert len(history) == events + 1
    assert history[-1].tool == "vault_edit"
    assert history[-1].decision == "refused"
    return info.value


def test_an_edit_is_written_through_the_write_path(hoard: Hoard, vault: Path) -> None:
    before = lamp(vault)
    result = hoard.edits.edit(
        "tech/lamp.md",
        [
            {"op": "append_to_section", "heading": "Log", "text": "- fixed"},
            {"op": "set_fields", "fields": {"status": "active"}},
        ],
        sha(before),
        caller=WRITER,
    )
    after = lamp(vault)
    assert result.status == "written"
    assert result.previous_revision == sha(before)
    assert result.revision == sha(after)
    assert (
        after
        == NOTE.replace("- bought\n", "- bought\n- fixed\n")
        .replace("status: draft", "status: active")
        .encode()
    )
    history = hoard.writes.retirement.history("tech/lamp.md", caller=OWNER)
    assert history.events[-1].tool == "vault_edit"
    assert history.events[-1].decision == "written"
    kept = hoard.writes.retirement.history(
        revision_id=history.revisions[-1].revision_id, caller=OWNER
    )
    assert kept.content.encode() == before
    found = hoard.searching.search("fixed", caller=WRITER)
    assert [h.path for h in found.results] == ["tech/lamp.md"]


def test_a_stale_revision_is_a_conflict(hoard: Hoard, vault: Path) -> None:
    exc = refused(
        hoard,
        vault,
        "conflict",
        edits=[{"op": "append", "text": "x"}],
        expected_revision="0" * 64,
    )
    assert exc.to_object()["current_revision"] == sha(lamp(vault))


def test_the_contract_gate_runs_on_the_result(hoard: Hoard, vault: Path) -> None:
    exc = refused(
        hoard,
        vault,
        "contract_violation",
        edits=[{"op": "remove_tags", "tags": ["home"]}],
        expected_revision=sha(lamp(vault)),
    )
    assert [v["field"] for v in exc.to_object()["violations"]] == ["tags"]


def test_an_edit_that_cannot_apply_changes_nothing(hoard: Hoard, vault: Path) -> None:
    exc = refused(
        hoard,
        vault,
        "not_found",
        edits=[
            {"op": "append", "text": "x"},
            {"op": "replace_section", "heading": "Nope", "text": ""},
        ],
        expected_revision=sha(lamp(vault)),
    )
    assert exc.to_object()["edit"] == 1


def test_a_malformed_list_is_refused(hoard: Hoard, vault: Path) -> None:
    refused(
        hoard,
        vault,
        "invalid_argument",
        edits=[{"op": "explode"}],
        expected_revision=sha(lamp(vault)),
    )


def test_a_dry_run_returns_the_diff_and_writes_nothing(hoard: Hoard, vault: Path) -> None:
    before = lamp(vault)
    result = hoard.edits.edit(
        "tech/lamp.md", [{"op": "append", "text": "Dimmable."}], sha(before), True, caller=WRITER
    )
    assert result.status == "dry_run"
    assert result.diff is not None and "+Dimmable." in result.diff
    assert result.preflight is not None and result.preflight.violations == []
    assert lamp(vault) == before


def test_a_proposing_caller_gets_a_proposal_that_confirm_applies(hoard: Hoard, vault: Path) -> None:
    before = lamp(vault)
    result = hoard.edits.edit(
        "tech/lamp.md", [{"op": "add_tags", "tags": ["desk"]}], sha(before), caller=PROPOSER
    )
    assert result.status == "proposed"
    assert result.proposal_id is not None
    assert result.diff is not None and "+tags: [home, light, desk]" in result.diff
    assert lamp(vault) == before
    confirmed = hoard.writes.confirm(result.proposal_id, caller=CONFIRMER)
    assert confirmed.status == "written"
    assert b"tags: [home, light, desk]" in lamp(vault)


def test_a_private_note_is_never_edited(hoard: Hoard, vault: Path) -> None:
    raw = (vault / "personal-notes" / "diary.md").read_bytes()
    with pytest.raises(HoardError) as info:
        hoard.edits.edit(
            "personal-notes/diary.md", [{"op": "append", "text": "x"}], sha(raw), caller=WRITER
        )
    assert info.value.code == "private_note"
    assert (vault / "personal-notes" / "diary.md").read_bytes() == raw


def test_a_missing_note_is_not_found(hoard: Hoard) -> None:
    with pytest.raises(HoardError) as info:
        hoard.edits.edit("tech/none.md", [{"op": "append", "text": "x"}], "0" * 64, caller=WRITER)
    assert info.value.code == "not_found"


def test_a_reader_may_not_edit(hoard: Hoard, vault: Path) -> None:
    reader = Caller("reader", frozenset({"read"}), "direct")
    with pytest.raises(HoardError) as info:
        hoard.edits.edit(
            "tech/lamp.md", [{"op": "append", "text": "x"}], sha(lamp(vault)), caller=reader
        )
    assert info.value.code == "forbidden"
