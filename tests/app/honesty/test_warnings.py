"""Read and search results that are registered summaries carry their synthesis state, and
all the warnings of one response draw on one budget."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from hoard.app.honesty import DISCLAIMER, Budget, Honesty
from hoard.core.policy import Caller

Put = Callable[[str, str], Path]


def test_warnings_for_ten_registered_summaries_share_one_budget_of_128_file_checks(
    honesty: Honesty, edit_note: Put, writer: Caller, frozen_budget: Callable[[], Budget]
) -> None:
    summaries = []
    for s in range(10):
        sources = [f"src/{s}/{i}.md" for i in range(32)]
        for src in sources:
            edit_note(src, src)
        edit_note(f"sum/{s}.md", "summary")
        honesty.syntheses.register(f"sum/{s}.md", sources, caller=writer)
        summaries.append(f"sum/{s}.md")
    budget = frozen_budget()

    warnings = honesty.warnings_for(summaries, budget, caller=writer)

    assert budget.file_checks == 128
    assert budget.exhausted is True
    # The first four were checked whole and are current: no warning (a warning means
    # something is wrong); the budget ran out for the other six.
    assert [p for p in summaries if p not in warnings] == summaries[:4]
    states = [warnings[p][0]["state"] for p in summaries[4:]]
    assert states == ["incomplete"] * 6
    stated = {id(warnings[p][0]["budget"]) for p in summaries[4:]}
    assert len(stated) == 1  # one budget object, stated in every warning
    assert warnings[summaries[4]][0]["budget"]["file_checks"] == 128


def test_warnings_name_the_drifted_files_of_stale_summaries_and_skip_plain_notes(
    honesty: Honesty, edit_note: Put, writer: Caller
) -> None:
    edit_note("a.md", "a")
    edit_note("b.md", "b")
    edit_note("plain.md", "not a summary")
    edit_note("sum.md", "summary")
    honesty.syntheses.register("sum.md", ["a.md", "b.md"], caller=writer)
    edit_note("b.md", "b changed")

    warnings = honesty.warnings_for(["plain.md", "sum.md"], Budget(), caller=writer)

    assert list(warnings) == ["sum.md"]
    [w] = warnings["sum.md"]
    assert (w["kind"], w["state"]) == ("synthesis", "stale")
    assert [d["path"] for d in w["drifted"]] == ["b.md"]
    assert w["disclaimer"] == DISCLAIMER
    assert w["message"].startswith("synthesis: 1 source file(s) changed")


def test_summaries_sharing_sources_check_each_file_once_per_response(
    honesty: Honesty, edit_note: Put, writer: Caller
) -> None:
    sources = [f"src/{i}.md" for i in range(20)]
    for src in sources:
        edit_note(src, src)
    for s in ("one.md", "two.md", "three.md"):
        edit_note(s, "summary")
        honesty.syntheses.register(s, sources, caller=writer)
    budget = Budget()

    warnings = honesty.warnings_for(
        ["one.md", "two.md", "three.md", "one.md"], budget, caller=writer
    )

    assert budget.file_checks == 20
    assert warnings == {}  # all three are current: nothing to warn about


def test_a_budget_stops_at_its_limit_and_says_what_ran_out() -> None:
    budget = Budget(clock=lambda: 0.0)

    taken = sum(budget.take_check() for _ in range(200))

    assert taken == 128
    assert budget.as_dict()["exhausted"] is True
    assert budget.as_dict()["exhausted_by"] == "file_checks"
    assert budget.as_dict()["file_checks"] == 128
