"""The optional rerank step, against a real rerank endpoint on loopback (SPEC 5)."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from hoard.adapters.search.rerank import RerankFailed, parse_scores
from hoard.core.config_schema import parse_config
from hoard.core.errors import ConfigError
from hoard.core.policy import OWNER, Caller


class Endpoint:
    """A tiny rerank model: a text's score is how often it says "favourite". ``mode``
    switches it to failing in one way or another; ``received`` keeps every request."""

    def __init__(self) -> None:
        self.mode = "tei"
        self.received: list[dict[str, Any]] = []
        self.released = threading.Event()  # a "slow" answer comes only once this is set
        endpoint = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                endpoint.received.append(body)
                scores = [t.lower().count("favourite") for t in body["texts"]]
                if endpoint.mode == "error":
                    self.send_response(500)
                    self.end_headers()
                    return
                if endpoint.mode == "slow":
                    endpoint.released.wait(timeout=30)
                if endpoint.mode == "garbage":
                    payload: Any = {"nothing": "useful"}
                elif endpoint.mode == "cohere":
                    payload = {
                        "results": [
                            {"index": i, "relevance_score": s} for i, s in enumerate(scores)
                        ]
                    }
                else:
                    payload = [{"index": i, "score": s} for i, s in enumerate(scores)]
                data = json.dumps(payload).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: object) -> None:
                return None

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/rerank"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def texts(self) -> list[str]:
        return [t for body in self.received for t in body["texts"]]

    def close(self) -> None:
        self.released.set()
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def endpoint() -> Iterator[Endpoint]:
    e = Endpoint()
    yield e
    e.close()


@pytest.fixture
def reranking_vault(vault: Path, write_note, endpoint: Endpoint) -> Path:
    (vault / "hoard.toml").write_text(
        f'[rerank]\nenabled = true\nurl = "{endpoint.url}"\ntimeout_ms = 300\nshortlist = 5\n'
    )
    for i in range(12):
        write_note(f"misc/bg{i}.md", f"Background {i}", f"unrelated text number {i}")
    # Equal BM25 for "quokka": a tie, so the top is contested; ties list by path (a first).
    write_note("tech/a.md", "Note a", "quokka plain words here")
    write_note("tech/b.md", "Note b", "quokka favourite words here")
    return vault


def paths(result: Any) -> list[str]:
    return [h.path for h in result.results]


def test_a_contested_top_is_reordered_by_the_model(reranking_vault, open_hoard, endpoint):
    r = open_hoard().searching.search("quokka", caller=OWNER)

    assert r.contested and r.reranked
    assert r.engine == "fts5+rerank"
    assert r.error is None
    assert paths(r) == ["tech/b.md", "tech/a.md"]
    assert [h.score for h in r.results] == sorted((h.score for h in r.results), reverse=True)
    assert endpoint.received[0]["query"] == "quokka"


def test_a_clear_top_is_left_alone_unless_rerank_is_on(
    reranking_vault, write_note, open_hoard, endpoint
):
    write_note("tech/c.md", "Wombat quokka", "nothing else")  # a title match wins clearly
    hoard = open_hoard()

    auto = hoard.searching.search("wombat quokka", caller=OWNER)
    assert not auto.contested and not auto.reranked and auto.engine == "fts5"
    assert endpoint.received == []

    on = hoard.searching.search("wombat quokka", rerank="on", caller=OWNER)
    assert on.reranked and on.engine == "fts5+rerank"
    assert len(endpoint.received) == 1


def test_rerank_off_never_calls_the_model(reranking_vault, open_hoard, endpoint):
    r = open_hoard().searching.search("quokka", rerank="off", caller=OWNER)

    assert r.contested and not r.reranked
    assert paths(r) == ["tech/a.md", "tech/b.md"]
    assert endpoint.received == []


def test_private_notes_are_never_sent_and_keep_their_slot(
    reranking_vault, write_note, open_hoard, endpoint
):
    write_note("personal-notes/p.md", "Note p", "quokka secretword favourite favourite")
    hoard = open_hoard()
    before = paths(hoard.searching.search("quokka", rerank="off", caller=OWNER))

    r = hoard.searching.search("quokka", caller=OWNER)

    assert r.reranked
    slot = before.index("personal-notes/p.md")
    assert paths(r)[slot] == "personal-notes/p.md"  # the model would have liked it best
    others = [p for p in paths(r) if p != "personal-notes/p.md"]
    assert others == ["tech/b.md", "tech/a.md"]
    assert endpoint.texts() and not any("secretword" in t for t in endpoint.texts())


def test_a_grant_that_expires_during_the_search_sends_nothing_it_covered(
    reranking_vault, write_note, open_hoard, endpoint, monkeypatch
):
    (reranking_vault / "hoard.toml").write_text(
        'protected = ["secret/**"]\n'
        f'[rerank]\nenabled = true\nurl = "{endpoint.url}"\ntimeout_ms = 300\nshortlist = 5\n'
    )
    write_note("secret/s.md", "Note s", "quokka secretword favourite favourite")
    reader = Caller("reader", frozenset({"read"}), "direct")
    hoard = open_hoard()
    hoard.ledger.add_grant("reader", "secret/**", minutes=1)
    assert "secret/s.md" in paths(hoard.searching.search("quokka", caller=reader, rerank="off"))
    # The clock grants are judged by, moved past the grant's end once the search has
    # decided what the caller sees (the first time the search asks the extra filter).
    shift = [0.0]
    real_time = time.time
    monkeypatch.setattr(time, "time", lambda: real_time() + shift[0])

    def expire_the_grant(path: str) -> bool:
        shift[0] = 120.0
        return True

    r = hoard.searching.search("quokka", caller=reader, rerank="on", visible=expire_the_grant)

    assert shift[0] == 120.0 and r.reranked
    assert endpoint.texts() and not any("secretword" in t for t in endpoint.texts())
    assert "secret/s.md" not in paths(r)
    assert paths(r)[:2] == ["tech/b.md", "tech/a.md"]
    assert r.hidden_protected >= 1


@pytest.mark.parametrize(
    ("mode", "why"),
    [("error", "HTTP 500"), ("slow", "unreachable"), ("garbage", "results list")],
)
def test_a_failing_model_leaves_the_bm25_order_and_says_why(
    reranking_vault, open_hoard, endpoint, mode, why
):
    endpoint.mode = mode

    r = open_hoard().searching.search("quokka", caller=OWNER)

    assert not r.reranked and r.engine == "fts5"
    assert paths(r) == ["tech/a.md", "tech/b.md"]
    assert r.error is not None and why in r.error and "BM25 order stands" in r.error


def test_the_cohere_reply_shape_is_understood(reranking_vault, open_hoard, endpoint):
    endpoint.mode = "cohere"

    assert paths(open_hoard().searching.search("quokka", caller=OWNER)) == [
        "tech/b.md",
        "tech/a.md",
    ]


def test_asking_for_rerank_without_a_model_says_so(write_note, open_hoard):
    write_note("tech/a.md", "Quokka", "body")

    r = open_hoard().searching.search("quokka", rerank="on", caller=OWNER)

    assert not r.reranked and r.engine == "fts5"
    assert [w["kind"] for w in r.warnings] == ["rerank_unavailable"]


def test_enabling_rerank_needs_an_http_url() -> None:
    with pytest.raises(ConfigError, match=r"rerank\.url"):
        parse_config({"rerank": {"enabled": True}})
    with pytest.raises(ConfigError, match=r"rerank\.url"):
        parse_config({"rerank": {"enabled": True, "url": "file:///etc/passwd"}})
    assert parse_config({"rerank": {"enabled": True, "url": "https://m.example/rerank"}})


@pytest.mark.parametrize(
    "reply",
    [
        [{"index": 0, "score": 1.0}],  # a text left without a score
        [{"index": 0, "score": 1.0}, {"index": 5, "score": 1.0}],
        [{"index": 0, "score": "high"}, {"index": 1, "score": 1.0}],
        [{"index": 0, "score": float("nan")}, {"index": 1, "score": 1.0}],
        [{"index": True, "score": 1.0}, {"index": 1, "score": 1.0}],
        {"results": "no"},
        "text",
    ],
)
def test_a_malformed_reply_is_a_failure_not_a_guess(reply: Any) -> None:
    with pytest.raises(RerankFailed):
        parse_scores(reply, 2)


def test_scores_come_back_in_text_order_whatever_the_reply_order() -> None:
    reply = [{"index": 1, "score": 0.2}, {"index": 0, "score": 0.9}]
    assert parse_scores(reply, 2) == [0.9, 0.2]
