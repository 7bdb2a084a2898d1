"""Play the vault owner in a real browser for an OAuth client's sign-in (used by
scripts/third_party_clients.sh only; not part of hoard).

    python scripts/owner_browser.py CLIENT_STDERR ADMIN_TOKEN SCOPES [SECONDS]

Waits until the client under test writes ``Please navigate to: URL`` (the MCP Inspector's
CLI does, for its interactive OAuth) to the file CLIENT_STDERR, then opens URL in Debian's
chromium driven by Playwright, as the owner would: hoard's /authorize sends it to the
consent page, which sends a signed-out owner to the web app's sign-in (the admin token is
typed there), then back; the owner ticks exactly SCOPES (comma-separated), allows, and the
browser follows the redirect to the client's loopback callback. Prints one line: where the
browser ended and what the callback page said. Exit 0 when the callback page was reached,
1 otherwise, 2 when no browser is available.
"""

from __future__ import annotations

import re
import shutil
import sys
import time
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

NAVIGATE = re.compile(r"Please navigate to: (\S+)")


def authorization_url(stderr: Path, seconds: float) -> str:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        text = stderr.read_text(encoding="utf-8", errors="replace") if stderr.exists() else ""
        found = NAVIGATE.search(re.sub(r"\x1b\[[0-9;]*m|\x1b\]8;;[^\x07]*\x07", "", text))
        if found:
            return found.group(1)
        time.sleep(0.2)
    raise SystemExit(f"owner_browser: no 'Please navigate to:' in {stderr} within {seconds} s")


def main() -> int:
    stderr, admin, scopes = Path(sys.argv[1]), sys.argv[2], sys.argv[3].split(",")
    seconds = float(sys.argv[4]) if len(sys.argv) > 4 else 60.0
    chromium = shutil.which("chromium")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        chromium = None
    if chromium is None:
        print("no browser: needs Debian's chromium and the dev extra's playwright")
        return 2
    url = authorization_url(stderr, seconds)
    callback = parse_qs(urlsplit(url).query)["redirect_uri"][0]
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
        page = browser.new_page()
        page.set_default_timeout(seconds * 1000)
        page.goto(url)
        # The consent page refreshes itself once, then sends a signed-out owner to sign in.
        page.wait_for_selector("#token, #allow")
        if page.locator("#token").count():
            page.fill("#token", admin)
            page.click("button[type=submit]")
            page.wait_for_selector("#allow")
        for box in page.locator("input[name=scopes]").all():
            box.set_checked(box.get_attribute("value") in scopes)
        page.click("#allow")
        page.wait_for_url(lambda u: u.startswith(callback))
        said = " ".join(page.inner_text("body").split())[:80]
        browser.close()
    print(f"the browser reached {callback}: {said}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
