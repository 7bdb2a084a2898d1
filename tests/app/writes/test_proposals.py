"""Propose mode: a proposal writes nothing, carries its diff and expiry, and is applied only by
a confirm that re-runs every gate against the note as it is then. The CLI mirrors it."""

from __future__ import annotations

import io
import json
import re
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import pytest

from hoard.app.hoard import Hoard
from hoard.core.policy import LOCAL_DEFAULT, OWNER, Caller
from hoard.surfaces.cli.main import run
from tests.helpers import sha

PROPOSER = LOCAL_DEFAULT  # read, write, confirm; write_mode "propose"
DRAFTER = Caller("drafter", frozenset({"read", "write"}), "propose")
ID_ALPHABET = re.compile(r"[a-z0-9]{8}")


def when(iso: str) -> datetime:
    return datetime.strptime(iso, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC)


@pytest.fixture
def lamp(put, note_text) -> bytes:
    raw = note_text("Lamp", "The desk lamp.").encode()
    put("tech/lamp.md", raw)
    return raw


@pytest.fixture
def proposal(hoard: Hoard, lamp, note_text):
    """An overwrite of tech/lamp.md proposed by a propose-mode caller."""
    return hoard.writes.write(
        "tech/lamp.md", note_text("Lamp", "The desk lamp, brighter."), sha(lamp), caller=DRAFTER
    )


def test_a_propose_mode_write_is_a_proposal_with_id_expiry_and_diff_and_writes_nothing(
    hoard: Hoard, lamp, snap, note_text
) -> None:
    before = snap("tech/lamp.md")
    new = note_text("Lamp", "The desk lamp, brighter.")

    result = hoard.writes.write("tech/lamp.md", new, sha(lamp), caller=DRAFTER)

    assert result.status == "proposed"
    assert ID_ALPHABET.fullmatch(result.proposal_id)
    assert result.revision == sha(new.encode())
    assert result.previous_revision == sha(lamp)
    assert when(result.expires_at) > datetime.now(UTC)
    assert result.diff.startswith("--- a/tech/lamp.md\n+++ b/tech/lamp.md\n@@ ")
    assert "\n-The desk lamp.\n" in result.diff
    assert "\n+The desk lamp, brighter.\n" in result.diff
    assert snap("tech/lamp.md") == before
    events = hoard.writes.retirement.history("tech/lamp.md", caller=OWNER).events
    assert [(e.decision, e.reason) for e in events] == [("proposed", result.proposal_id)]


def test_a_proposed_create_has_a_diff_from_nothing(hoard: Hoard, vault, note_text) -> None:
    result = hoard.writes.write("tech/idea.md", note_text("Idea", "A thought."), caller=DRAFTER)

    assert result.status == "proposed"
    assert result.diff.startswith("--- /dev/null\n+++ b/tech/idea.md\n")
    assert "+A thought.\n" in result.diff
    assert not (vault / "tech" / "idea.md").exists()


def test_a_proposal_still_passes_every_gate_first(hoard: Hoard, lamp, snap) -> None:
    with pytest.raises(Exception) as info:
        hoard.writes.write("tech/lamp.md", "# no frontmatter\n", sha(lamp), caller=DRAFTER)

    assert getattr(info.value, "code", None) == "contract_violation"
    assert hoard.writes.proposals(caller=OWNER).proposals == []


def test_pending_proposals_are_listed_with_their_diff(hoard: Hoard, proposal) -> None:
    listed = hoard.writes.proposals(caller=PROPOSER).proposals

    assert len(listed) == 1
    p = listed[0]
    assert (p.proposal_id, p.tool, p.path, p.caller) == (
        proposal.proposal_id,
        "vault_write",
        "tech/lamp.md",
        "drafter",
    )
    assert p.diff == proposal.diff
    assert p.expires_at == proposal.expires_at
    assert (when(p.expires_at) - when(p.created_at)).total_seconds() == 7 * 86400


def test_confirm_applies_the_proposal_exactly(hoard: Hoard, lamp, proposal, vault) -> None:
    result = hoard.writes.confirm(proposal.proposal_id, caller=PROPOSER)

    assert result.status == "written"
    assert result.revision == proposal.revision
    assert result.previous_revision == sha(lamp)
    assert sha((vault / "tech" / "lamp.md").read_bytes()) == proposal.revision
    assert hoard.writes.proposals(caller=OWNER).proposals == []
    [preserved] = hoard.writes.retirement.history("tech/lamp.md", caller=OWNER).revisions
    assert preserved.sha256 == sha(lamp)
    written = [
        e
        for e in hoard.writes.retirement.history("tech/lamp.md", caller=OWNER).events
        if e.decision == "written"
    ]
    credit = "local (proposed by drafter)"  # who confirmed, and who proposed
    assert [(e.tool, e.caller) for e in written] == [("vault_confirm", credit)]


def test_confirming_twice_is_proposal_not_found(hoard: Hoard, proposal, snap) -> None:
    hoard.writes.confirm(proposal.proposal_id, caller=PROPOSER)
    after_first = snap("tech/lamp.md")

    with pytest.raises(Exception) as info:
        hoard.writes.confirm(proposal.proposal_id, caller=PROPOSER)

    assert getattr(info.value, "code", None) == "proposal_not_found"
    assert snap("tech/lamp.md") == after_first


