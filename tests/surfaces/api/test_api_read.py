"""Reading over the JSON API against a real uvicorn: search, notes with ETags and ranges,
links, history, lists, policy; auth, headers and the error mapping."""

from __future__ import annotations

import hashlib

import httpx2

from tests.surfaces.api.conftest import PRIVATE_WORD, SECRET_WORD, Api


def _error(r: httpx2.Response, status: int, code: str) -> dict[str, object]:
    assert r.status_code == status, r.text
    body = r.json()
    assert body["error"] == code, body
    assert isinstance(body["message"], str) and body["message"]
    return body


def test_a_search_answers_with_the_same_result_object_as_the_tool(api: Api) -> None:
    r = api.client("reader").get("/search", params={"q": "bridge firmware", "limit": 5})
    assert r.status_code == 200
    body = r.json()
    assert body["results"][0]["path"] == "tech/hub.md"
    assert {
        "query",
        "engine",
        "error",
        "contested",
        "reranked",
        "hidden_protected",
        "took_ms",
        "results",
        "warnings",
    } <= set(body)
    assert r.headers["cache-control"] == "no-store"
    assert r.headers["content-type"].startswith("application/json")


def test_a_search_says_how_many_protected_hits_it_hid_never_which(api: Api) -> None:
    r = api.client("reader").get("/search", params={"q": SECRET_WORD})
    body = r.json()
    assert body["results"] == []
    assert body["hidden_protected"] == 1
    assert SECRET_WORD not in r.text.replace(f'"query":"{SECRET_WORD}"', "")


def test_a_bad_fts_query_is_a_400_bad_query(api: Api) -> None:
    r = api.client("reader").get("/search", params={"q": '"unclosed', "mode": "fts"})
    _error(r, 400, "bad_query")


def test_bad_parameters_are_400_invalid_argument(api: Api) -> None:
    c = api.client("reader")
    _error(c.get("/search"), 400, "invalid_argument")
    _error(c.get("/search", params={"q": "x", "limit": "many"}), 400, "invalid_argument")
    _error(c.get("/search", params={"q": "x", "limit": 0}), 400, "invalid_argument")
    _error(c.get("/search", params={"q": "x", "mode": "regex"}), 400, "invalid_argument")
    _error(c.get("/list", params={"recursive": "perhaps"}), 400, "invalid_argument")


def test_a_note_is_read_with_its_revision_as_a_strong_quoted_etag(api: Api) -> None:
    r = api.client("reader").get("/notes/tech/hub.md")
    assert r.status_code == 200
    body = r.json()
    raw = (api.vault / "tech" / "hub.md").read_bytes()
    assert body["revision"] == hashlib.sha256(raw).hexdigest()
    assert body["content"] == raw.decode()
    assert r.headers["etag"] == f'"{body["revision"]}"'
    assert r.headers["cache-control"] == "no-store"


def test_a_section_is_read_by_heading_with_its_byte_range(api: Api) -> None:
    c = api.client("owner")
    r = c.get("/notes/personal-notes/diary.md", params={"heading": "diary"})
    body = r.json()
    raw = (api.vault / "personal-notes" / "diary.md").read_bytes()
    assert r.status_code == 200, body
    assert body["part"] == {"kind": "heading", "name": "diary", "start": 0, "end": len(raw)}
    assert body["content"].encode() == raw
    _error(c.get("/notes/tech/hub.md", params={"block": "^gone"}), 404, "not_found")


def test_a_conditional_get_with_the_current_etag_is_304_without_a_body(api: Api) -> None:
    c = api.client("reader")
    tag = c.get("/notes/tech/hub.md").headers["etag"]
    same = c.get("/notes/tech/hub.md", headers={"If-None-Match": tag})
    assert same.status_code == 304
    assert same.content == b""
    assert same.headers["etag"] == tag
    listed = c.get("/notes/tech/hub.md", headers={"If-None-Match": f'"abc", W/{tag}'})
    assert listed.status_code == 304
    other = c.get("/notes/tech/hub.md", headers={"If-None-Match": '"0000"'})
    assert other.status_code == 200
    assert other.json()["path"] == "tech/hub.md"


def test_a_large_note_is_read_in_byte_ranges(api: Api) -> None:
    c = api.client("reader")
    first = c.get("/notes/life/long.md", params={"max_bytes": 1000}).json()
    assert first["truncated"] is True
    assert first["next_offset"] == 1000
    assert len(first["content"].encode()) == 1000
    rest = c.get("/notes/life/long.md", params={"offset": first["next_offset"]}).json()
    assert rest["next_offset"] is None
    whole = (api.vault / "life" / "long.md").read_bytes()
    assert (first["content"] + rest["content"]).encode() == whole


