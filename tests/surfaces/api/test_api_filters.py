"""Finding notes by their fields over the JSON API (issue 20 item 4 on this surface):
``GET /search`` with the frontmatter filters as query parameters (repeatable), an empty ``q``
listing the matching notes newest first with paging, and ``GET /tags`` with counts; protected
notes stay out of results and counts."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.helpers import wait_until
from tests.surfaces.api.conftest import Api, serving

NOTES = {
    # path: (type, status, tags, updated)
    "tasks/kettle.md": ("task", "in-progress", "homelab, kettle", "2026-04-02"),
    "tasks/router.md": ("task", "done", "homelab, network", "2026-02-10"),
    "ideas/garden.md": ("idea", "active", "garden, outdoors", "2026-03-15"),
    "tasks/ukol.md": ("task", "in-progress", "Úkol, network", "2026-05-20"),
}


def _fm(title: str, kind: str, status: str, tags: str, updated: str) -> str:
    return (
        f"---\ntitle: {title}\ntype: {kind}\nstatus: {status}\ntags: [{tags}]\n"
        f"updated: {updated}\n---\nThe {title.lower()} note, about homelab things.\n"
    )


@pytest.fixture(scope="module")
def fields(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Api]:
    with serving(tmp_path_factory.mktemp("filters")) as served:
        for path, (kind, status, tags, updated) in NOTES.items():
            title = path.split("/")[1].removesuffix(".md").capitalize()
            if not tags.isascii():  # the contract refuses such a tag in a write: an outside edit
                (served.vault / path).write_text(
                    _fm(title, kind, status, tags, updated), encoding="utf-8"
                )
                continue
            r = served.client("owner").put(
                f"/notes/{path}",
                json={"content": _fm(title, kind, status, tags, updated)},
                headers={"If-None-Match": "*"},
            )
            assert r.status_code == 201, r.text
        # The outside edit is seen by the next stat walk (at most one a second, without a
        # watcher): wait for it rather than race it.
        outside = [p for p, (*_, tags, _u) in NOTES.items() if not tags.isascii()]
        wait_until(lambda: set(outside) <= set(_paths(served, [("q", ""), ("type", "task")])))
        yield served


def _paths(api: Api, params: list[tuple[str, str]], who: str = "reader") -> list[str]:
    r = api.client(who).get("/search", params=params)
    assert r.status_code == 200, r.text
    return [hit["path"] for hit in r.json()["results"]]


def test_an_empty_query_with_filters_lists_matching_notes_newest_first(fields: Api) -> None:
    got = _paths(fields, [("q", ""), ("type", "task")])
    assert got == ["tasks/ukol.md", "tasks/kettle.md", "tasks/router.md"]
    r = fields.client("reader").get("/search", params={"q": "", "type": "task"})
    assert r.json()["engine"] == "index"


def test_each_filter_alone_and_combined(fields: Api) -> None:
    assert _paths(fields, [("q", ""), ("status", "in-progress"), ("status", "done")]) == [
        "tasks/ukol.md",
        "tasks/kettle.md",
        "tasks/router.md",
    ]
    assert _paths(fields, [("q", ""), ("tag", "homelab"), ("tag", "network")]) == [
        "tasks/router.md"
    ]
    assert _paths(fields, [("q", ""), ("any_tag", "garden"), ("any_tag", "kettle")]) == [
        "tasks/kettle.md",
        "ideas/garden.md",
    ]
    assert _paths(
        fields,
        [
            ("q", ""),
            ("type", "task"),
            ("updated_after", "2026-03-01"),
            ("updated_before", "2026-04-30"),
        ],
    ) == ["tasks/kettle.md"]
    assert _paths(fields, [("q", ""), ("tag", "úkol")]) == ["tasks/ukol.md"]
    assert _paths(fields, [("q", ""), ("tag", "nothing-has-this")]) == []
    assert _paths(fields, [("q", "homelab"), ("status", "done")]) == ["tasks/router.md"]


def test_paging_through_filtered_results_with_offset(fields: Api) -> None:
    c = fields.client("reader")
    first = c.get("/search", params={"q": "", "type": "task", "limit": 2}).json()
    assert [h["path"] for h in first["results"]] == ["tasks/ukol.md", "tasks/kettle.md"]
    assert first["next_offset"] == 2
    rest = c.get("/search", params={"q": "", "type": "task", "limit": 2, "offset": 2}).json()
    assert [h["path"] for h in rest["results"]] == ["tasks/router.md"]
    assert rest["next_offset"] is None


def test_protected_notes_stay_out_of_filtered_results_and_tag_counts_without_a_grant(
    fields: Api,
) -> None:
    assert "secret/plan.md" not in _paths(fields, [("q", ""), ("tag", "alpha")])
    r = fields.client("owner").post(
        "/admin/grants", json={"caller": "writer", "glob": "secret/**", "minutes": 30}
    )
    assert r.status_code in (200, 201), r.text
    assert "secret/plan.md" in _paths(fields, [("q", ""), ("tag", "alpha")], who="writer")
    reader = {t["tag"]: t["count"] for t in fields.client("reader").get("/tags").json()["tags"]}
    granted = {t["tag"]: t["count"] for t in fields.client("writer").get("/tags").json()["tags"]}
    assert granted["alpha"] == reader["alpha"] + 1  # the protected plan, counted with a grant
    assert reader["homelab"] == 2 and reader["network"] == 2


def test_tags_of_one_folder_most_used_first(fields: Api) -> None:
    r = fields.client("reader").get("/tags", params={"folder": "tasks"})
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["folder"] == "tasks"
    counts = [t["count"] for t in body["tags"]]
    assert counts == sorted(counts, reverse=True)
    assert {t["tag"] for t in body["tags"]} >= {"homelab", "network", "kettle"}
    assert "garden" not in {t["tag"] for t in body["tags"]}


def test_a_bad_filter_value_is_400(fields: Api) -> None:
    r = fields.client("reader").get("/search", params={"q": "", "updated_after": "March"})
    assert r.status_code == 400
    assert r.json()["error"] == "invalid_argument"
    r = fields.client("reader").get("/search", params={"q": "x", "semantic": "maybe"})
    assert r.status_code == 400