@pytest.mark.parametrize("pid", ["zzzzzzzz", "", "not-an-id-at-all"])
def test_confirming_an_unknown_id_is_proposal_not_found(hoard: Hoard, pid: str) -> None:
    with pytest.raises(Exception) as info:
        hoard.writes.confirm(pid, caller=PROPOSER)

    assert getattr(info.value, "code", None) == "proposal_not_found"


def test_an_expired_proposal_cannot_be_confirmed_and_is_no_longer_listed(
    hoard: Hoard, proposal, snap
) -> None:
    before = snap("tech/lamp.md")
    with hoard.ledger.transaction() as conn:  # test-only: the proposal's time has passed
        conn.execute(
            "UPDATE proposals SET expires_at = 0 WHERE proposal_id = ?", (proposal.proposal_id,)
        )

    with pytest.raises(Exception) as info:
        hoard.writes.confirm(proposal.proposal_id, caller=PROPOSER)

    assert getattr(info.value, "code", None) == "proposal_expired"
    assert info.value.to_object()["proposal_id"] == proposal.proposal_id
    assert snap("tech/lamp.md") == before
    assert hoard.writes.proposals(caller=OWNER).proposals == []


def test_the_proposal_ttl_comes_from_hoard_toml(put, note_text, open_hoard) -> None:
    put("hoard.toml", "[proposals]\nttl_seconds = 10\n")
    hoard = open_hoard()

    result = hoard.writes.write("tech/idea.md", note_text("Idea"), caller=DRAFTER)

    [p] = hoard.writes.proposals(caller=OWNER).proposals
    assert p.proposal_id == result.proposal_id
    assert (when(p.expires_at) - when(p.created_at)).total_seconds() == 10


def test_confirm_after_an_outside_edit_is_a_conflict_and_the_edit_survives(
    hoard: Hoard, proposal, put, note_text, snap
) -> None:
    outside = note_text("Lamp", "Edited by hand in the editor.").encode()
    put("tech/lamp.md", outside)
    before = snap("tech/lamp.md")

    with pytest.raises(Exception) as info:
        hoard.writes.confirm(proposal.proposal_id, caller=PROPOSER)

    assert getattr(info.value, "code", None) == "conflict"
    assert info.value.to_object()["current_revision"] == sha(outside)
    assert snap("tech/lamp.md") == before


def test_confirming_a_proposed_create_after_someone_created_the_note_is_exists(
    hoard: Hoard, put, note_text, snap
) -> None:
    p = hoard.writes.write("tech/idea.md", note_text("Idea", "Mine."), caller=DRAFTER)
    put("tech/idea.md", note_text("Idea", "Theirs."))
    before = snap("tech/idea.md")

    with pytest.raises(Exception) as info:
        hoard.writes.confirm(p.proposal_id, caller=PROPOSER)

    assert getattr(info.value, "code", None) == "exists"
    assert snap("tech/idea.md") == before


def test_a_rejected_proposal_writes_nothing_and_cannot_be_confirmed_later(
    hoard: Hoard, proposal, snap
) -> None:
    before = snap("tech/lamp.md")

    rejected = hoard.writes.reject(proposal.proposal_id, caller=PROPOSER)

    assert (rejected.proposal_id, rejected.status) == (proposal.proposal_id, "rejected")
    assert hoard.writes.proposals(caller=OWNER).proposals == []
    for again in (hoard.writes.confirm, hoard.writes.reject):
        with pytest.raises(Exception) as info:
            again(proposal.proposal_id, caller=PROPOSER)
        assert getattr(info.value, "code", None) == "proposal_not_found"
    assert snap("tech/lamp.md") == before
    decisions = [
        e.decision for e in hoard.writes.retirement.history("tech/lamp.md", caller=OWNER).events
    ]
    assert decisions == ["proposed", "rejected"]


def test_a_proposed_file_note_is_applied_with_its_index_line_on_confirm(
    hoard: Hoard, put, note_text, vault
) -> None:
    put("tech/_INDEX.md", note_text("Tech index", "- [[lamp]]", type="index"))
    index_before = (vault / "tech" / "_INDEX.md").read_bytes()

    p = hoard.writes.notes.file_note(
        "tech/idea.md", note_text("Idea"), "- [[idea]] a new idea", caller=DRAFTER
    )

    assert p.status == "proposed"
    assert not (vault / "tech" / "idea.md").exists()
    assert (vault / "tech" / "_INDEX.md").read_bytes() == index_before

    done = hoard.writes.confirm(p.proposal_id, caller=PROPOSER)

    assert done.status == "written"
    assert (vault / "tech" / "idea.md").read_text(encoding="utf-8") == note_text("Idea")
    assert (vault / "tech" / "_INDEX.md").read_bytes() == index_before + b"- [[idea]] a new idea\n"


