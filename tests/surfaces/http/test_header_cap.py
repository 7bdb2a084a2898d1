"""Request headers are size-capped (issue 18, item 6): 100 KB of headers is 431, before
any other check; ordinary requests pass."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx2


def test_oversized_request_headers_are_refused_with_431(hoard_http: Callable[..., Any]) -> None:
    server = hoard_http(reader="read")

    big = httpx2.get(f"{server.base}/healthz", headers={"X-Padding": "a" * 100_000}, timeout=10)
    fine = httpx2.get(f"{server.base}/healthz", headers={"X-Padding": "a" * 1000}, timeout=10)

    assert big.status_code == 431
    assert fine.status_code == 200
