"""The web app's owner session on the JSON API (issue 15, item 3), against a real uvicorn
serving the web app and the API together as ``hoard serve --http`` does: the cookie alone
reads; a write signed by the cookie needs the session's CSRF token (403 and nothing written
without it); a foreign Origin is refused; bearer tokens work as before; no CORS header."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterator

import httpx2
import pytest

from tests.surfaces.api.conftest import SECRET_WORD, Api, note, serving

FOREIGN = "https://evil.example"


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Api]:
    with serving(tmp_path_factory.mktemp("session"), web=True) as served:
        yield served


@pytest.fixture(scope="module")
def browser(site: Api) -> Iterator[tuple[httpx2.Client, str]]:
    """A client holding the owner's session cookie (signed in with the one-time link) and the
    session's CSRF token, as the web app's pages carry it."""
    with httpx2.Client(base_url=site.url, timeout=30.0) as c:
        r = c.get(f"/signin/link?code={site.signin_code}")
        assert r.status_code == 303, r.text
        assert "hoard_session" in c.cookies
        page = c.get("/access")
        assert page.status_code == 200, page.text
        found = re.search(r'name="csrf" value="([^"]+)"', page.text)
        assert found, "the page carries no CSRF token"
        yield c, found.group(1)


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def test_a_get_with_only_the_session_cookie_reads_as_the_owner(
    site: Api, browser: tuple[httpx2.Client, str]
) -> None:
    c, _ = browser
    r = c.get("/api/v1/notes/tech/hub.md")
    assert r.status_code == 200, r.text
    assert r.json()["path"] == "tech/hub.md"
    secret = c.get("/api/v1/notes/secret/plan.md")  # the owner sees protected notes
    assert secret.status_code == 200 and SECRET_WORD in secret.json()["content"]
    policy = c.get("/api/v1/policy").json()
    assert policy["caller"] == "owner" and "admin" in policy["scopes"]
    assert "access-control-allow-origin" not in r.headers


def test_a_cookie_write_without_the_csrf_token_is_403_and_writes_nothing(
    site: Api, browser: tuple[httpx2.Client, str]
) -> None:
    c, _ = browser
    target = site.vault / "tech" / "forged.md"
    for token in (None, "wrong-token"):
        headers = {"If-None-Match": "*"} | ({"X-CSRF-Token": token} if token else {})
        r = c.put(
            "/api/v1/notes/tech/forged.md", json={"content": note("Forged", "x")}, headers=headers
        )
        assert r.status_code == 403, r.text
        assert r.json()["error"] == "forbidden" and "CSRF" in r.json()["message"]
        assert not target.exists()
    hub = site.vault / "tech" / "hub.md"
    before = hub.read_bytes()
    r = c.patch(
        "/api/v1/notes/tech/hub.md",
        json={"edits": [{"op": "append", "text": "forged"}]},
        headers={"If-Match": f'"{_sha(before)}"'},
    )
    assert r.status_code == 403
    assert hub.read_bytes() == before


def test_a_cookie_write_with_the_csrf_token_is_written_as_the_owner(
    site: Api, browser: tuple[httpx2.Client, str]
) -> None:
    c, csrf = browser
    text = note("From the browser", "Written by the owner's session.")
    r = c.put(
        "/api/v1/notes/tech/browser.md",
        json={"content": text},
        headers={"If-None-Match": "*", "X-CSRF-Token": csrf},
    )
    assert r.status_code == 201, r.text
    assert (site.vault / "tech" / "browser.md").read_text(encoding="utf-8") == text
    r = c.patch(
        "/api/v1/notes/tech/browser.md",
        json={"edits": [{"op": "append", "text": "And edited."}]},
        headers={"If-Match": r.headers["etag"], "X-CSRF-Token": csrf},
    )
    assert r.status_code == 200, r.text
    assert "And edited." in (site.vault / "tech" / "browser.md").read_text(encoding="utf-8")
    events = c.get("/api/v1/notes/tech/browser.md/history").json()["events"]
    assert events and all(e["caller"] == "owner" for e in events)


def test_a_foreign_origin_is_refused_even_with_the_cookie_and_the_token(
    site: Api, browser: tuple[httpx2.Client, str]
) -> None:
    c, csrf = browser
    r = c.put(
        "/api/v1/notes/tech/cross-site.md",
        json={"content": note("Cross", "x")},
        headers={"If-None-Match": "*", "X-CSRF-Token": csrf, "Origin": FOREIGN},
    )
    assert r.status_code == 403
    assert "access-control-allow-origin" not in r.headers
    assert not (site.vault / "tech" / "cross-site.md").exists()
    r = c.get("/api/v1/notes/tech/hub.md", headers={"Origin": FOREIGN})
    assert r.status_code == 403
    assert "access-control-allow-origin" not in r.headers
    same = c.get("/api/v1/notes/tech/hub.md", headers={"Origin": site.url})
    assert same.status_code == 200
    assert "access-control-allow-origin" not in same.headers


def test_bearer_tokens_work_unchanged_beside_a_cookie(
    site: Api, browser: tuple[httpx2.Client, str]
) -> None:
    c, _ = browser
    bearer = {"Authorization": f"Bearer {site.tokens['writer']}"}
    r = c.put(  # a bearer write needs no CSRF token, even from a client that has the cookie
        "/api/v1/notes/tech/by-token.md",
        json={"content": note("Token", "x")},
        headers={"If-None-Match": "*", **bearer},
    )
    assert r.status_code == 201, r.text
    assert c.get("/api/v1/policy", headers=bearer).json()["caller"] == "writer"
    r = c.get("/api/v1/notes/secret/plan.md", headers=bearer)  # the token's rights, not the
    assert r.status_code == 403  # session's


def test_the_cookie_signs_in_only_the_api_and_a_dead_one_nobody(
    site: Api, browser: tuple[httpx2.Client, str]
) -> None:
    c, _ = browser
    r = c.post("/mcp", json={"jsonrpc": "2.0", "id": 1, "method": "ping"})
    assert r.status_code == 401
    with httpx2.Client(base_url=site.url, timeout=30.0) as other:
        other.cookies.set("hoard_session", "not-a-live-session")
        r = other.get("/api/v1/notes/tech/hub.md")
        assert r.status_code == 401
        assert r.json()["error"] == "unauthorized"
