"""Server time of the web app's pages on a real vault, and the weight of its first page.

    make bench-web    (or: python bench/web_bench.py [--vault PATH] [--notes N] [--queries N])

Default vault: ``$HOARD_EVALDATA/zk-digitalyoshixi/notes`` (13k notes), read by path, never
copied or written (the index and ``web.db`` go to a temporary state folder, or ``--state``
to keep the index between runs). hoard is opened as ``hoard serve`` opens it (with the file
watcher, so a read never waits for a stat walk of the vault), and the bench waits for the
server's background check to finish before measuring. The web app is called in process
through ASGI (no sockets): that is the server's time for a request, from the request
arriving to the last body byte. Prints a table and writes ``bench/receipts/web-<date>.json``
with the machine's load.

Measured:

- ``GET /n/<path>`` for random notes (rendered Markdown, links, backlinks, claims, synthesis
  state, history);
- as-you-type search: ``GET /search/results?q=...`` with ``HX-Request`` for every prefix of
  a few two-word queries taken from note titles (what htmx sends while the owner types,
  from :data:`~hoard.surfaces.web.pages.search.TYPING_MIN_CHARS` characters on), and the
  same split into 1-2 characters (the widest prefixes) and 3 or more;
- the first page's weight: the sign-in page (its stylesheet is inline), and the first page
  after signing in with every asset it loads (stylesheet, htmx, the page script).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import tempfile
import threading
import time
from collections.abc import Awaitable, Callable, MutableMapping
from pathlib import Path
from typing import Any
from urllib.parse import quote, unquote, urlencode

from benchlib import evaldata_dir, machine_info, now_iso, percentile, render_table, write_receipt
from hoard.adapters.tokens import TokenStore
from hoard.app.hoard import Hoard
from hoard.core.policy import OWNER
from hoard.surfaces.web import build_web
from hoard.surfaces.web.pages.search import TYPING_MIN_CHARS

Message = MutableMapping[str, Any]
ASGI = Callable[[MutableMapping[str, Any], Any, Any], Awaitable[None]]


async def call(app: ASGI, path: str, cookie: str, hx: bool = False) -> tuple[int, bytes, float]:
    """One GET through the ASGI app: (status, body, milliseconds)."""
    raw_path, _, query = path.partition("?")
    headers = [(b"host", b"127.0.0.1:8765"), (b"cookie", cookie.encode())]
    if hx:
        headers.append((b"hx-request", b"true"))
    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "GET",
        "scheme": "http",
        "path": unquote(raw_path),
        "raw_path": raw_path.encode(),
        "query_string": query.encode(),
        "headers": headers,
        "client": ("127.0.0.1", 1),
        "server": ("127.0.0.1", 8765),
        "root_path": "",
    }
    status = 0
    body: list[bytes] = []
    done = asyncio.Event()
    asked = False

    async def receive() -> Message:
        # The request once; then, like a client that stays until the answer is complete,
        # a disconnect only after the last body byte (a file response listens for it).
        nonlocal asked
        if not asked:
            asked = True
            return {"type": "http.request", "body": b"", "more_body": False}
        await done.wait()
        return {"type": "http.disconnect"}

    async def send(message: Message) -> None:
        nonlocal status
        if message["type"] == "http.response.start":
            status = message["status"]
        elif message["type"] == "http.response.body":
            body.append(message.get("body", b""))
            if not message.get("more_body", False):
                done.set()

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
    """Every prefix (1+ characters) of ``n`` two-word queries taken from note titles."""
    words = [w for t in titles for w in t.split() if len(w) >= 4 and w.isalpha()]
    out: list[str] = []
    for _ in range(n):
        query = f"{rng.choice(words).lower()} {rng.choice(words).lower()}"
        out += [query[:i] for i in range(1, len(query) + 1) if not query[:i].endswith(" ")]
    return out


def settled(timeout: float = 600.0) -> float:
    """Wait for the server's background work (the deep index check, warming the typo
    vocabulary) to end, as it has on a server that has been up a minute; seconds waited."""
    t0 = time.perf_counter()
    while any(t.name == "hoard-deep-check" for t in threading.enumerate()):
        if time.perf_counter() - t0 > timeout:
            break
        time.sleep(0.2)
    return time.perf_counter() - t0


async def run(args: argparse.Namespace, state: Path) -> dict[str, Any]:
    tokens = TokenStore(state / "tokens.json")
    _, owner_token = tokens.add(f"bench-{os.getpid()}", "read,write,confirm,admin", "direct")
    t0 = time.perf_counter()
    hoard = Hoard(args.vault, state / "state", watch=not args.no_watch)
    index_s = time.perf_counter() - t0
    settle_s = settled()
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
        titles = [
            str((hoard.reading.read(p, caller=OWNER).frontmatter or {}).get("title") or p)
            for p in sample[:200]
        ]
        typing_ms: list[float] = []
        lengths: list[int] = []
        for q in typing_prefixes(titles, args.queries, rng):
            status, _, ms = await call(app, "/search/results?" + urlencode({"q": q}), cookie, True)
            assert status == 200, (q, status)
            if len(q) >= TYPING_MIN_CHARS:
                typing_ms.append(ms)
                lengths.append(len(q))
        weight = await page_weight(app, cookie)
    finally:
        hoard.close()
    return {
        "index_s": index_s,
        "settle_s": settle_s,
        "note_ms": note_ms,
        "search_ms": typing_ms,
        "short_ms": [ms for ms, n in zip(typing_ms, lengths, strict=True) if n <= 2],
        "long_ms": [ms for ms, n in zip(typing_ms, lengths, strict=True) if n > 2],
        "weight": weight,
    }


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


def stats(samples: list[float]) -> dict[str, float]:
    return {
        "p50": percentile(samples, 50),
        "p95": percentile(samples, 95),
        "max": max(samples),
        "n": len(samples),
    }


def measure(args: argparse.Namespace) -> dict[str, Any]:
    if args.state is not None:
        args.state.mkdir(parents=True, exist_ok=True)
        return asyncio.run(run(args, args.state))
    with tempfile.TemporaryDirectory(prefix="hoard-web-bench-") as tmp:
        return asyncio.run(run(args, Path(tmp)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--vault", type=Path, default=evaldata_dir() / "zk-digitalyoshixi" / "notes"
    )
    parser.add_argument("--notes", type=int, default=300)
    parser.add_argument("--queries", type=int, default=20)
    parser.add_argument("--state", type=Path, help="keep the index here between runs")
    parser.add_argument(
        "--no-watch",
        action="store_true",
        help="no file watcher (a one-shot process: a stat walk of the vault at most once a "
        "second on the read path), to compare",
    )
    parser.add_argument("--receipt", type=Path, help="default: bench/receipts/web-<date>.json")
    args = parser.parse_args()
    load_before = os.getloadavg()[0]
    out = measure(args)
    load_after = os.getloadavg()[0]
    w = out["weight"]
    table = render_table(
        ["measure", "n", "p50 ms", "p95 ms", "max ms", "target"],
        [
            row("note page GET /n/<path>", out["note_ms"], "p50 < 30 ms"),
            row("as-you-type search, every prefix", out["search_ms"], "p50 < 30 ms"),
            row("  of them 1-2 characters", out["short_ms"], "-"),
            row("  of them 3+ characters", out["long_ms"], "-"),
        ],
    )
    print(
        f"vault: {args.vault} (index built or checked in {out['index_s']:.1f} s, background "
        f"check {out['settle_s']:.1f} s); 1-min load {load_before:.2f} before, "
        f"{load_after:.2f} after, {os.cpu_count()} cores; watcher "
        f"{'off' if args.no_watch else 'on'}"
    )
    print(table)
    print(
        f"first page: sign-in page {w['signin_page']} B (stylesheet inline); after sign-in "
        f"{w['first_page_total']} B with every asset (target < 100 KB): {w}"
    )
    payload = {
        "at": now_iso(),
        "machine": machine_info(),
        "load_1min": {"before": round(load_before, 2), "after": round(load_after, 2)},
        "vault": str(args.vault),
        "watcher": not args.no_watch,
        "index_s": round(out["index_s"], 1),
        "note_page_ms": stats(out["note_ms"]),
        "search_ms": {"min_chars": TYPING_MIN_CHARS, **stats(out["search_ms"])},
        "search_1_2_chars_ms": stats(out["short_ms"]),
        "search_3plus_chars_ms": stats(out["long_ms"]),
        "weight_bytes": w,
        "table": table,
    }
    print(f"receipt: {write_receipt('web', payload, args.receipt)}")


if __name__ == "__main__":
    main()
