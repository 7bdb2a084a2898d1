"""Access, administration, claims, synthesis and read-code over the JSON API, and the HTTP
guard in front of it (Host, Origin, body cap, a second caller resolver) on a real uvicorn."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest

from hoard.core.policy import Caller
from hoard.surfaces.http import Refusal
from tests.surfaces.api.conftest import SECRET_WORD, Api, note, serving


def test_an_access_request_approved_by_the_owner_grants_sight_of_protected_notes(
    api: Api,
) -> None:
    reader, owner = api.client("reader"), api.client("owner")
    assert reader.get("/notes/secret/plan.md").status_code == 403
    req = reader.post("/access-requests", json={"glob": "secret/**", "reason": "planning"})
    assert req.status_code == 201, req.text
    rid = req.json()["request_id"]
    assert req.json()["status"] == "pending"
    pending = owner.get("/admin/grants").json()["requests"]
    assert rid in {r["request_id"] for r in pending}
    assert reader.post(f"/admin/access-requests/{rid}/approve", json={}).status_code == 403
    grant = owner.post(f"/admin/access-requests/{rid}/approve", json={"minutes": 5})
    assert grant.status_code == 201, grant.text
    assert grant.json()["caller"] == "reader"
    seen = reader.get("/notes/secret/plan.md")
    assert seen.status_code == 200
    assert SECRET_WORD in seen.json()["content"]
    assert reader.get("/search", params={"q": SECRET_WORD}).json()["results"]
    gone = owner.delete(f"/admin/grants/{grant.json()['grant_id']}")
    assert gone.json() == {"revoked": grant.json()["grant_id"]}
    assert reader.get("/notes/secret/plan.md").status_code == 403
    assert owner.delete("/admin/grants/nosuchgrant").status_code == 404


def test_the_owner_grants_directly_and_the_grant_shows_in_the_callers_policy(api: Api) -> None:
    owner = api.client("owner")
    g = owner.post("/admin/grants", json={"caller": "writer", "glob": "secret/**", "minutes": 1})
    assert g.status_code == 201, g.text
    policy = api.client("writer").get("/policy").json()
    assert [x["grant_id"] for x in policy["grants"]] == [g.json()["grant_id"]]
    bad = owner.post("/admin/grants", json={"caller": "writer", "glob": "x/**", "minutes": -1})
    assert bad.status_code == 400


def test_a_grant_to_a_caller_that_does_not_exist_is_refused(api: Api) -> None:
    owner = api.client("owner")
    before = owner.get("/admin/grants").json()["grants"]
    typo = owner.post("/admin/grants", json={"caller": "wirter", "glob": "secret/**"})
    assert typo.status_code == 400
    assert typo.json()["error"] == "invalid_argument"
    assert "no caller named 'wirter'" in typo.json()["message"]
    assert owner.get("/admin/grants").json()["grants"] == before


def test_tokens_are_added_shown_once_listed_without_secrets_and_revoked(api: Api) -> None:
    owner = api.client("owner")
    made = owner.post("/admin/tokens", json={"name": "phone", "scopes": ["read"]})
    assert made.status_code == 201, made.text
    token = made.json()["token"]
    assert made.json()["write_mode"] == "propose"
    listed = owner.get("/admin/tokens")
    assert "phone" in {c["name"] for c in listed.json()["callers"]}
    assert token not in listed.text
    phone = api.client_with({"Authorization": f"Bearer {token}"})
    assert phone.get("/policy").json()["caller"] == "phone"
    dup = owner.post("/admin/tokens", json={"name": "phone"})
    assert dup.status_code == 409
    assert owner.post("/admin/tokens", json={"name": "x", "scopes": ["root"]}).status_code == 400
    assert owner.delete("/admin/tokens/phone").json() == {"revoked": "phone"}
    assert phone.get("/policy").status_code == 401
    assert api.client("writer").get("/admin/tokens").status_code == 403


def test_claims_are_recorded_listed_and_rechecked(api: Api) -> None:
    c = api.client("writer")
    r = c.post(
        "/claims",
        json={
            "subject": "hub",
            "property": "firmware",
            "value": "1.2",
            "source_path": "tech/hub.md",
        },
    )
    assert r.status_code == 201, r.text
    assert r.json()["claim_id"]
    got = c.get("/claims/hub/firmware").json()
    assert got["status"] == "current"
    assert got["value"] == "1.2"
    listed = c.get("/claims", params={"subject": "hub"}).json()
    assert len(listed["claims"]) == 1
    assert c.get("/claims/nobody/nothing").json()["status"] == "no_claim"


def test_synthesis_is_registered_and_its_status_read(api: Api) -> None:
    c = api.client("writer")
    r = c.put("/synthesis/tech/_INDEX.md", json={"sources": ["tech/hub.md"]})
    assert r.status_code == 200, r.text
    assert r.json()["sources"][0]["path"] == "tech/hub.md"
    status = c.get("/synthesis/tech/_INDEX.md").json()
    assert status["state"] in ("current", "stale")
    assert c.get("/synthesis/tech/other.md").json()["state"] == "unregistered"


def test_read_code_runs_in_the_sandbox_with_the_callers_rights(api: Api) -> None:
    c = api.client("reader")
    code = (
        'const s = await call("search", {query: "bridge firmware"});'
        'const n = await call("read", {path: s.results[0].path});'
        "return n.path;"
    )
    r = c.post("/read-code", json={"code": code})
    assert r.status_code == 200, r.text
    assert r.json()["result"] == "tech/hub.md"
    hidden = c.post(
        "/read-code", json={"code": 'return await call("read", {path: "secret/plan.md"})'}
    )
    assert hidden.status_code in (403, 422)
    assert SECRET_WORD not in hidden.text
    # a limit the script reaches at once (the eight-second clock is the sandbox's own test)
    busy = 'for (let i = 0; i < 100; i++) { await call("list", {}); }'
    over = c.post("/read-code", json={"code": busy})
    assert over.status_code == 422
    assert over.json()["error"] == "sandbox_limit"
    assert over.json()["limit"] == "calls"


def test_a_foreign_host_is_421_and_a_foreign_origin_403(api: Api) -> None:
    c = api.client("reader")
    assert c.get("/policy", headers={"Host": "evil.example:80"}).status_code == 421
    r = c.get("/policy", headers={"Origin": "http://evil.example"})
    assert r.status_code == 403
    assert "access-control-allow-origin" not in r.headers
    ok = c.get("/policy", headers={"Origin": api.url})
    assert ok.status_code == 200
    assert "access-control-allow-origin" not in ok.headers


# -- a second caller resolver, as the web app's session cookie will plug in ------------------

SESSION = "s3ss10n"
CSRF = "csrf-t0ken"


def cookie_session(headers: Mapping[str, str], scope: Any) -> Caller | None:
    """A stand-in for the web app's resolver: a session cookie names the owner's caller, and
    unsafe methods must carry the session's CSRF token."""
    if f"session={SESSION}" not in headers.get("cookie", ""):
        return None
    if scope.get("method") not in ("GET", "HEAD") and headers.get("x-csrf-token") != CSRF:
        raise Refusal(403, {"error": "forbidden", "message": "CSRF check failed"})
    return Caller("web-owner", frozenset({"read", "write"}), "direct")


