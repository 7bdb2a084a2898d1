"""Proposals wait a week for a person, and one that expires unanswered does not vanish: the
owner's desk lists it for seven more days with who made it. Time passes on the ledger's
clock (moved forward here), never by waiting."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from hoard.adapters.tokens import TokenStore
from hoard.app.hoard import Hoard
from hoard.app.owner import OwnerDesk
from hoard.core.errors import ProposalExpired
from hoard.core.policy import LOCAL_DEFAULT, Caller
from tests.helpers import sha

DRAFTER = Caller("drafter", frozenset({"read", "write"}), "propose")
DAY = 86400.0


@pytest.fixture
def desk(hoard: Hoard, tmp_path: Path) -> OwnerDesk:
    return hoard.owner_tools(TokenStore(tmp_path / "tokens.json"))[1]


@pytest.fixture
def later(hoard: Hoard):
    """Move the ledger's clock ``days`` ahead of the real one."""

    def move(days: float) -> None:
        hoard.deps.ledger.clock = lambda: time.time() + days * DAY

    return move


@pytest.fixture
def lamp(put, note_text) -> bytes:
    raw = note_text("Lamp", "The desk lamp.").encode()
    put("tech/lamp.md", raw)
    return raw


def _propose(hoard: Hoard, lamp: bytes, note_text, body: str):
    return hoard.writes.write("tech/lamp.md", note_text("Lamp", body), sha(lamp), caller=DRAFTER)


def test_a_proposal_waits_seven_days_by_default(hoard: Hoard, lamp, note_text, later) -> None:
    proposal = _propose(hoard, lamp, note_text, "Brighter.")

    later(6.9)
    listed = hoard.writes.proposals(caller=LOCAL_DEFAULT).proposals
    assert [p.proposal_id for p in listed] == [proposal.proposal_id]

    later(7.01)
    assert hoard.writes.proposals(caller=LOCAL_DEFAULT).proposals == []
    with pytest.raises(ProposalExpired):
        hoard.writes.confirm(proposal.proposal_id, caller=LOCAL_DEFAULT)


def test_a_proposal_that_expired_unanswered_is_listed_with_its_author_for_a_week(
    hoard: Hoard, desk: OwnerDesk, lamp, note_text, later
) -> None:
    proposal = _propose(hoard, lamp, note_text, "Brighter.")
    assert desk.expired_proposals() == []

    later(7.01)
    expired = desk.expired_proposals()
    assert [(e.proposal_id, e.caller, e.path, e.tool) for e in expired] == [
        (proposal.proposal_id, "drafter", "tech/lamp.md", "vault_write")
    ]
    assert "+Brighter.\n" in expired[0].diff
    assert desk.pending_count() == 0

    later(13.9)
    assert [e.proposal_id for e in desk.expired_proposals()] == [proposal.proposal_id]

    later(14.1)
    assert desk.expired_proposals() == []


def test_a_proposal_answered_in_time_is_not_listed_as_expired(
    hoard: Hoard, desk: OwnerDesk, lamp, note_text, later
) -> None:
    rejected = _propose(hoard, lamp, note_text, "Dimmer.")
    hoard.writes.reject(rejected.proposal_id, caller=LOCAL_DEFAULT)
    unanswered = _propose(hoard, lamp, note_text, "Brighter.")

    later(8)

    assert [e.proposal_id for e in desk.expired_proposals()] == [unanswered.proposal_id]