def test_links_and_history_of_a_note(api: Api) -> None:
    c = api.client("reader")
    links = c.get("/notes/tech/other.md/links").json()
    assert links["path"] == "tech/other.md"
    assert "missing-note" in links["broken"]
    assert "tech/hub.md" in links["backlinks"]
    history = c.get("/notes/tech/hub.md/history").json()
    assert history["path"] == "tech/hub.md"
    assert history["revisions"] == []


def test_list_answers_the_root_and_a_folder(api: Api) -> None:
    c = api.client("reader")
    root = c.get("/list").json()
    assert {e["path"] for e in root["entries"]} >= {"tech", "life"}
    tech = c.get("/list/tech", params={"limit": 50}).json()
    assert "tech/hub.md" in {e["path"] for e in tech["entries"]}
    assert "secret/plan.md" not in c.get("/list/secret").text


def test_policy_names_the_tokens_caller_and_scopes(api: Api) -> None:
    body = api.client("reader").get("/policy").json()
    assert body["caller"] == "reader"
    assert body["scopes"] == ["read"]
    assert body["protected"] == ["secret/**"]


def test_missing_and_unknown_tokens_are_401_with_www_authenticate(api: Api) -> None:
    for client in (
        api.anonymous(),
        api.client_with({"Authorization": "Bearer not-a-token"}),
        api.client_with({"Authorization": "Basic abc"}),
    ):
        r = client.get("/search", params={"q": "hub"})
        _error(r, 401, "unauthorized")
        assert r.headers["www-authenticate"].startswith("Bearer")


def test_a_missing_note_is_404_not_found(api: Api) -> None:
    _error(api.client("reader").get("/notes/tech/nothing-here.md"), 404, "not_found")


def test_a_path_outside_the_vault_is_400_path_rejected(api: Api) -> None:
    r = api.client("reader").get("/notes/tech%2F..%2F..%2Fetc%2Fpasswd")
    assert r.status_code in (400, 404)
    assert r.json()["error"] in ("path_rejected", "not_found")
    _error(api.client("reader").get("/notes/tech/hub.json"), 400, "path_rejected")


def test_a_protected_note_is_403_protected_without_a_grant(api: Api) -> None:
    r = api.client("reader").get("/notes/secret/plan.md")
    _error(r, 403, "protected")
    assert SECRET_WORD not in r.text
    owner = api.client("owner").get("/notes/secret/plan.md")
    assert owner.status_code == 403, "a token holder is never the owner at the CLI"


def test_a_private_note_can_be_read_with_the_read_scope(api: Api) -> None:
    r = api.client("reader").get("/notes/personal-notes/diary.md")
    assert r.status_code == 200
    assert PRIVATE_WORD in r.json()["content"]


def test_an_unknown_route_and_a_wrong_method_answer_spec_error_objects(api: Api) -> None:
    c = api.client("reader")
    _error(c.get("/nowhere"), 404, "not_found")
    r = c.delete("/search")
    assert r.status_code == 405
    assert r.json()["error"] == "invalid_argument"
    # A note path no route pattern matches (a line break in it) is still the API's JSON 404,
    # never the plain-text 404 of the app beside it.
    for method in ("GET", "PATCH"):
        r = c.request(method, "/notes/a%0Ab%0Dc.md", json={"edits": []})
        _error(r, 404, "not_found")
        assert r.headers["content-type"] == "application/json"


def test_a_caller_without_the_admin_scope_is_403_forbidden(api: Api) -> None:
    r = api.client("writer").get("/admin/grants")
    body = _error(r, 403, "forbidden")
    assert body["scope"] == "admin"


def test_the_openapi_document_describes_every_route(api: Api) -> None:
    doc = api.client("reader").get("/openapi.json").json()
    assert doc["openapi"].startswith("3.1")
    paths = doc["paths"]
    assert set(paths["/notes/{path}"]) == {"get", "put", "patch"}
    for route in ("/search", "/list", "/list/{path}", "/notes/{path}/links",
                  "/notes/{path}/history", "/notes/{path}/archive", "/restore", "/file-note",
                  "/proposals", "/proposals/{proposal_id}/confirm", "/policy",
                  "/access-requests", "/admin/grants", "/admin/tokens", "/claims",
                  "/claims/{subject}/{property}", "/synthesis/{path}", "/read-code"):  # fmt: skip
        assert route in paths, route
    schemas = doc["components"]["schemas"]
    assert set(schemas["ReadResult"]["properties"]) >= {"path", "revision", "content"}
    put = paths["/notes/{path}"]["put"]
    assert {"201", "202", "412", "428", "422"} <= set(put["responses"])


def test_a_typeahead_search_finds_a_title_from_its_first_letters(api: Api) -> None:
    r = api.client("reader").get("/search", params={"q": "hu", "mode": "typeahead"})
    assert r.status_code == 200, r.text
    assert r.json()["results"][0]["path"] == "tech/hub.md"
    natural = api.client("reader").get("/search", params={"q": "hu"}).json()
    assert natural["results"] == []  # a natural query does not complete two letters
