"""In a real browser: the Access page makes a caller limited to folders, shows its folders,
and refuses write folders that reach past its read folders; the new token then reads only
within them (MCP over HTTP)."""

from __future__ import annotations

import json
from typing import Any

from .support import Site


def test_the_access_page_limits_a_new_caller_to_folders(owner_page: Any, site: Site) -> None:
    page = owner_page
    page.goto(f"{site.url}/access")
    page.fill("#caller-name", "team-agent")
    page.check("input[name=scope_write]")
    page.fill("#caller-read", "tech/**")
    page.fill("#caller-write", "tech/agent/**")
    page.click("form[action='/access/callers'] button[type=submit]")
    page.wait_for_selector("#new-token")
    token = page.input_value("#token-value")
    entry = site.tokens.find("team-agent")
    assert entry is not None
    assert (entry.read_globs, entry.write_globs) == (("tech/**",), ("tech/agent/**",))
    row = page.locator("tr", has_text="team-agent")
    assert "reads tech/**; writes tech/agent/**" in row.locator("td.folders").inner_text()

    listed = site.mcp(token, "vault_list", {"recursive": True}).structured_content
    paths = [e["path"] for e in listed["entries"]]
    assert paths and all(p.startswith("tech") for p in paths), paths
    refused = site.mcp(token, "vault_write", {"path": "tech/x.md", "content": "# X\n"})
    assert json.loads(refused.content[0].text)["error"] == "forbidden"


def test_the_access_page_refuses_write_folders_outside_the_read_folders(
    owner_page: Any, site: Site
) -> None:
    page = owner_page
    page.goto(f"{site.url}/access")
    page.fill("#caller-name", "too-wide")
    page.check("input[name=scope_write]")
    page.fill("#caller-read", "tech/**")
    page.fill("#caller-write", "life/**")
    page.click("form[action='/access/callers'] button[type=submit]")
    page.wait_for_selector("text=outside the read globs")
    assert site.tokens.find("too-wide") is None
