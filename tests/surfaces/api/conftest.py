"""Fixtures for the JSON API: a real vault in tmp_path, a real uvicorn on 127.0.0.1 serving
the whole HTTP app (guard, /mcp, /api/v1), tokens for callers of every kind, and httpx2."""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx2
import pytest

from hoard.adapters.tokens import TokenStore
from hoard.app.hoard import Hoard
from hoard.core.policy import LOCAL_DEFAULT
from hoard.surfaces.http import CallerResolver, build_app
from hoard.surfaces.mcp.server import HoardMCP
from hoard.surfaces.web import build_web
from hoard.surfaces.web.api_session import api_session
from tests.helpers import LiveServer, note_text
from tests.helpers import wait_until as wait_until_in_helpers

SECRET_WORD = "zanzibarquux"
PRIVATE_WORD = "quillfeatherpine"

CALLERS = {
    # name: (scopes, write_mode)
    "owner": ("read,write,confirm,maintenance,admin", "direct"),
    "writer": ("read,write", "direct"),
    "proposer": ("read,write", "propose"),
    "confirmer": ("read,write,confirm", "direct"),
    "reader": ("read", "propose"),
}


note = note_text
"""The note builder of every test (a note the default contract accepts)."""

wait_until = functools.partial(wait_until_in_helpers, timeout=15.0)
"""The shared wait, with this server's longer default patience."""


def api_vault(root: Path, toml: str = "") -> Path:
    """The JSON API tests' fixed vault: a protected note, a private one, a linked hub with
    a broken link beside it and a 200 KB note (the generic builder is
    ``tests.helpers.make_vault``)."""
    for folder in ("secret", "tech", "personal-notes", "life"):
        (root / folder).mkdir(parents=True)
    (root / "hoard.toml").write_text('protected = ["secret/**"]\n' + toml, encoding="utf-8")
    (root / "secret" / "plan.md").write_text(
        note("Takeover plan", f"The {SECRET_WORD} plan, in full. See [[hub]]."), encoding="utf-8"
    )
    (root / "tech" / "hub.md").write_text(
        note("Hub bridge", "The hub of everything: the bridge firmware. See [[other]]."),
        encoding="utf-8",
    )
    (root / "tech" / "other.md").write_text(
        note("Other", "An ordinary note about gardening and [[missing-note]]."), encoding="utf-8"
    )
    (root / "tech" / "_INDEX.md").write_text(note("Tech", "- [[hub]]"), encoding="utf-8")
    (root / "personal-notes" / "diary.md").write_text(
        f"# Diary\n\nToday the {PRIVATE_WORD} bloomed.\n", encoding="utf-8"
    )
    big = "word " * 40_000
    (root / "life" / "long.md").write_text(note("Long", big), encoding="utf-8")
    return root


@dataclass
class Api:
    """A running server and a client per caller."""

    url: str
    hoard: Hoard
    vault: Path
    tokens: dict[str, str]
    store: TokenStore
    clients: dict[str, httpx2.Client] = field(default_factory=dict)
    signin_code: str | None = None
    """With the web app: its one-time sign-in link's code."""

    def client(self, name: str) -> httpx2.Client:
        if name not in self.clients:
            self.clients[name] = httpx2.Client(
                base_url=f"{self.url}/api/v1",
                headers={"Authorization": f"Bearer {self.tokens[name]}"},
                timeout=30.0,
            )
        return self.clients[name]

    def anonymous(self) -> httpx2.Client:
        return self.client_with({})

    def client_with(self, headers: dict[str, str]) -> httpx2.Client:
        c = httpx2.Client(base_url=f"{self.url}/api/v1", headers=headers, timeout=30.0)
        self.clients[f"anon-{len(self.clients)}"] = c
        return c


@contextlib.contextmanager
def serving(
    tmp: Path,
    resolvers: tuple[CallerResolver, ...] = (),
    max_body: int | None = None,
    strict: bool = False,
    web: bool = False,
    toml: str = "",
) -> Iterator[Api]:
    """A real server on a fresh vault under ``tmp``, stopped (and everything closed) on the
    way out; with ``web``, the web app too, and its session accepted by the API (as
    ``hoard serve --http`` wires it)."""
    vault = api_vault(tmp / "vault", toml)
    hoard = Hoard(vault, tmp / "state")
    store = TokenStore(tmp / "tokens.json", strict=strict)
    tokens = {name: store.add(name, s, m)[1] for name, (s, m) in CALLERS.items()}
    mcp = HoardMCP(hoard, LOCAL_DEFAULT)
    # Bind first to learn the port the Host check must accept.
    live = LiveServer()
    kwargs: dict[str, Any] = {} if max_body is None else {"max_body": max_body}
    code = None
    if web:
        kwargs["web"], code = build_web(hoard, store, show_private=True)
        resolvers = (*resolvers, api_session(kwargs["web"].sessions))
    live.start(build_app(mcp, store, "127.0.0.1", live.port, resolvers=resolvers, **kwargs))
    served = Api(live.url, hoard, vault, tokens, store, signin_code=code)
    try:
        yield served
    finally:
        for c in served.clients.values():
            c.close()
        live.stop()
        mcp.close()
        hoard.close()


@pytest.fixture(scope="module")
def api(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Api]:
    with serving(tmp_path_factory.mktemp("api")) as served:
        yield served
