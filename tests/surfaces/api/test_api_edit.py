"""Editing and moving notes over the JSON API against a real uvicorn (issue 20's routes):
``PATCH /notes/{path}`` with the vault_edit list and ``POST /notes/{path}/move``, both under
``If-Match`` (428 without, 412 stale), dry runs, proposals (202), contract violations (422),
missing or repeated headings, and a move onto a taken path (409)."""

from __future__ import annotations

import hashlib
from pathlib import Path

import httpx2

from tests.surfaces.api.conftest import Api, note


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _tag(path: Path) -> str:
    return f'"{_sha(path.read_bytes())}"'


def _create(api: Api, rel: str, text: str) -> Path:
    r = api.client("owner").put(
        f"/notes/{rel}", json={"content": text}, headers={"If-None-Match": "*"}
    )
    assert r.status_code == 201, r.text
    return api.vault / rel


def _patch(
    c: httpx2.Client, rel: str, edits: list[dict[str, object]], tag: str | None, query: str = ""
) -> httpx2.Response:
    headers = {"If-Match": tag} if tag else {}
    return c.patch(f"/notes/{rel}{query}", json={"edits": edits}, headers=headers)


SECTIONS = "# Log\n\n## Done\n\n- shipped\n\n## Todo\n\n- kettle\n"


def test_a_patch_with_if_match_applies_the_edits_200_with_the_new_etag(api: Api) -> None:
    file = _create(api, "tech/patch-ok.md", note("Patch", SECTIONS))
    old = file.read_bytes()
    edits = [
        {"op": "append_to_section", "heading": "Todo", "text": "- descale"},
        {"op": "set_fields", "fields": {"status": "done"}},
        {"op": "add_tags", "tags": ["gamma"]},
    ]
    r = _patch(api.client("writer"), "tech/patch-ok.md", edits, _tag(file))
    assert r.status_code == 200, r.text
    body = r.json()
    new = file.read_bytes()
    assert body["status"] == "written"
    assert body["previous_revision"] == _sha(old)
    assert body["revision"] == _sha(new)
    assert r.headers["etag"] == f'"{_sha(new)}"'
    assert b"- kettle\n- descale\n" in new
    assert b"status: done" in new and b"gamma" in new
    assert r.headers["cache-control"] == "no-store"


def test_a_patch_without_if_match_is_428_and_a_stale_one_412_with_the_current_revision(
    api: Api,
) -> None:
    file = _create(api, "tech/patch-pre.md", note("Pre", "Body."))
    before = file.read_bytes()
    edit = [{"op": "append", "text": "more"}]
    c = api.client("writer")
    r = _patch(c, "tech/patch-pre.md", edit, None)
    assert r.status_code == 428
    assert r.json()["error"] == "invalid_argument"
    r = _patch(c, "tech/patch-pre.md", edit, '"' + "0" * 64 + '"')
    assert r.status_code == 412
    assert r.json()["error"] == "conflict"
    assert r.json()["current_revision"] == _sha(before)
    r = c.patch("/notes/tech/patch-pre.md", json={"edits": edit}, headers={"If-None-Match": "*"})
    assert r.status_code == 400
    assert file.read_bytes() == before


def test_a_patch_dry_run_answers_the_diff_and_changes_nothing(api: Api) -> None:
    file = _create(api, "tech/patch-dry.md", note("Dry", "Body."))
    before = file.read_bytes()
    r = _patch(
        api.client("writer"),
        "tech/patch-dry.md",
        [{"op": "append", "text": "later"}],
        _tag(file),
        "?dry_run=1",
    )
    assert r.status_code == 200, r.text
    assert r.json()["status"] == "dry_run"
    assert "+later" in r.json()["diff"]
    assert file.read_bytes() == before


def test_a_proposers_patch_is_202_a_proposal_that_a_confirm_applies(api: Api) -> None:
    file = _create(api, "tech/patch-prop.md", note("Prop", "Body."))
    before = file.read_bytes()
    r = _patch(
        api.client("proposer"),
        "tech/patch-prop.md",
        [{"op": "prepend", "text": "First."}],
        _tag(file),
    )
    assert r.status_code == 202, r.text
    proposal = r.json()
    assert proposal["status"] == "proposed" and proposal["proposal_id"]
    assert file.read_bytes() == before
    done = api.client("owner").post(f"/proposals/{proposal['proposal_id']}/confirm")
    assert done.status_code == 200, done.text
    assert b"First.\n" in file.read_bytes()


