"""Git sync in the web app, in Chromium: the Sync button pulls and pushes, a conflict
appears in the inbox and is resolved there, and a push failing longer than warn_after_s
puts a banner on every page until a push succeeds."""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from hoard.adapters.fs.config_file import load_config
from hoard.adapters.tokens import TokenStore
from hoard.app.hoard import Hoard
from hoard.core.policy import LOCAL_DEFAULT, OWNER
from hoard.surfaces.http import build_app
from hoard.surfaces.mcp.server import HoardMCP
from hoard.surfaces.web import build_web
from tests.app.sync.conftest import CONFIG, git, note
from tests.helpers import LiveServer, wait_until, write_file

from .support import Site, sign_in

REFUSE = "#!/bin/sh\necho 'pushes are refused here' >&2\nexit 1\n"


@dataclasses.dataclass
class Synced:
    site: Site
    remote: Path
    person: Path


@pytest.fixture
def synced(tmp_path: Path) -> Iterator[Synced]:
    remote = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", "-b", "main", str(remote))
    person = tmp_path / "person"
    git(tmp_path, "clone", "-q", str(remote), str(person))
    git(person, "checkout", "-q", "-b", "main")
    write_file(person, "hoard.toml", CONFIG)
    write_file(person, "tech/lamp.md", note("Lamp", "In the hall."))
    git(person, "add", "-A")
    git(person, "commit", "-qm", "start")
    git(person, "push", "-q", "origin", "main")
    vault = tmp_path / "vault"
    git(tmp_path, "clone", "-q", str(remote), str(vault))
    config = load_config(vault)
    config = dataclasses.replace(config, git=dataclasses.replace(config.git, warn_after_s=1))
    tokens = TokenStore(tmp_path / "tokens.json")
    _, owner = tokens.add("owner", "read,write,confirm,maintenance,admin", "direct")
    live = LiveServer()
    with Hoard(vault, tmp_path / "state", config) as hoard:
        mcp = HoardMCP(hoard, LOCAL_DEFAULT)
        web, code = build_web(hoard, tokens, show_private=True)
        live.start(build_app(mcp, tokens, "127.0.0.1", live.port, web=web))
        try:
            site = Site(live.url, vault, hoard, tokens, owner, "", "", code)
            yield Synced(site, remote, person)
        finally:
            live.stop()
            mcp.close()


def test_the_sync_button_brings_a_conflict_to_the_inbox_and_resolving_it_keeps_one(
    browser: Any, synced: Synced
) -> None:
    site = synced.site
    lamp = site.vault / "tech/lamp.md"
    current = hashlib.sha256(lamp.read_bytes()).hexdigest()
    mine = note("Lamp", "Hoard says blue.")
    site.hoard.writes.write("tech/lamp.md", mine, current, caller=OWNER)
    write_file(synced.person, "tech/lamp.md", note("Lamp", "Person says red."))
    git(synced.person, "commit", "-qam", "red")
    git(synced.person, "push", "-q", "origin", "main")
    context = browser.new_context(viewport={"width": 1366, "height": 900})
    page = context.new_page()
    page.set_default_timeout(15_000)
    sign_in(page, site)
    page.click("#sync-now")
    page.wait_for_selector("article.conflict")
    assert "1 conflict(s) kept both sides" in page.inner_text("#outcome")
    assert "tech/lamp.conflict-" in page.inner_text("article.conflict")
    page.click('article.conflict button:has-text("Keep hoard\'s version")')
    page.wait_for_url(f"{site.url}/inbox")
    assert page.locator("article.conflict").count() == 0
    assert lamp.read_text("utf-8") == mine
    context.close()


def test_a_binary_conflict_in_the_inbox_is_resolved_with_its_keep_button(
    browser: Any, synced: Synced
) -> None:
    site = synced.site
    plan = synced.person / "files/plan.pdf"
    plan.parent.mkdir()

    def person_saves(data: bytes) -> None:
        plan.write_bytes(data)
        git(synced.person, "add", "-A")
        git(synced.person, "commit", "-qm", "plan")
        git(synced.person, "push", "-q", "origin", "main")

    person_saves(b"%PDF-1.4\x00\xff base")
    site.hoard.sync.sync(caller=OWNER)
    (site.vault / "files/plan.pdf").write_bytes(b"%PDF-1.4\x00\xfe hoard's")
    person_saves(b"%PDF-1.4\x00\xfd the person's")
    context = browser.new_context(viewport={"width": 1366, "height": 900})
    page = context.new_page()
    page.set_default_timeout(15_000)
    sign_in(page, site)
    page.click("#sync-now")
    page.wait_for_selector("article.conflict")
    assert "files/plan.conflict-" in page.inner_text("article.conflict")
    page.click('article.conflict button:has-text("Keep hoard\'s version")')
    page.wait_for_url(f"{site.url}/inbox")
    assert page.locator("article.conflict").count() == 0
    assert (site.vault / "files/plan.pdf").read_bytes() == b"%PDF-1.4\x00\xfe hoard's"
    assert not list((site.vault / "files").glob("plan.conflict-*"))
    context.close()


def test_a_push_failing_past_warn_after_s_puts_a_banner_on_every_page_until_it_succeeds(
    browser: Any, synced: Synced, screenshots: Path
) -> None:
    site = synced.site
    hook = synced.remote / "hooks" / "pre-receive"
    hook.write_text(REFUSE, encoding="utf-8")
    hook.chmod(0o755)
    site.hoard.writes.write("tech/new.md", note("New"), caller=OWNER)
    context = browser.new_context(viewport={"width": 1366, "height": 900})
    page = context.new_page()
    page.set_default_timeout(15_000)
    sign_in(page, site)
    page.click("#sync-now")
    page.wait_for_selector("#refusal")
    assert "pushes are refused here" in page.inner_text("#refusal")
    wait_until(lambda: site.hoard.sync.warning())
    for path in ("/", "/browse", "/inbox", "/activity"):
        page.goto(f"{site.url}{path}")
        assert "have not reached the remote" in page.inner_text("#sync-banner")
    page.screenshot(path=str(screenshots / "sync-banner-1366.png"))
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(f"{site.url}/")
    page.screenshot(path=str(screenshots / "sync-banner-390.png"))
    hook.unlink()
    page.click("#sync-now")
    page.wait_for_selector("#outcome .ok")
    page.goto(f"{site.url}/browse")
    assert page.locator("#sync-banner").count() == 0
    context.close()
