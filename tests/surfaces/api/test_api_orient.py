"""The orientation routes over a real uvicorn: ``GET /recent`` (a write through the API is
listed with its caller, protected notes are never named, the cursor pages and then tells
only what changed since) and ``GET /context/{path}`` (within its budget)."""

from __future__ import annotations

from tests.surfaces.api.conftest import SECRET_WORD, Api, note


def test_recent_lists_a_write_made_over_the_api_and_never_names_a_protected_note(
    api: Api,
) -> None:
    writer = api.client("writer")
    start = api.client("reader").get("/recent").json()
    r = writer.put(
        "/notes/tech/orient-new.md",
        content=note("Orient new", "A fresh note."),
        headers={"Content-Type": "text/markdown", "If-None-Match": "*"},
    )
    assert r.status_code in (200, 201), r.text
    api.hoard.writes.write(
        "secret/plan-two.md", note("Plan two", SECRET_WORD), caller=api.hoard.owner
    )
    after = api.client("reader").get("/recent", params={"cursor": start["cursor"]})
    assert after.status_code == 200
    body = after.json()
    assert [(c["path"], c["who"], c["kind"]) for c in body["changes"]] == [
        ("tech/orient-new.md", "writer", "created")
    ]
    assert "secret" not in after.text
    quiet = api.client("reader").get("/recent", params={"cursor": body["cursor"]}).json()
    assert quiet["changes"] == []


def test_context_answers_within_its_budget(api: Api) -> None:
    r = api.client("reader").get("/context/tech/hub.md", params={"budget_bytes": 600})
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["path"] == "tech/hub.md" and body["used_bytes"] <= 600
    assert body["parts"][0]["kind"] == "note"
    assert SECRET_WORD not in r.text


def test_a_bad_cursor_is_a_400(api: Api) -> None:
    r = api.client("reader").get("/recent", params={"cursor": "nope"})
    assert r.status_code == 400 and r.json()["error"] == "invalid_argument"