@pytest.fixture(scope="module")
def guarded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Api]:
    with serving(
        tmp_path_factory.mktemp("guarded"), resolvers=(cookie_session,), max_body=4096
    ) as served:
        yield served


def test_a_second_resolver_names_the_caller_and_its_csrf_check_guards_writes(
    guarded: Api,
) -> None:
    web = guarded.client_with({"Cookie": f"session={SESSION}"})
    assert web.get("/policy").json()["caller"] == "web-owner"
    body = {"content": note("Web", "From the browser.")}
    refused = web.put("/notes/tech/web.md", json=body, headers={"If-None-Match": "*"})
    assert refused.status_code == 403
    assert not (guarded.vault / "tech" / "web.md").exists()
    ok = web.put(
        "/notes/tech/web.md", json=body, headers={"If-None-Match": "*", "X-CSRF-Token": CSRF}
    )
    assert ok.status_code == 201, ok.text
    assert guarded.anonymous().get("/policy").status_code == 401


def test_a_body_over_the_cap_is_413_and_nothing_is_written(guarded: Api) -> None:
    big = note("Big", "x" * 5000)
    r = guarded.client("writer").put(
        "/notes/tech/big.md",
        content=big.encode(),
        headers={"If-None-Match": "*", "Content-Type": "text/markdown"},
    )
    assert r.status_code == 413
    assert r.json()["error"] == "too_large"
    assert not Path(guarded.vault / "tech" / "big.md").exists()


def test_a_markdown_body_starting_with_a_bracket_is_not_taken_for_a_json_rpc_batch(
    guarded: Api,
) -> None:
    r = guarded.client("writer").put(
        "/notes/personal-notes/links.md",
        content=b"[[hub]] and more\n",
        headers={"If-None-Match": "*", "Content-Type": "text/markdown"},
    )
    assert r.status_code == 201, r.text


def test_strict_mode_with_a_broken_tokens_file_refuses_the_api_with_503(
    tmp_path: Path,
) -> None:
    with serving(tmp_path, strict=True) as served:
        reader = served.client("reader")
        assert reader.get("/policy").status_code == 200
        (tmp_path / "tokens.json").write_text("{not json", encoding="utf-8")
        r = reader.get("/search", params={"q": "hub"})
        assert r.status_code == 503
        assert r.json()["error"] == "unavailable"
