"""Every flow that replaces or removes a note's bytes on the strength of what it read refuses
a replica whose view of the shared folder lags behind another replica's write (``conflict``
carrying the head's revision, nothing changed, only the refusal recorded), and one process on
its state folder behaves as before.

A lag is made the way a cache of a shared folder shows one: after the second replica has
applied the first one's change, the file holds the older bytes again behind the attributes
(size, ``mtime_ns``) the second replica already saw, so its stat walks notice nothing."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from hoard.adapters.ledger.records import Records
from hoard.app.hoard import Hoard
from hoard.core.errors import Conflict
from hoard.core.policy import OWNER
from tests.helpers import sha

CRASHING_FILING = """
import sys
from pathlib import Path
from hoard.app.hoard import Hoard
vault, state, name, rel, content, expected = sys.argv[1:7]
with Hoard(Path(vault), Path(state), replica=name) as h:
    h.writes.notes.file_note(rel, content, expected_revision=expected, caller=h.owner)
"""


def lag(vault: Path, rel: str, old: bytes) -> None:
    """``rel`` shows ``old`` again behind the attributes it has now (same size)."""
    path = vault / rel
    st = path.stat()
    assert st.st_size == len(old)
    path.write_bytes(old)
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))


def files(vault: Path) -> dict[str, bytes]:
    return {str(p.relative_to(vault)): p.read_bytes() for p in vault.rglob("*") if p.is_file()}


def transactions(h: Hoard) -> int:
    with h.ledger.read() as conn:
        return int(conn.execute("SELECT count(*) FROM transactions").fetchone()[0])


def refused(h: Hoard, vault: Path, rel: str, head: str, call: Callable[[], Any]) -> Conflict:
    """``call`` is refused with ``conflict`` carrying ``head``; no file changed, no
    transaction journaled, and the one event recorded at ``rel`` is the refusal."""
    before, events, txns = files(vault), len(Records(h.ledger).events_of(rel)), transactions(h)
    with pytest.raises(Conflict) as info:
        call()
    assert info.value.current_revision == head
    assert files(vault) == before
    assert transactions(h) == txns
    after = Records(h.ledger).events_of(rel)
    assert len(after) == events + 1
    assert after[-1].decision == "refused" and (after[-1].reason or "").startswith("conflict:")
    return info.value


@pytest.fixture
def lagging(
    shared, replica, caught_up, put, note_text, vault: Path
) -> Callable[[str, str, str], tuple[Hoard, bytes, str]]:
    """``lagging(rel, old_body, new_body)``: ``rel`` holds ``old_body``, replicas ``a`` and
    ``b`` open, ``a`` writes ``new_body`` (of the same length) and ``b``'s view of it lags;
    ``b``, the old bytes and the head's revision."""

    def make(rel: str, old_body: str, new_body: str) -> tuple[Hoard, bytes, str]:
        old = note_text("Log", old_body).encode()
        put(rel, old)
        a, b = replica("a"), replica("b")
        new = a.writes.write(rel, note_text("Log", new_body), sha(old), caller=OWNER)
        caught_up(b)
        lag(vault, rel, old)
        return b, old, new.revision

    return make


def test_an_edit_on_a_replica_whose_view_lags_is_refused_with_conflict_carrying_the_head(
    lagging, vault: Path
) -> None:
    b, old, head = lagging("team/log.md", "One.", "Two.")

    refused(
        b,
        vault,
        "team/log.md",
        head,
        lambda: b.edits.edit(
            "team/log.md", [{"op": "append", "text": "Three."}], sha(old), caller=OWNER
        ),
    )


def test_an_archive_on_a_replica_whose_view_lags_is_refused_with_conflict_carrying_the_head(
    lagging, vault: Path
) -> None:
    b, old, head = lagging("team/log.md", "One.", "Two.")
    preserved = Records(b.ledger).revisions_of("team/log.md")

    refused(
        b,
        vault,
        "team/log.md",
        head,
        lambda: b.writes.retirement.archive("team/log.md", "archived", sha(old), caller=OWNER),
    )
    assert Records(b.ledger).revisions_of("team/log.md") == preserved


def test_a_move_on_a_replica_whose_view_of_the_note_lags_is_refused(lagging, vault: Path) -> None:
    b, old, head = lagging("team/log.md", "One.", "Two.")

    refused(
        b,
        vault,
        "team/log.md",
        head,
        lambda: b.moves.move("team/log.md", "done/log.md", sha(old), caller=OWNER),
    )


