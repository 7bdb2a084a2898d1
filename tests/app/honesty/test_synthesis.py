"""A summary registers the revisions of its sources; synthesis_status walks them
transitively within a stated budget and names exactly the files that drifted."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from hoard.app.hoard import Hoard
from hoard.app.honesty import DISCLAIMER, Budget, Honesty
from hoard.core.errors import InvalidArgument, NotFound, Protected
from hoard.core.policy import Caller

Put = Callable[[str, str], Path]
Rev = Callable[[str], str]


def _summary(edit_note: Put, honesty: Honesty, path: str, sources: list[str], who: Caller) -> None:
    edit_note(path, "Summary of " + ", ".join(sources))
    honesty.syntheses.register(path, sources, caller=who)


def test_a_summary_whose_sources_are_unchanged_is_current_and_says_what_it_is_not(
    honesty: Honesty, edit_note: Put, rev: Rev, writer: Caller
) -> None:
    edit_note("a.md", "alpha")
    edit_note("b.md", "beta")
    edit_note("sum.md", "summary")

    reg = honesty.syntheses.register("sum.md", ["a.md", "b.md"], caller=writer)
    status = honesty.syntheses.status("sum.md", caller=writer)

    assert [(s.path, s.revision) for s in reg.sources] == [
        ("a.md", rev("a.md")),
        ("b.md", rev("b.md")),
    ]
    assert (status.state, status.drifted) == ("current", [])
    assert status.disclaimer == DISCLAIMER
    assert "not proof of truth" in DISCLAIMER
    assert "does not lock filesystem writers" in DISCLAIMER
    assert set(status.budget) >= {"file_checks", "bytes_read", "elapsed_ms", "exhausted"}
    assert status.budget["file_checks"] == 2
    assert status.budget["exhausted"] is False


def test_editing_a_source_makes_the_summary_stale_naming_exactly_that_file(
    honesty: Honesty, edit_note: Put, rev: Rev, writer: Caller
) -> None:
    for name in ("a.md", "b.md", "c.md"):
        edit_note(name, f"text of {name}")
    _summary(edit_note, honesty, "sum.md", ["a.md", "b.md", "c.md"], writer)
    recorded = rev("b.md")

    edit_note("b.md", "text of b.mD")  # same size, new bytes, new mtime
    status = honesty.syntheses.status("sum.md", caller=writer)

    assert status.state == "stale"
    assert [
        (d.path, d.recorded_revision, d.current_revision, d.missing) for d in status.drifted
    ] == [("b.md", recorded, rev("b.md"), False)]
    assert status.drifted[0].via == "sum.md"


def test_a_deleted_source_makes_the_summary_stale_as_missing(
    honesty: Honesty, edit_note: Put, vault: Path, writer: Caller
) -> None:
    edit_note("a.md", "alpha")
    edit_note("b.md", "beta")
    _summary(edit_note, honesty, "sum.md", ["a.md", "b.md"], writer)
    (vault / "a.md").unlink()

    status = honesty.syntheses.status("sum.md", caller=writer)

    assert status.state == "stale"
    [drift] = status.drifted
    assert (drift.path, drift.current_revision, drift.missing, drift.problem) == (
        "a.md",
        None,
        True,
        "missing",
    )


def test_a_chain_of_summaries_goes_stale_when_the_deepest_source_changes(
    honesty: Honesty, edit_note: Put, rev: Rev, writer: Caller
) -> None:
    edit_note("c.md", "the facts")
    _summary(edit_note, honesty, "b.md", ["c.md"], writer)
    _summary(edit_note, honesty, "a.md", ["b.md"], writer)
    assert honesty.syntheses.status("a.md", caller=writer).state == "current"

    edit_note("c.md", "the facts, revised")
    status = honesty.syntheses.status("a.md", caller=writer)

    assert status.state == "stale"
    assert [(d.path, d.via, d.current_revision) for d in status.drifted] == [
        ("c.md", "b.md", rev("c.md"))
    ]


def test_a_cycle_of_summaries_terminates(honesty: Honesty, edit_note: Put, writer: Caller) -> None:
    edit_note("a.md", "a")
    edit_note("b.md", "b")
    edit_note("c.md", "c")
    honesty.syntheses.register("a.md", ["b.md"], caller=writer)
    honesty.syntheses.register("b.md", ["c.md"], caller=writer)
    honesty.syntheses.register("c.md", ["a.md"], caller=writer)

    status = honesty.syntheses.status("a.md", caller=writer)

    assert status.state == "current"
    assert status.budget["file_checks"] == 3


def test_a_transitive_graph_of_over_200_sources_is_incomplete_after_exactly_128_checks(
    honesty: Honesty, edit_note: Put, writer: Caller, frozen_budget: Callable[[], Budget]
) -> None:
    top: list[str] = []
    for s in range(7):
        leaves = [f"leaf/{s}/{i}.md" for i in range(32)]
        for leaf in leaves:
            edit_note(leaf, leaf)
        _summary(edit_note, honesty, f"mid/{s}.md", leaves, writer)
        top.append(f"mid/{s}.md")
    for i in range(25):
        edit_note(f"top-leaf/{i}.md", str(i))
        top.append(f"top-leaf/{i}.md")
    _summary(edit_note, honesty, "top.md", top, writer)

    status = honesty.syntheses.status("top.md", caller=writer, budget=frozen_budget())

    assert status.state == "incomplete"
    assert status.budget["exhausted"] is True
    assert status.budget["exhausted_by"] == "file_checks"
    assert status.budget["file_checks"] == 128


def test_the_byte_budget_and_the_deadline_are_real_limits(
    honesty: Honesty, edit_note: Put, writer: Caller
) -> None:
    edit_note("big.md", "x" * 5000)
    edit_note("other.md", "y")
    _summary(edit_note, honesty, "sum.md", ["other.md", "big.md"], writer)
    honesty.cache.forget("big.md")

    by_bytes = honesty.syntheses.status("sum.md", caller=writer, budget=Budget(max_bytes=1000))
    now = [0.0]

    def clock() -> float:
        now[0] += 0.2  # every look at the clock costs 200 ms
        return now[0]

    by_time = honesty.syntheses.status("sum.md", caller=writer, budget=Budget(clock=clock))

    assert (by_bytes.state, by_bytes.budget["exhausted_by"]) == ("incomplete", "bytes")
    assert by_bytes.budget["bytes_read"] <= 1000
    assert (by_time.state, by_time.budget["exhausted_by"]) == ("incomplete", "time")


def test_re_registering_replaces_the_registration_and_keeps_the_old_one_in_history(
    honesty: Honesty, hoard: Hoard, edit_note: Put, writer: Caller
) -> None:
    edit_note("a.md", "a")
    edit_note("b.md", "b")
    edit_note("sum.md", "summary")
    first = honesty.syntheses.register("sum.md", ["a.md"], caller=writer)
    second = honesty.syntheses.register("sum.md", ["b.md"], caller=writer)
    edit_note("a.md", "a changed")  # only the old registration named it

    status = honesty.syntheses.status("sum.md", caller=writer)
    history = honesty.syntheses.history("sum.md", caller=writer)

    assert second.replaces == first.registration_id
    assert (status.state, status.registration_id) == ("current", second.registration_id)
    assert [(r.registration_id, r.current) for r in history.registrations] == [
        (second.registration_id, True),
        (first.registration_id, False),
    ]
    assert [s.path for s in history.registrations[1].sources] == ["a.md"]
    with hoard.ledger.read() as conn:
        assert conn.execute("SELECT count(*) FROM syntheses").fetchone()[0] == 2


def test_a_note_that_was_never_registered_is_unregistered(
    honesty: Honesty, edit_note: Put, reader: Caller
) -> None:
    edit_note("plain.md", "just a note")

    status = honesty.syntheses.status("plain.md", caller=reader)

    assert (status.state, status.drifted, status.registration_id) == ("unregistered", [], None)
    assert status.disclaimer == DISCLAIMER
    assert status.budget["file_checks"] == 0


def test_a_summary_registers_at_most_32_sources(
    honesty: Honesty, hoard: Hoard, edit_note: Put, writer: Caller
) -> None:
    names = [f"s/{i}.md" for i in range(33)]
    for n in names:
        edit_note(n, n)
    edit_note("sum.md", "summary")

    with pytest.raises(InvalidArgument) as err:
        honesty.syntheses.register("sum.md", names, caller=writer)
    ok = honesty.syntheses.register("sum.md", names[:32], caller=writer)

    assert err.value.details["limit"] == 32
    assert len(ok.sources) == 32
    with hoard.ledger.read() as conn:
        assert conn.execute("SELECT count(*) FROM syntheses").fetchone()[0] == 1


def test_registering_a_missing_source_is_not_found_and_records_nothing(
    honesty: Honesty, hoard: Hoard, edit_note: Put, writer: Caller
) -> None:
    edit_note("a.md", "a")
    edit_note("sum.md", "summary")

    with pytest.raises(NotFound):
        honesty.syntheses.register("sum.md", ["a.md", "gone.md"], caller=writer)

    with hoard.ledger.read() as conn:
        assert conn.execute("SELECT count(*) FROM syntheses").fetchone()[0] == 0


def test_a_summary_cannot_be_its_own_source_and_repeated_sources_count_once(
    honesty: Honesty, edit_note: Put, writer: Caller
) -> None:
    edit_note("a.md", "a")
    edit_note("sum.md", "summary")

    with pytest.raises(InvalidArgument):
        honesty.syntheses.register("sum.md", ["sum.md"], caller=writer)
    with pytest.raises(InvalidArgument):
        honesty.syntheses.register("sum.md", [], caller=writer)
    reg = honesty.syntheses.register("sum.md", ["a.md", "a.md"], caller=writer)

    assert [s.path for s in reg.sources] == ["a.md"]


def test_a_protected_source_without_a_grant_is_refused_as_protected(
    honesty: Honesty, hoard: Hoard, edit_note: Put, writer: Caller
) -> None:
    edit_note("secret/plan.md", "the plan")
    edit_note("sum.md", "summary")

    with pytest.raises(Protected):
        honesty.syntheses.register("sum.md", ["secret/plan.md"], caller=writer)
    hoard.ledger.add_grant(writer.name, "secret/**", 10)

    assert honesty.syntheses.register("sum.md", ["secret/plan.md"], caller=writer).sources


def test_a_drifted_protected_source_is_counted_but_not_named_to_a_caller_without_a_grant(
    honesty: Honesty, edit_note: Put, reader: Caller
) -> None:
    owner_side = Caller("owner", frozenset({"read", "write"}), "direct", owner=True)
    edit_note("secret/plan.md", "the plan")
    edit_note("a.md", "a")
    _summary(edit_note, honesty, "sum.md", ["a.md", "secret/plan.md"], owner_side)
    edit_note("secret/plan.md", "the new plan")

    status = honesty.syntheses.status("sum.md", caller=reader)

    assert (status.state, status.drifted, status.hidden_drifted) == ("stale", [], 1)


def test_a_second_status_on_unchanged_files_reuses_cached_hashes_and_reads_no_bytes(
    honesty: Honesty, edit_note: Put, writer: Caller
) -> None:
    for name in ("a.md", "b.md", "c.md"):
        edit_note(name, f"text of {name}")
    _summary(edit_note, honesty, "sum.md", ["a.md", "b.md", "c.md"], writer)
    honesty.cache.forget("a.md")  # make the first call hash at least one file itself

    first = honesty.syntheses.status("sum.md", caller=writer)
    second = honesty.syntheses.status("sum.md", caller=writer)
    rev_size = edit_note("c.md", "text of c.mD").stat().st_size
    third = honesty.syntheses.status("sum.md", caller=writer)

    assert first.budget["bytes_read"] > 0
    assert (second.budget["cached"], second.budget["bytes_read"]) == (3, 0)
    assert "not re-read" in second.cache
    assert third.budget["cached"] == 2
    assert third.budget["bytes_read"] == rev_size
    assert [d.path for d in third.drifted] == ["c.md"]
