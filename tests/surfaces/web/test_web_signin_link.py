"""``hoard signin-link`` (the console script, in its own process) prints a fresh one-time
sign-in link that the server already running over the same state accepts, without a
restart; the link works once."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from urllib.parse import urlsplit

import httpx2

from .support import Site


def _signin_link(hoard_bin: Path, site: Site, *extra: str) -> subprocess.CompletedProcess[str]:
    host_port = urlsplit(site.url).netloc
    # The site (one server for the session) keeps its state in its state folder, as this
    # command must: a store a test of the suite on PostgreSQL names is not the site's.
    env = {k: v for k, v in os.environ.items() if k != "HOARD_STORE_URL"}
    return subprocess.run(
        [
            str(hoard_bin),
            "signin-link",
            "--vault",
            str(site.vault),
            "--state-dir",
            str(site.hoard.state_dir),
            "--tokens",
            str(site.tokens.path),
            "--http",
            host_port,
            *extra,
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env=env,
    )


def test_signin_link_prints_a_one_time_link_the_running_server_accepts(
    hoard_bin: Path, site: Site
) -> None:
    done = _signin_link(hoard_bin, site)

    assert done.returncode == 0, done.stderr
    link = done.stdout.strip()
    assert link.startswith(f"{site.url}/signin/link?code=")
    assert "one-time link, good for 15 minutes" in done.stderr
    with httpx2.Client() as c:
        first = c.get(link)
        assert first.status_code == 303 and "hoard_session=" in first.headers["set-cookie"]
        assert c.get(f"{site.url}/inbox").status_code == 200
    with httpx2.Client() as c:
        assert c.get(link).status_code == 403  # used up


def test_signin_link_json_gives_the_link_and_its_expiry(hoard_bin: Path, site: Site) -> None:
    done = _signin_link(hoard_bin, site, "--json")

    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["link"].startswith(f"{site.url}/signin/link?code=")
    assert out["expires_at"].endswith("Z")