def test_a_patch_that_breaks_the_contract_is_422_listing_the_violation(api: Api) -> None:
    file = _create(api, "tech/patch-contract.md", note("Contract", "Body."))
    before = file.read_bytes()
    r = _patch(
        api.client("writer"),
        "tech/patch-contract.md",
        [{"op": "remove_fields", "keys": ["title"]}],
        _tag(file),
    )
    assert r.status_code == 422, r.text
    assert r.json()["error"] == "contract_violation"
    assert any(v.get("field") == "title" for v in r.json()["violations"])
    assert file.read_bytes() == before


def test_a_missing_heading_is_404_and_a_repeated_one_409_ambiguous(api: Api) -> None:
    file = _create(api, "tech/patch-heads.md", note("Heads", "## A\n\nx\n\n## A\n\ny\n"))
    before = file.read_bytes()
    c = api.client("writer")
    r = _patch(
        c,
        "tech/patch-heads.md",
        [{"op": "append_to_section", "heading": "Nope", "text": "z"}],
        _tag(file),
    )
    assert r.status_code == 404
    assert r.json()["error"] == "not_found"
    assert r.json()["heading"] == "Nope"
    r = _patch(
        c,
        "tech/patch-heads.md",
        [{"op": "replace_section", "heading": "A", "text": "z"}],
        _tag(file),
    )
    assert r.status_code == 409
    assert r.json()["error"] == "ambiguous"
    assert r.json()["edit"] == 0
    assert file.read_bytes() == before


def test_malformed_edit_lists_are_400_and_a_count_mismatch_names_the_edit(api: Api) -> None:
    file = _create(api, "tech/patch-bad.md", note("Bad", "one two one"))
    before = file.read_bytes()
    c = api.client("writer")
    for edits in ([], [{"op": "explode"}], [{"op": "append"}]):
        r = _patch(c, "tech/patch-bad.md", edits, _tag(file))
        assert r.status_code == 400, (edits, r.text)
        assert r.json()["error"] == "invalid_argument"
    r = c.patch("/notes/tech/patch-bad.md", json={"edit": []}, headers={"If-Match": _tag(file)})
    assert r.status_code == 400
    r = _patch(
        c, "tech/patch-bad.md", [{"op": "find_replace", "find": "one", "replace": "1"}], _tag(file)
    )
    assert r.status_code == 400
    assert r.json()["found"] == 2 and r.json()["expected_count"] == 1
    assert file.read_bytes() == before


def test_a_reader_a_private_note_and_a_missing_note_are_refused(api: Api) -> None:
    edit = [{"op": "append", "text": "x"}]
    hub = api.vault / "tech" / "hub.md"
    r = _patch(api.client("reader"), "tech/hub.md", edit, _tag(hub))
    assert r.status_code == 403 and r.json()["error"] == "forbidden"
    diary = api.vault / "personal-notes" / "diary.md"
    r = _patch(api.client("owner"), "personal-notes/diary.md", edit, _tag(diary))
    assert r.status_code == 403 and r.json()["error"] == "private_note"
    r = _patch(api.client("owner"), "tech/nowhere.md", edit, '"' + "a" * 64 + '"')
    assert r.status_code == 404 and r.json()["error"] == "not_found"


# -- move -------------------------------------------------------------------------------------


