"""Fixtures for the web app: one real server (uvicorn on 127.0.0.1, the MCP endpoint, the web
app and hoard's OAuth issuer, whose consent page asks the web app's owner) over a copy of
the example vault, one Chromium for the whole session (Debian's ``chromium``, driven by
Playwright; nothing is downloaded), and helpers.

Helpers the tests import live in ``support.py``.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from hoard.adapters.tokens import TokenStore
from hoard.app.hoard import Hoard
from hoard.core.policy import LOCAL_DEFAULT
from hoard.surfaces.http import build_app
from hoard.surfaces.mcp.server import HoardMCP
from hoard.surfaces.oauth.provider import HoardOAuth
from hoard.surfaces.web import WebOwner, build_web
from tests.helpers import EXAMPLE_VAULT, LiveServer
from tests.helpers import note_text as note

from .support import SECRET_WORD, Site, WatchedBrowser, sign_in


def _vault(root: Path) -> Path:
    shutil.copytree(EXAMPLE_VAULT, root)
    (root / "hoard.toml").write_text('protected = ["secret/**"]\n', encoding="utf-8")
    (root / "secret").mkdir()
    (root / "secret" / "plan.md").write_text(
        note("Takeover plan", f"The {SECRET_WORD} plan, in full."), encoding="utf-8"
    )
    return root


@pytest.fixture(scope="session")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    base = tmp_path_factory.mktemp("web")
    vault = _vault(base / "vault")
    tokens = TokenStore(base / "tokens.json")
    _, owner = tokens.add("owner", "read,write,confirm,maintenance,admin", "direct")
    _, agent = tokens.add("agent", "read,write", "propose")
    _, reader = tokens.add("reader", "read", "propose")
    live = LiveServer()
    with Hoard(vault, base / "state", watch=True) as hoard:
        mcp = HoardMCP(hoard, LOCAL_DEFAULT)
        web, code = build_web(hoard, tokens, show_private=True, private_writes=True)
        url = live.url
        oauth = HoardOAuth(hoard.grant_store(), tokens, url, f"{url}/mcp")
        oauth.owner = WebOwner(web.sessions)
        live.start(build_app(mcp, tokens, "127.0.0.1", live.port, oauth=oauth, web=web))
        try:
            yield Site(url, vault, hoard, tokens, owner, agent, reader, code)
        finally:
            live.stop()
            mcp.close()


@pytest.fixture(scope="package")
def browser() -> Iterator[WatchedBrowser]:
    """One Chromium for all the web tests, every page of it watched (see
    :class:`~.support.WatchedBrowser`). Package-scoped, not session-scoped: Playwright's
    sync API holds an event loop in this thread while it runs, and later test folders run
    their own (anyio) loops here."""
    chromium = shutil.which("chromium")
    if chromium is None:
        pytest.skip("Debian's chromium is not installed (apt-get install chromium)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
        yield WatchedBrowser(b)
        b.close()


@pytest.fixture(autouse=True)
def no_page_problems(request: pytest.FixtureRequest) -> Iterator[None]:
    """Every browser test fails on a console error, an uncaught exception or a
    Content-Security-Policy violation in any page it opened."""
    if "browser" not in request.fixturenames:
        yield
        return
    watched: WatchedBrowser = request.getfixturevalue("browser")
    watched.problems.clear()
    yield
    problems, watched.problems[:] = list(watched.problems), []
    assert problems == [], "the pages reported problems:\n" + "\n".join(problems)


@pytest.fixture
def owner_page(browser: Any, site: Site) -> Iterator[Any]:
    """A fresh browser context, signed in as the owner, 1280 px wide."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.set_default_timeout(10_000)
    sign_in(page, site)
    yield page
    context.close()


@pytest.fixture(scope="session")
def screenshots(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Where the tests put their screenshots: a temporary folder, unless
    ``HOARD_SCREENSHOTS`` names one (``HOARD_SCREENSHOTS=docs/screenshots`` retakes the
    README's)."""
    named = os.environ.get("HOARD_SCREENSHOTS")
    folder = Path(named) if named else tmp_path_factory.mktemp("screenshots")
    folder.mkdir(parents=True, exist_ok=True)
    return folder
