"""Sign-in, sessions, CSRF and the security headers, over real HTTP (no browser)."""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterator

import httpx2

from .support import Site


@contextlib.contextmanager
def signed_in_client(site: Site) -> Iterator[httpx2.Client]:
    with httpx2.Client(base_url=site.url, timeout=30) as client:
        page = client.get("/signin")
        pre = re.search(r'name="csrf" value="([^"]+)"', page.text)
        assert pre is not None
        data = {"csrf": pre.group(1), "token": site.owner_token, "next": "/"}
        r = client.post("/signin", data=data)
        assert r.status_code == 303, r.text
        yield client


def csrf_of(client: httpx2.Client) -> str:
    m = re.search(r'name="csrf" value="([^"]+)"', client.get("/access").text)
    assert m is not None
    return m.group(1)


def test_the_signed_out_get_nothing_but_the_sign_in_page(site: Site) -> None:
    with httpx2.Client(base_url=site.url) as c:
        for path in ("/", "/n/tech/hue-bridge.md", "/static/hoard.css", "/static/hoard.js",
                     "/inbox", "/live"):  # fmt: skip
            r = c.get(path)
            assert r.status_code in (303, 401), path
            assert r.headers.get("location", "/signin").startswith("/signin")
            assert "hue" not in r.text.lower()
        assert c.post("/save", data={"path": "x.md", "content": "x"}).status_code == 401
        signin = c.get("/signin")
        assert signin.status_code == 200
        assert 'type="password"' in signin.text


def test_every_response_carries_a_strict_csp_and_no_framing(site: Site) -> None:
    with signed_in_client(site) as c:
        for path in ("/", "/signin", "/inbox"):
            r = c.get(path)
            csp = r.headers["content-security-policy"]
            assert "script-src 'self'" in csp and "unsafe-inline" not in csp
            assert "frame-ancestors 'none'" in csp
            assert r.headers["x-frame-options"] == "DENY"
            assert r.headers["referrer-policy"] == "same-origin"


def test_the_session_cookie_is_httponly_and_samesite_strict(site: Site) -> None:
    with httpx2.Client(base_url=site.url) as c:
        page = c.get("/signin")
        pre = re.search(r'name="csrf" value="([^"]+)"', page.text)
        assert pre is not None
        r = c.post("/signin", data={"csrf": pre.group(1), "token": site.owner_token})
        cookie = r.headers["set-cookie"].lower()
        assert "hoard_session=" in cookie and "httponly" in cookie
        assert "samesite=strict" in cookie
        assert site.owner_token.lower() not in cookie


def test_a_token_without_the_admin_scope_cannot_sign_in(site: Site) -> None:
    with httpx2.Client(base_url=site.url) as c:
        for token in (site.agent_token, site.reader_token, "nonsense"):
            pre = re.search(r'name="csrf" value="([^"]+)"', c.get("/signin").text)
            assert pre is not None
            r = c.post("/signin", data={"csrf": pre.group(1), "token": token})
            assert r.status_code == 403
            assert "hoard_session" not in r.headers.get("set-cookie", "")


def test_the_sign_in_link_works_once(site: Site) -> None:
    code = site.hoard.owner_tools(site.tokens)[0].issue_code()
    with httpx2.Client(base_url=site.url) as c:
        first = c.get(f"/signin/link?code={code}")
        assert first.status_code == 303 and "hoard_session=" in first.headers["set-cookie"]
        assert c.get("/inbox").status_code == 200
    with httpx2.Client(base_url=site.url) as c:
        again = c.get(f"/signin/link?code={code}")
        assert again.status_code == 403
        assert c.get("/inbox").status_code == 303


def test_an_unsafe_request_without_the_csrf_token_is_refused(site: Site) -> None:
    before = (site.vault / "tech" / "git-tips.md").read_bytes()
    with signed_in_client(site) as c:
        r = c.post("/archive/tech/git-tips.md", data={"reason": "archived"})
        assert r.status_code == 403
        wrong = c.post("/archive/tech/git-tips.md", data={"reason": "archived", "csrf": "x"})
        assert wrong.status_code == 403
    assert (site.vault / "tech" / "git-tips.md").read_bytes() == before


def test_a_revoked_session_signs_nobody_in(site: Site) -> None:
    with signed_in_client(site) as c:
        sessions = site.hoard.owner_tools(site.tokens)[0]
        mine = max(sessions.active(), key=lambda s: s.created_at)
        csrf = csrf_of(c)
        r = c.post(
            f"/access/sessions/{mine.session_id}/revoke", data={"csrf": csrf, "confirmed": "yes"}
        )
        assert r.status_code == 200
        assert c.get("/inbox").status_code == 303


def test_sign_out_ends_the_session(site: Site) -> None:
    with signed_in_client(site) as c:
        csrf = csrf_of(c)
        assert c.post("/signout", data={"csrf": csrf}).status_code == 303
        assert c.get("/inbox").status_code == 303
