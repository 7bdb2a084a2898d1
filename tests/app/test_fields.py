"""Finding notes by their fields: vault_search filters (inside the index query), the
filtered listing, and vault_tags; protected notes stay invisible, counts included."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from hoard.app.hoard import Hoard
from hoard.core.errors import HoardError
from hoard.core.policy import OWNER, Caller

AGENT = Caller("agent", frozenset({"read"}), "direct")


def note(title: str, type_: str, status: str, tags: list[str], updated: str, body: str) -> str:
    return (
        f"---\ntitle: {title}\ntype: {type_}\nstatus: {status}\ntags: [{', '.join(tags)}]\n"
        f"updated: {updated}\n---\n{body}\n"
    )


NOTES = {
    "projects/router.md": note(
        "Router",
        "task",
        "in-progress",
        ["homelab", "net"],
        "2026-03-05",
        "Flash the router firmware.",
    ),
    "projects/nas.md": note(
        "NAS",
        "task",
        "done",
        ["homelab", "úkol"],
        "2026-02-01",
        "The router forwards the NAS port.",
    ),
    "life/soup.md": note(
        "Soup",
        "note",
        "active",
        ["cooking", "Úkol"],
        "2026-04-01",
        "Soup recipe, not about any router.",
    ),
    "secret/plan.md": note(
        "Plan",
        "task",
        "in-progress",
        ["secret-tag", "homelab"],
        "2026-05-01",
        "The router password plan.",
    ),
    "tech/old.md": note("Old", "note", "archived", ["homelab", "net"], "2025-12-31", "Old."),
    "tech/undated.md": "---\ntitle: Undated\ntype: note\ntags: [net]\n---\nNo date.\n",
    "personal-notes/diary.md": "dear diary, router trouble\n",
}


@pytest.fixture
def hoard(tmp_path: Path) -> Iterator[Hoard]:
    root = tmp_path / "vault"
    for rel, text in NOTES.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    (root / "hoard.toml").write_text('protected = ["secret/**"]\n', encoding="utf-8")
    with Hoard(root, tmp_path / "state") as h:
        yield h


def paths(hoard: Hoard, query: str = "", caller: Caller = AGENT, **filters: Any) -> list[str]:
    result = hoard.searching.search(query, 20, caller=caller, filters=filters)
    return [h.path for h in result.results]


LISTINGS = [
    ("type", {"type": "task"}, ["projects/router.md", "projects/nas.md"]),
    (
        "type list",
        {"type": ["task", "note"]},
        ["life/soup.md", "projects/router.md", "projects/nas.md", "tech/old.md", "tech/undated.md"],
    ),
    ("status", {"status": "in-progress"}, ["projects/router.md"]),
    ("status any case", {"status": "In-Progress"}, ["projects/router.md"]),
    ("tags all of", {"tags": ["homelab", "net"]}, ["projects/router.md", "tech/old.md"]),
    (
        "tags_any",
        {"tags_any": ["cooking", "done-nothing", "net"]},
        ["life/soup.md", "projects/router.md", "tech/old.md", "tech/undated.md"],
    ),
    ("a tag with diacritics, any case", {"tags": ["úkol"]}, ["life/soup.md", "projects/nas.md"]),
    ("diacritics are not folded in a filter", {"tags": ["ukol"]}, []),
    (
        "updated_after is inclusive",
        {"updated_after": "2026-03-05"},
        ["life/soup.md", "projects/router.md"],
    ),
    (
        "updated_before is inclusive",
        {"updated_before": "2026-02-01"},
        ["projects/nas.md", "tech/old.md"],
    ),
    (
        "a date range",
        {"updated_after": "2026-01-01", "updated_before": "2026-03-31"},
        ["projects/router.md", "projects/nas.md"],
    ),
    ("folder", {"folder": "projects"}, ["projects/router.md", "projects/nas.md"]),
    (
        "combined",
        {"type": "task", "tags": ["homelab"], "updated_after": "2026-03-01"},
        ["projects/router.md"],
    ),
    ("nothing matches", {"type": "task", "status": "archived"}, []),
]


@pytest.mark.parametrize(
    ("filters", "expected"), [c[1:] for c in LISTINGS], ids=[c[0] for c in LISTINGS]
)
def test_an_empty_query_lists_the_matching_notes_newest_first(
    hoard: Hoard, filters: dict[str, Any], expected: list[str]
) -> None:
    assert paths(hoard, **filters) == expected


SEARCHES = [
    ("type", {"type": "task"}, {"projects/router.md", "projects/nas.md"}),
    ("tag", {"tags": ["úkol"]}, {"projects/nas.md", "life/soup.md"}),
    ("status and folder", {"status": "done", "folder": "projects"}, {"projects/nas.md"}),
    ("updated", {"updated_after": "2026-03-01"}, {"projects/router.md", "life/soup.md"}),
    ("nothing", {"tags": ["absent"]}, set()),
]


@pytest.mark.parametrize(
    ("filters", "expected"), [c[1:] for c in SEARCHES], ids=[c[0] for c in SEARCHES]
)
def test_a_query_with_filters_ranks_only_the_matching_notes(
    hoard: Hoard, filters: dict[str, Any], expected: set[str]
) -> None:
    assert set(paths(hoard, "router", **filters)) == expected


def test_filters_apply_before_the_page_is_cut(hoard: Hoard) -> None:
    result = hoard.searching.search("router", 1, caller=AGENT, filters={"status": "done"})
    assert [h.path for h in result.results] == ["projects/nas.md"]


def test_protected_notes_are_invisible_and_only_counted_as_hidden(hoard: Hoard) -> None:
    listed = hoard.searching.search("", 20, caller=AGENT, filters={"tags": ["homelab"]})
    assert "secret/plan.md" not in [h.path for h in listed.results]
    assert listed.hidden_protected == 1
    owner = hoard.searching.search("", 20, filters={"tags": ["homelab"]}, caller=OWNER)
    assert owner.results[0].path == "secret/plan.md"
    tags = {t.tag: t.count for t in hoard.searching.fields.tags(caller=AGENT).tags}
    assert "secret-tag" not in tags
    assert tags["homelab"] == 3
    assert {t.tag: t.count for t in hoard.searching.fields.tags(caller=OWNER).tags}["homelab"] == 4


def test_tags_are_counted_most_used_first_and_by_folder(hoard: Hoard) -> None:
    result = hoard.searching.fields.tags(caller=AGENT)
    assert [(t.tag, t.count) for t in result.tags[:2]] == [("homelab", 3), ("net", 3)]
    assert ("úkol", 2) in [(t.tag.lower(), t.count) for t in result.tags]
    in_projects = hoard.searching.fields.tags("projects", caller=AGENT)
    assert {t.tag: t.count for t in in_projects.tags} == {"homelab": 2, "net": 1, "úkol": 1}


def test_a_listing_is_paged(hoard: Hoard) -> None:
    first = hoard.searching.search("", 2, caller=AGENT, filters={"type": ["task", "note"]})
    assert first.next_offset == 2
    second = hoard.searching.search(
        "", 2, caller=AGENT, filters={"type": ["task", "note"]}, offset=2
    )
    third = hoard.searching.search(
        "", 2, caller=AGENT, filters={"type": ["task", "note"]}, offset=4
    )
    listed = [h.path for r in (first, second, third) for h in r.results]
    assert listed == paths(hoard, type=["task", "note"])
    assert third.next_offset is None
    assert first.engine == "index"


def test_a_listing_sees_a_note_edited_a_moment_ago(hoard: Hoard) -> None:
    raw = (hoard.vault.root / "tech" / "old.md").read_text(encoding="utf-8")
    (hoard.vault.root / "tech" / "old.md").write_text(
        raw.replace("archived", "in-progress"), encoding="utf-8"
    )
    hoard.maintenance.reindex()
    assert "tech/old.md" in paths(hoard, status="in-progress")


@pytest.mark.parametrize(
    "filters",
    [
        {"colour": "red"},
        {"type": 3},
        {"tags": "not-a-list-is-fine-but-empty-is-not", "tags_any": [""]},
        {"updated_after": "March"},
        {"updated_before": "2026-3-1"},
        {"folder": "../x"},
    ],
)
def test_bad_filters_are_invalid_arguments(hoard: Hoard, filters: dict[str, Any]) -> None:
    with pytest.raises(HoardError) as info:
        hoard.searching.search("", 10, caller=AGENT, filters=filters)
    assert info.value.code in ("invalid_argument", "path_rejected")


def test_empty_filters_are_no_filters(hoard: Hoard) -> None:
    assert hoard.searching.search("", 10, caller=AGENT, filters={}).results == []
