"""Claims bind a statement to the exact bytes of their source, and claim_get never picks a
winner: it abstains when a source drifted or live claims disagree."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from hoard.app.hoard import Hoard
from hoard.app.honesty import DISCLAIMER, Honesty
from hoard.core.errors import Forbidden, InvalidArgument, NotFound, Protected
from hoard.core.policy import Caller

Put = Callable[[str, str], Path]
Rev = Callable[[str], str]


def test_a_claim_on_an_unchanged_source_is_current(
    honesty: Honesty, edit_note: Put, rev: Rev, writer: Caller
) -> None:
    edit_note("tech/hue.md", "The bridge IP is 10.0.0.42.")
    rec = honesty.claims.record("hue-bridge", "ip", "10.0.0.42", "tech/hue.md", caller=writer)
    assert rec.source_revision == rev("tech/hue.md")

    got = honesty.claims.get("hue-bridge", "ip", caller=writer)

    assert got.status == "current"
    assert got.value == "10.0.0.42"
    assert got.claim_id == rec.claim_id
    assert got.source_path == "tech/hue.md"
    assert got.recorded_revision == got.current_revision == rec.source_revision
    assert got.conflicting == []
    assert got.disclaimer == DISCLAIMER
    assert set(got.budget) >= {"file_checks", "bytes_read", "elapsed_ms", "exhausted"}


def test_an_edit_of_the_source_with_the_same_size_makes_claim_get_abstain_with_both_revisions(
    honesty: Honesty, edit_note: Put, rev: Rev, writer: Caller
) -> None:
    edit_note("tech/hue.md", "The bridge IP is 10.0.0.42.")
    rec = honesty.claims.record("hue-bridge", "ip", "10.0.0.42", "tech/hue.md", caller=writer)
    assert honesty.claims.get("hue-bridge", "ip", caller=writer).status == "current"

    edit_note("tech/hue.md", "The bridge IP is 10.0.0.43.")
    got = honesty.claims.get("hue-bridge", "ip", caller=writer)

    assert got.status == "abstained_stale_source"
    assert got.value is None
    assert got.claim_id == rec.claim_id
    assert got.recorded_revision == rec.source_revision
    assert got.current_revision == rev("tech/hue.md") != rec.source_revision


def test_a_deleted_source_makes_claim_get_abstain_with_no_current_revision(
    honesty: Honesty, edit_note: Put, vault: Path, writer: Caller
) -> None:
    edit_note("tech/hue.md", "The bridge IP is 10.0.0.42.")
    rec = honesty.claims.record("hue-bridge", "ip", "10.0.0.42", "tech/hue.md", caller=writer)
    (vault / "tech/hue.md").unlink()

    got = honesty.claims.get("hue-bridge", "ip", caller=writer)

    assert got.status == "abstained_stale_source"
    assert got.recorded_revision == rec.source_revision
    assert got.current_revision is None
    assert "gone" in got.message


def test_two_live_claims_that_disagree_abstain_as_a_conflict_listing_both(
    honesty: Honesty, edit_note: Put, writer: Caller
) -> None:
    edit_note("a.md", "IP 10.0.0.42")
    edit_note("b.md", "IP 10.0.0.99")
    one = honesty.claims.record("hue-bridge", "ip", "10.0.0.42", "a.md", caller=writer)
    two = honesty.claims.record("hue-bridge", "ip", "10.0.0.99", "b.md", caller=writer)

    got = honesty.claims.get("hue-bridge", "ip", caller=writer)

    assert got.status == "abstained_conflict"
    assert got.value is None
    assert {(c.claim_id, c.value, c.source_path) for c in got.conflicting} == {
        (one.claim_id, "10.0.0.42", "a.md"),
        (two.claim_id, "10.0.0.99", "b.md"),
    }
    assert all(c.source_changed is False for c in got.conflicting)


def test_two_live_claims_that_agree_from_unchanged_sources_are_current(
    honesty: Honesty, edit_note: Put, writer: Caller
) -> None:
    edit_note("a.md", "IP 10.0.0.42")
    edit_note("b.md", "also 10.0.0.42")
    honesty.claims.record("hue-bridge", "ip", "10.0.0.42", "a.md", caller=writer)
    honesty.claims.record("hue-bridge", "ip", "10.0.0.42", "b.md", caller=writer)

    got = honesty.claims.get("hue-bridge", "ip", caller=writer)

    assert (got.status, got.value) == ("current", "10.0.0.42")


@pytest.mark.parametrize(
    ("subject", "prop", "scope"),
    [("hue-bridge", "ip", "home"), ("hue-bridge", "mac", "global"), ("nas", "ip", "global")],
    ids=["scope", "property", "subject"],
)
def test_superseding_a_claim_with_a_different_subject_property_or_scope_is_refused(
    honesty: Honesty,
    hoard: Hoard,
    edit_note: Put,
    writer: Caller,
    subject: str,
    prop: str,
    scope: str,
) -> None:
    edit_note("a.md", "IP 10.0.0.42")
    old = honesty.claims.record("hue-bridge", "ip", "10.0.0.42", "a.md", caller=writer)

    with pytest.raises(InvalidArgument) as err:
        honesty.claims.record(
            subject, prop, "x", "a.md", scope=scope, supersedes=old.claim_id, caller=writer
        )

    assert err.value.details["field"] == "supersedes"
    with hoard.ledger.read() as conn:
        assert conn.execute("SELECT count(*) FROM claims").fetchone()[0] == 1


def test_a_proper_supersession_makes_the_new_claim_current_and_the_old_one_not_live(
    honesty: Honesty, edit_note: Put, writer: Caller
) -> None:
    edit_note("a.md", "IP 10.0.0.42")
    edit_note("b.md", "IP moved to 10.0.0.99")
    old = honesty.claims.record("hue-bridge", "ip", "10.0.0.42", "a.md", caller=writer)
    new = honesty.claims.record(
        "hue-bridge", "ip", "10.0.0.99", "b.md", supersedes=old.claim_id, caller=writer
    )

    got = honesty.claims.get("hue-bridge", "ip", caller=writer)
    listed = {c.claim_id: c for c in honesty.claims.list_claims("hue-bridge", caller=writer).claims}

    assert (got.status, got.value, got.claim_id) == ("current", "10.0.0.99", new.claim_id)
    assert listed[old.claim_id].live is False
    assert listed[old.claim_id].superseded_by == new.claim_id
    assert listed[new.claim_id].supersedes == old.claim_id


def test_a_claim_is_superseded_only_once_and_an_unknown_claim_cannot_be_superseded(
    honesty: Honesty, edit_note: Put, writer: Caller
) -> None:
    edit_note("a.md", "IP 10.0.0.42")
    old = honesty.claims.record("hue-bridge", "ip", "1", "a.md", caller=writer)
    new = honesty.claims.record(
        "hue-bridge", "ip", "2", "a.md", supersedes=old.claim_id, caller=writer
    )

    with pytest.raises(InvalidArgument) as err:
        honesty.claims.record(
            "hue-bridge", "ip", "3", "a.md", supersedes=old.claim_id, caller=writer
        )
    assert err.value.details["superseded_by"] == new.claim_id
    with pytest.raises(NotFound):
        honesty.claims.record(
            "hue-bridge", "ip", "3", "a.md", supersedes="nosuchclaim", caller=writer
        )


def test_validity_windows_answer_expired_outside_and_current_inside(
    honesty: Honesty, edit_note: Put, writer: Caller
) -> None:
    edit_note("a.md", "The 2025 plan")
    honesty.claims.record(
        "plan",
        "owner",
        "ana",
        "a.md",
        valid_from="2025-01-01",
        valid_until="2025-12-31",
        caller=writer,
    )

    def status(at: str) -> str:
        return honesty.claims.get("plan", "owner", at=at, caller=writer).status

    assert status("2024-12-31T23:59:59Z") == "expired"  # before valid_from
    assert status("2025-01-01") == "current"
    assert status("2025-12-31T23:59:59Z") == "current"  # a bare valid_until date is inclusive
    assert status("2026-01-01T00:00:00Z") == "expired"
    assert status("2025-06-01T12:00:00+02:00") == "current"


def test_an_open_ended_window_stays_current_long_after_valid_from(
    honesty: Honesty, edit_note: Put, writer: Caller
) -> None:
    edit_note("a.md", "Since 2020")
    honesty.claims.record("nas", "os", "debian", "a.md", valid_from="2020-01-01", caller=writer)

    assert honesty.claims.get("nas", "os", at="2099-01-01", caller=writer).status == "current"
    assert honesty.claims.get("nas", "os", at="2019-12-31", caller=writer).status == "expired"


def test_no_claim_is_the_answer_when_nothing_matches_subject_property_and_scope(
    honesty: Honesty, edit_note: Put, writer: Caller
) -> None:
    edit_note("a.md", "x")
    honesty.claims.record("nas", "os", "debian", "a.md", scope="home", caller=writer)

    got = honesty.claims.get("nas", "os", caller=writer)

    assert got.status == "no_claim"
    assert (got.value, got.claim_id, got.current_revision) == (None, None, None)
    assert honesty.claims.get("nas", "os", scope="home", caller=writer).status == "current"


def test_claim_list_filters_by_subject_and_by_source_path(
    honesty: Honesty, edit_note: Put, writer: Caller
) -> None:
    edit_note("a.md", "a")
    edit_note("b.md", "b")
    c1 = honesty.claims.record("nas", "os", "debian", "a.md", caller=writer).claim_id
    c2 = honesty.claims.record("nas", "ram", "16G", "b.md", caller=writer).claim_id
    c3 = honesty.claims.record("hue", "ip", "1.2.3.4", "a.md", caller=writer).claim_id

    def ids(**kw: str) -> list[str]:
        return [c.claim_id for c in honesty.claims.list_claims(caller=writer, **kw).claims]

    assert ids() == [c1, c2, c3]
    assert ids(subject="nas") == [c1, c2]
    assert ids(source_path="a.md") == [c1, c3]
    assert ids(subject="nas", source_path="./a.md".removeprefix("./")) == [c1]
    assert ids(subject="nobody") == []


@pytest.mark.parametrize(
    ("kw", "field"),
    [
        ({"valid_from": "yesterday"}, "valid_from"),
        ({"valid_until": "2026-02-30"}, "valid_until"),
        ({"valid_from": "2026-03-02", "valid_until": "2026-03-01"}, "valid_until"),
    ],
)
def test_bad_validity_times_are_invalid_arguments_naming_the_field(
    honesty: Honesty, edit_note: Put, writer: Caller, kw: dict[str, str], field: str
) -> None:
    edit_note("a.md", "x")
    with pytest.raises(InvalidArgument) as err:
        honesty.claims.record("nas", "os", "debian", "a.md", caller=writer, **kw)
    assert err.value.details["field"] == field


def test_a_bad_at_or_a_blank_subject_is_an_invalid_argument(
    honesty: Honesty, writer: Caller
) -> None:
    with pytest.raises(InvalidArgument):
        honesty.claims.get("nas", "os", at="soon", caller=writer)
    with pytest.raises(InvalidArgument):
        honesty.claims.get("  ", "os", caller=writer)


def test_recording_a_claim_from_a_note_that_does_not_exist_is_not_found(
    honesty: Honesty, hoard: Hoard, writer: Caller
) -> None:
    with pytest.raises(NotFound):
        honesty.claims.record("nas", "os", "debian", "nowhere.md", caller=writer)
    with hoard.ledger.read() as conn:
        assert conn.execute("SELECT count(*) FROM claims").fetchone()[0] == 0


def test_a_protected_source_needs_a_grant_and_its_claims_stay_hidden_without_one(
    honesty: Honesty, hoard: Hoard, edit_note: Put, writer: Caller, reader: Caller
) -> None:
    edit_note("secret/pin.md", "PIN 1234")
    with pytest.raises(Protected):
        honesty.claims.record("door", "pin", "1234", "secret/pin.md", caller=writer)

    hoard.ledger.add_grant(writer.name, "secret/**", 10)
    honesty.claims.record("door", "pin", "1234", "secret/pin.md", caller=writer)

    hidden = honesty.claims.get("door", "pin", caller=reader)
    assert (hidden.status, hidden.hidden_claims) == ("no_claim", 1)
    assert honesty.claims.list_claims(caller=reader).claims == []
    assert honesty.claims.get("door", "pin", caller=writer).status == "current"


def test_recording_needs_the_write_scope_and_getting_needs_the_read_scope(
    honesty: Honesty, edit_note: Put, reader: Caller
) -> None:
    edit_note("a.md", "x")
    with pytest.raises(Forbidden):
        honesty.claims.record("nas", "os", "debian", "a.md", caller=reader)
    nobody = Caller("nobody", frozenset(), "direct")
    with pytest.raises(Forbidden):
        honesty.claims.get("nas", "os", caller=nobody)


def test_a_source_replaced_by_a_symlink_counts_as_changed(
    honesty: Honesty, edit_note: Put, vault: Path, writer: Caller
) -> None:
    edit_note("a.md", "IP 10.0.0.42")
    edit_note("b.md", "IP 10.0.0.42")
    honesty.claims.record("hue-bridge", "ip", "10.0.0.42", "a.md", caller=writer)
    (vault / "a.md").unlink()
    os.symlink(vault / "b.md", vault / "a.md")

    got = honesty.claims.get("hue-bridge", "ip", caller=writer)

    assert (got.status, got.current_revision) == ("abstained_stale_source", None)