def test_a_move_rewrites_the_links_and_both_indexes_200(api: Api) -> None:
    file = _create(api, "tech/lamp.md", note("Lamp", "The desk lamp."))
    linker = _create(api, "tech/desk.md", note("Desk", "See [[tech/lamp|the lamp]]."))
    (api.vault / "life" / "_INDEX.md").write_text(note("Life", "- [[long]]"), encoding="utf-8")
    index = api.vault / "tech" / "_INDEX.md"
    index.write_text(index.read_text(encoding="utf-8") + "- [[lamp]]\n", encoding="utf-8")
    r = api.client("writer").post(
        "/notes/tech/lamp.md/move",
        json={"new_path": "life/lamp.md"},
        headers={"If-Match": _tag(file)},
    )
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["status"] == "moved" and body["new_path"] == "life/lamp.md"
    roles = {f["path"]: f["role"] for f in body["files"]}
    assert roles["tech/desk.md"] == "link" and roles["tech/lamp.md"] == "old"
    assert not file.exists()
    assert (api.vault / "life" / "lamp.md").exists()
    assert "[[life/lamp|the lamp]]" in linker.read_text(encoding="utf-8")
    assert "[[lamp]]" in (api.vault / "life" / "_INDEX.md").read_text(encoding="utf-8")
    assert "[[lamp]]" not in index.read_text(encoding="utf-8")
    moved = api.client("writer").get("/notes/life/lamp.md")
    assert moved.status_code == 200 and moved.json()["revision"] == body["revision"]


def test_a_move_onto_a_taken_path_is_409_and_changes_nothing(api: Api) -> None:
    file = _create(api, "tech/clash-a.md", note("Clash A", "a"))
    other = _create(api, "tech/clash-b.md", note("Clash B", "b"))
    before = (file.read_bytes(), other.read_bytes())
    r = api.client("writer").post(
        "/notes/tech/clash-a.md/move",
        json={"new_path": "tech/clash-b.md"},
        headers={"If-Match": _tag(file)},
    )
    assert r.status_code == 409, r.text
    assert r.json()["error"] == "exists"
    assert (file.read_bytes(), other.read_bytes()) == before


def test_a_move_needs_if_match_and_a_stale_one_is_412(api: Api) -> None:
    file = _create(api, "tech/mv-pre.md", note("Mv", "m"))
    c = api.client("writer")
    r = c.post("/notes/tech/mv-pre.md/move", json={"new_path": "life/mv-pre.md"})
    assert r.status_code == 428
    r = c.post(
        "/notes/tech/mv-pre.md/move",
        json={"new_path": "life/mv-pre.md"},
        headers={"If-Match": '"' + "0" * 64 + '"'},
    )
    assert r.status_code == 412
    assert r.json()["current_revision"] == _sha(file.read_bytes())
    assert file.exists() and not (api.vault / "life" / "mv-pre.md").exists()


def test_a_move_dry_run_lists_the_files_and_a_proposer_gets_202(api: Api) -> None:
    file = _create(api, "tech/mv-dry.md", note("Mv dry", "m"))
    r = api.client("writer").post(
        "/notes/tech/mv-dry.md/move?dry_run=true",
        json={"new_path": "life/mv-dry.md"},
        headers={"If-Match": _tag(file)},
    )
    assert r.status_code == 200, r.text
    assert r.json()["status"] == "dry_run"
    assert {f["path"] for f in r.json()["files"]} >= {"tech/mv-dry.md", "life/mv-dry.md"}
    assert file.exists() and not (api.vault / "life" / "mv-dry.md").exists()
    r = api.client("proposer").post(
        "/notes/tech/mv-dry.md/move",
        json={"new_path": "life/mv-dry.md"},
        headers={"If-Match": _tag(file)},
    )
    assert r.status_code == 202, r.text
    assert r.json()["status"] == "proposed" and r.json()["proposal_id"]
    assert file.exists() and not (api.vault / "life" / "mv-dry.md").exists()


def test_the_openapi_document_describes_patch_and_move(api: Api) -> None:
    doc = api.client("reader").get("/openapi.json").json()
    patch = doc["paths"]["/notes/{path}"]["patch"]
    assert patch["operationId"] == "edit"
    assert {"200", "202", "412", "422", "428"} <= set(patch["responses"])
    assert any(p["name"] == "If-Match" for p in patch["parameters"])
    move = doc["paths"]["/notes/{path}/move"]["post"]
    assert move["operationId"] == "move" and "409" in move["responses"]
    assert doc["components"]["schemas"]["MoveBody"]["required"] == ["new_path"]