def test_a_proposed_archive_is_applied_on_confirm(hoard: Hoard, lamp, vault) -> None:
    p = hoard.writes.retirement.archive("tech/lamp.md", "superseded", sha(lamp), caller=DRAFTER)

    assert p.status == "proposed"
    assert (vault / "tech" / "lamp.md").read_bytes() == lamp

    done = hoard.writes.confirm(p.proposal_id, caller=PROPOSER)

    assert done.status == "archived"
    assert not (vault / "tech" / "lamp.md").exists()
    rev = hoard.writes.retirement.history(revision_id=done.revision_id, caller=OWNER)
    assert rev.content.encode() == lamp


def test_a_confirmed_archive_credits_the_proposer_and_the_confirmer(hoard: Hoard, lamp) -> None:
    p = hoard.writes.retirement.archive("tech/lamp.md", "superseded", sha(lamp), caller=DRAFTER)
    done = hoard.writes.confirm(p.proposal_id, caller=PROPOSER)

    events = hoard.writes.retirement.history("tech/lamp.md", caller=OWNER).events
    credit = "local (proposed by drafter)"
    assert [(e.decision, e.caller) for e in events if e.tool == "vault_archive"] == [
        ("proposed", "drafter"),
        ("superseded", credit),
    ]
    revisions = hoard.writes.retirement.history("tech/lamp.md", caller=OWNER).revisions
    assert [r.caller for r in revisions if r.revision_id == done.revision_id] == [credit]

    back = hoard.writes.retirement.restore(done.revision_id, caller=DRAFTER)
    hoard.writes.confirm(back.proposal_id, caller=PROPOSER)
    restored = [
        e
        for e in hoard.writes.retirement.history("tech/lamp.md", caller=OWNER).events
        if e.decision == "restored"
    ]
    assert [e.caller for e in restored] == [credit]


# -- the CLI ---------------------------------------------------------------------------------------


@pytest.fixture
def cli(vault, state_dir, capsys, monkeypatch):
    """``cli("confirm", ID, "--yes")`` → (exit code, stdout, stderr); stdin is not a terminal."""

    def call(*args: str, as_json: bool = True) -> tuple[int, str, str]:
        monkeypatch.setattr(sys, "stdin", io.StringIO("y\n"))
        argv = [*args, "--vault", str(vault), "--state-dir", str(state_dir)]
        code = run([*argv, "--json"] if as_json else argv)
        out, err = capsys.readouterr()
        return code, out, err

    return call


def test_cli_proposals_json_lists_the_pending_proposals(cli, proposal) -> None:
    code, out, _ = cli("proposals")

    assert code == 0
    data = json.loads(out)
    assert [p["proposal_id"] for p in data["proposals"]] == [proposal.proposal_id]
    p = data["proposals"][0]
    assert {"proposal_id", "tool", "path", "caller", "expires_at", "diff"} <= set(p)
    assert p["diff"] == proposal.diff


def test_cli_confirm_yes_writes_the_proposal(cli, proposal, vault) -> None:
    code, out, _ = cli("confirm", proposal.proposal_id, "--yes")

    assert code == 0
    data = json.loads(out)
    assert (data["status"], data["revision"]) == ("written", proposal.revision)
    assert sha((vault / "tech" / "lamp.md").read_bytes()) == proposal.revision


def test_cli_confirm_without_a_terminal_refuses_and_writes_nothing(
    cli, proposal, snap, hoard: Hoard
) -> None:
    before = snap("tech/lamp.md")

    code, _, err = cli("confirm", proposal.proposal_id, as_json=False)

    assert code == 2
    assert "--yes" in err
    assert snap("tech/lamp.md") == before
    assert [p.proposal_id for p in hoard.writes.proposals(caller=OWNER).proposals] == [
        proposal.proposal_id
    ]


def test_cli_reject_drops_the_proposal(cli, proposal, snap, hoard: Hoard) -> None:
    before = snap("tech/lamp.md")

    code, out, _ = cli("reject", proposal.proposal_id)

    assert code == 0
    assert json.loads(out) == {"proposal_id": proposal.proposal_id, "status": "rejected"}
    assert hoard.writes.proposals(caller=OWNER).proposals == []
    code, out, _ = cli("confirm", proposal.proposal_id, "--yes")
    assert code == 2
    assert json.loads(out)["error"] == "proposal_not_found"
    assert snap("tech/lamp.md") == before


def test_cli_confirm_of_an_unknown_id_exits_2_with_proposal_not_found(cli) -> None:
    code, out, _ = cli("confirm", "zzzzzzzz", "--yes")

    assert code == 2
    assert json.loads(out)["error"] == "proposal_not_found"


def test_the_installed_cli_refuses_to_confirm_with_stdin_not_a_terminal(
    proposal, vault, state_dir, snap
) -> None:
    before = snap("tech/lamp.md")
    hoard_bin = Path(sys.executable).parent / "hoard"

    where = ["--vault", str(vault), "--state-dir", str(state_dir)]

    proc = subprocess.run(
        [str(hoard_bin), "confirm", proposal.proposal_id, *where],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
    )

    assert proc.returncode == 2, proc.stderr
    assert "--yes" in proc.stderr
    assert snap("tech/lamp.md") == before