def test_a_move_that_would_rewrite_a_linking_note_whose_view_lags_is_refused(
    lagging, put, note_text, vault: Path
) -> None:
    note = note_text("Target", "Here.").encode()
    put("team/target.md", note)
    b, _, head = lagging("team/log.md", "See [[target]]. One.", "See [[target]]. Two.")

    error = refused(
        b,
        vault,
        "team/target.md",
        head,
        lambda: b.moves.move("team/target.md", "team/goal.md", sha(note), caller=OWNER),
    )
    assert "team/log.md" in error.message


def test_filing_a_note_on_a_replica_whose_view_of_it_lags_is_refused(
    lagging, vault: Path, note_text
) -> None:
    b, old, head = lagging("team/log.md", "One.", "Two.")

    refused(
        b,
        vault,
        "team/log.md",
        head,
        lambda: b.writes.notes.file_note(
            "team/log.md", note_text("Log", "Three."), None, sha(old), caller=OWNER
        ),
    )


def test_filing_a_note_on_a_replica_whose_view_of_the_folder_index_lags_is_refused(
    lagging, vault: Path, note_text
) -> None:
    b, _, head = lagging("team/_INDEX.md", "- [[aaa]]", "- [[bbb]]")

    error = refused(
        b,
        vault,
        "team/new.md",
        head,
        lambda: b.writes.notes.file_note("team/new.md", note_text("New"), caller=OWNER),
    )
    assert "team/_INDEX.md" in error.message


def test_a_replica_recovering_its_filing_leaves_a_note_whose_view_lags_alone(
    shared, replica, put, note_text, vault: Path, tmp_path: Path
) -> None:
    old = note_text("Log", "One.").encode()
    put("team/log.md", old)
    put("team/_INDEX.md", note_text("Team", "- [[log]]").encode())
    st = (vault / "team/log.md").stat()
    env = {**os.environ, "HOARD_FAILPOINT": "txn.intent"}
    args = [str(vault), str(tmp_path / "state-a"), "a", "team/log.md", note_text("Log", "Filed.")]
    proc = subprocess.run(
        [sys.executable, "-c", CRASHING_FILING, *args, sha(old)],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 97, proc.stderr[-2000:]
    b = replica("b")
    new = b.writes.write("team/log.md", note_text("Log", "Two."), sha(old), caller=OWNER)
    # a's view, when it starts again, is the folder as it last saw it
    (vault / "team/log.md").write_bytes(old)
    os.utime(vault / "team/log.md", ns=(st.st_atime_ns, st.st_mtime_ns))

    a = replica("a")

    (txn_id,) = Records(a.ledger).unfinished_transactions(include_stuck=True, mine=True)
    txn, _ = Records(a.ledger).transaction(txn_id)
    assert txn.state == "stuck"
    assert "older than its last write through hoard" in (txn.detail or "")
    assert new.revision in (txn.detail or "")
    assert (vault / "team/log.md").read_bytes() == old
    (item,) = a.writes.notes.recover(txn_id, caller=OWNER).transactions
    assert item.state == "stuck"
    assert (vault / "team/log.md").read_bytes() == old


@pytest.mark.parametrize("flow", ["archive", "move", "file_note", "edit"])
def test_one_process_on_the_state_folder_changes_a_note_back_at_an_older_revision_as_before(
    flow: str, hoard: Hoard, put, note_text, vault: Path
) -> None:
    if os.environ.get("HOARD_STORE_URL"):
        pytest.skip("the files' engine only")
    old = note_text("Log", "One.").encode()
    put("team/log.md", old)
    hoard.writes.write("team/log.md", note_text("Log", "Two."), sha(old), caller=OWNER)
    lag(vault, "team/log.md", old)  # an editor's undo, behind the attributes hoard saw
    calls: dict[str, Callable[[], Any]] = {
        "archive": lambda: hoard.writes.retirement.archive(
            "team/log.md", "archived", sha(old), caller=OWNER
        ),
        "move": lambda: hoard.moves.move("team/log.md", "done/log.md", sha(old), caller=OWNER),
        "file_note": lambda: hoard.writes.notes.file_note(
            "team/log.md", note_text("Log", "Three."), None, sha(old), caller=OWNER
        ),
        "edit": lambda: hoard.edits.edit(
            "team/log.md", [{"op": "append", "text": "Three."}], sha(old), caller=OWNER
        ),
    }

    done = calls[flow]()

    assert done.status in ("archived", "moved", "written")
