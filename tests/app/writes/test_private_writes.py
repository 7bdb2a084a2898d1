"""Private notes change through hoard only for the owner's web session on a server that no
other machine reaches (bound to loopback, no public address): it may overwrite, move and
archive them. An agent with the write scope still may not, and neither may the owner's
session on a server reachable from elsewhere."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from hoard.adapters.tokens import TokenStore
from hoard.app.hoard import Hoard
from hoard.core.errors import PrivateNote
from hoard.core.policy import Caller
from tests.helpers import sha

DIARY = "personal-notes/diary.md"
RAW = b"# Diary\n\nDear diary.\n"
AGENT = Caller("agent", frozenset({"read", "write"}), "direct")


def owner_session(hoard: Hoard, tmp_path: Path, *, private_writes: bool) -> Caller:
    """The caller of an owner's web session opened with the one-time sign-in code."""
    sessions, _ = hoard.owner_tools(
        TokenStore(tmp_path / "tokens.json"), private_writes=private_writes
    )
    _, session = sessions.sign_in_with_code(sessions.issue_code(), "test")
    return session.caller


@pytest.fixture
def diary(put: Callable[[str, bytes], Path]) -> Path:
    return put(DIARY, RAW)


def test_the_owner_on_loopback_may_edit_move_and_archive_a_private_note(
    hoard: Hoard, tmp_path: Path, diary: Path, vault: Path
) -> None:
    owner = owner_session(hoard, tmp_path, private_writes=True)
    assert hoard.access.private_lock(DIARY, caller=owner) is None

    hoard.writes.write(DIARY, "# Diary\n\nRewritten.\n", sha(RAW), caller=owner)
    assert diary.read_bytes() == b"# Diary\n\nRewritten.\n"

    moved = "personal-notes/old/diary.md"
    hoard.moves.move(DIARY, moved, sha(diary.read_bytes()), caller=owner)
    assert not diary.exists()
    now = (vault / moved).read_bytes()
    assert now == b"# Diary\n\nRewritten.\n"

    result = hoard.writes.retirement.archive(moved, "archived", sha(now), caller=owner)
    assert result.status == "archived"
    assert not (vault / moved).exists()


@pytest.mark.parametrize("remote_owner", [False, True], ids=["agent", "owner-not-on-loopback"])
def test_an_agent_or_a_reachable_owner_may_not_change_a_private_note(
    hoard: Hoard, tmp_path: Path, diary: Path, remote_owner: bool
) -> None:
    who = owner_session(hoard, tmp_path, private_writes=False) if remote_owner else AGENT
    attempts: list[Callable[[], object]] = [
        lambda: hoard.writes.write(DIARY, "# Diary\n\nRewritten.\n", sha(RAW), caller=who),
        lambda: hoard.moves.move(DIARY, "personal-notes/old/diary.md", sha(RAW), caller=who),
        lambda: hoard.writes.retirement.archive(DIARY, "archived", sha(RAW), caller=who),
    ]
    for attempt in attempts:
        with pytest.raises(PrivateNote):
            attempt()
    assert diary.read_bytes() == RAW

    why = hoard.access.private_lock(DIARY, caller=who)
    assert why is not None and why.startswith("This note is private")
    if remote_owner:
        assert "reached from other machines" in why
