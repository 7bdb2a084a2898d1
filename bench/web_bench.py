"""Server time of the web app's pages on a real vault, and the weight of its first page.

    python bench/web_bench.py [--vault PATH] [--notes N] [--queries N]

Default vault: ``$HOARD_EVALDATA/zk-digitalyoshixi/notes`` (13k notes), read by path, never
copied or written (the index and ``web.db`` go to a temporary state folder). The web app is
called in process through ASGI (no sockets): that is the server's time for a request, from
the request arriving to the last body byte. Prints a table and writes
``bench/receipts/web-<date>.json``.

Measured:

- ``GET /n/<path>`` for random notes (rendered Markdown, links, backlinks, claims, synthesis
  state, history);
- as-you-type search: ``GET /search/results?q=...`` with ``HX-Request`` for every prefix of
  a few two-word queries taken from note titles (what htmx sends while the owner types);
- the first page's weight: the sign-in page (its stylesheet is inline), and the first page
  after signing in with every asset it loads (stylesheet, htmx, the page script).
"""

from __future__ import annotations

import argparse
import asyncio
import random
import tempfile
import time
from collections.abc import Awaitable, Callable, MutableMapping
from pathlib import Path
from typing import Any
from urllib.parse import quote, unquote, urlencode

from benchlib import evaldata_dir, machine_info, now_iso, percentile, render_table, write_receipt
from hoard.adapters.tokens import TokenStore
from hoard.app.hoard import Hoard
from hoard.surfaces.web import build_web

Message = MutableMapping[str, Any]
ASGI = Callable[[MutableMapping[str, Any], Any, Any], Awaitable[None]]


async def call(app: ASGI, path: str, cookie: str, hx: bool = False) -> tuple[int, bytes, float]:
    """One GET through the ASGI app: (status, body, milliseconds)."""
    raw_path, _, query = path.partition("?")
    headers = [(b"host", b"127.0.0.1:8765"), (b"cookie", cookie.encode())]
    if hx:
        headers.append((b"hx-request", b"true"))
    scope = {
        "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "GET",
        "scheme": "http", "path": unquote(raw_path), "raw_path": raw_path.encode(),
        "query_string": query.encode(), "headers": headers, "client": ("127.0.0.1", 1),
        "server": ("127.0.0.1", 8765), "root_path": "",
    }  # fmt: skip
    status = 0
    body: list[bytes] = []

    async def receive() -> Message:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: Message) -> None:
        nonlocal status
        if message["type"] == "http.response.start":
            status = message["status"]
        elif message["type"] == "http.response.body":
            body.append(message.get("body", b""))

    t0 = time.perf_counter()
    await app(scope, receive, send)
    return status, b"".join(body), (time.perf_counter() - t0) * 1000


def row(name: str, samples: list[float], target: str) -> list[str]:
    return [
        name,
        str(len(samples)),
        f"{percentile(samples, 50):.2f}",
        f"{percentile(samples, 95):.2f}",
        f"{max(samples):.2f}",
        target,
    ]


def typing_prefixes(titles: list[str], n: int, rng: random.Random) -> list[str]:
    """Every prefix (2+ characters) of ``n`` two-word queries taken from note titles."""
    words = [w for t in titles for w in t.split() if len(w) >= 4 and w.isalpha()]
    out: list[str] = []
    for _ in range(n):
        query = f"{rng.choice(words).lower()} {rng.choice(words).lower()}"
        out += [query[:i] for i in range(2, len(query) + 1) if not query[:i].endswith(" ")]
    return out


async def run(args: argparse.Namespace, state: Path) -> dict[str, Any]:
    tokens = TokenStore(state / "tokens.json")
    _, owner_token = tokens.add("bench-owner", "read,write,confirm,maintenance,admin", "direct")
    t0 = time.perf_counter()
    hoard = Hoard(args.vault, state / "state")
    index_s = time.perf_counter() - t0
    try:
        app, _ = build_web(hoard, tokens, show_private=True)
        sessions, desk = hoard.owner_tools(tokens)
        secret, _ = sessions.sign_in(owner_token, "bench")
        cookie = f"hoard_session={secret}"
        rng = random.Random(7)
        notes = sorted(path for path, _, _ in desk.recent(1_000_000))
        sample = rng.sample(notes, min(args.notes, len(notes)))
        await call(app, "/n/" + quote(sample[0]), cookie)  # warm up
        note_ms = []
        for path in sample:
            status, _, ms = await call(app, "/n/" + quote(path), cookie)
            assert status == 200, (path, status)
            note_ms.append(ms)
        titles = [str((hoard.read(p).frontmatter or {}).get("title") or p) for p in sample[:200]]
        search_ms = []
        for q in typing_prefixes(titles, args.queries, rng):
            status, _, ms = await call(app, "/search/results?" + urlencode({"q": q}), cookie, True)
            assert status == 200, (q, status)
            search_ms.append(ms)
        weight = await page_weight(app, cookie)
    finally:
        hoard.close()
    return {"index_s": index_s, "note_ms": note_ms, "search_ms": search_ms, "weight": weight}


async def page_weight(app: ASGI, cookie: str) -> dict[str, int]:
    _, signin, _ = await call(app, "/signin", "")
    _, first, _ = await call(app, "/", cookie)
    assets = ["/static/hoard.css", "/static/htmx-2.0.4.min.js", "/static/hoard.js"]
    sizes = {a: len((await call(app, a, cookie))[1]) for a in assets}
    return {
        "signin_page": len(signin),
        "search_page_html": len(first),
        **sizes,
        "first_page_total": len(first) + sum(sizes.values()),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--vault", type=Path, default=evaldata_dir() / "zk-digitalyoshixi" / "notes"
    )
    parser.add_argument("--notes", type=int, default=300)
    parser.add_argument("--queries", type=int, default=20)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="hoard-web-bench-") as tmp:
        out = asyncio.run(run(args, Path(tmp)))
    w = out["weight"]
    table = render_table(
        ["measure", "n", "p50 ms", "p95 ms", "max ms", "target"],
        [
            row("note page GET /n/<path>", out["note_ms"], "p50 < 30 ms"),
            row("as-you-type search (each prefix)", out["search_ms"], "p50 < 30 ms"),
        ],
    )
    print(f"vault: {args.vault} (index built or checked in {out['index_s']:.1f} s)")
    print(table)
    print(
        f"first page: sign-in page {w['signin_page']} B (stylesheet inline); after sign-in "
        f"{w['first_page_total']} B with every asset (target < 100 KB): {w}"
    )
    receipt = write_receipt(
        "web",
        {
            "at": now_iso(),
            "machine": machine_info(),
            "vault": str(args.vault),
            "note_page_ms": {
                "p50": percentile(out["note_ms"], 50),
                "p95": percentile(out["note_ms"], 95),
                "n": len(out["note_ms"]),
            },
            "search_ms": {
                "p50": percentile(out["search_ms"], 50),
                "p95": percentile(out["search_ms"], 95),
                "n": len(out["search_ms"]),
            },
            "weight_bytes": w,
        },
    )
    print(f"receipt: {receipt}")


if __name__ == "__main__":
    main()
