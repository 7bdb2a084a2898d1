"""Two replicas of one vault, sharing one PostgreSQL store and one folder, behave as one
hoard: no acknowledged write is lost, every revision is in the ledger, a decision is taken
once, a revoked token is refused everywhere and a note written on one is found on the other.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

import httpx2
import psycopg
import pytest

from hoard.adapters.fs.failpoints import POINTS
from tests.helpers import note_text, wait_until
from tests.replicas.conftest import Replica, Team

pytestmark = pytest.mark.slow

NOTES = [f"team/log-{n}.md" for n in range(3)]
WRITERS = 8
WRITES_EACH = 50


def _append(replica: Replica, client: httpx2.Client, rel: str, line: str) -> str:
    """Append ``line`` to ``rel`` with a revision check, retrying a lost race; the revision
    the acknowledged write made."""
    for _ in range(200):
        read = client.get(f"/notes/{rel}")
        assert read.status_code == 200, read.text
        tag, content = read.headers["etag"], read.json()["content"]
        put = client.put(
            f"/notes/{rel}",
            content=content.rstrip("\n") + f"\n{line}\n",
            headers={"If-Match": tag, "Content-Type": "text/markdown"},
        )
        if put.status_code in (200, 201):
            revision: str = put.json()["revision"]
            return revision
        assert put.status_code in (409, 412, 423, 503), (replica.name, put.status_code, put.text)
    raise AssertionError(f"{line} never got in")


def _append_once(client: httpx2.Client, rel: str, line: str) -> str | None:
    """One revision-checked append; its revision, or ``None`` when refused (a lost race, the
    store still unreachable)."""
    read = client.get(f"/notes/{rel}")
    put = client.put(
        f"/notes/{rel}",
        content=read.json()["content"].rstrip("\n") + f"\n{line}\n",
        headers={"If-Match": read.headers["etag"], "Content-Type": "text/markdown"},
    )
    return put.json()["revision"] if put.status_code == 200 else None  # type: ignore[no-any-return]


def test_eight_writers_on_two_replicas_lose_no_write_and_the_ledger_has_every_revision(
    team: Team,
) -> None:
    acknowledged: dict[str, list[tuple[str, str]]] = {rel: [] for rel in NOTES}
    lock = threading.Lock()

    def writer(n: int) -> None:
        replica = team.a if n % 2 == 0 else team.b
        with replica.client() as client:
            for k in range(WRITES_EACH):
                rel, line = NOTES[(n + k) % len(NOTES)], f"w{n}-{k}"
                revision = _append(replica, client, rel, line)
                with lock:
                    acknowledged[rel].append((line, revision))

    with ThreadPoolExecutor(WRITERS) as pool:
        for future in [pool.submit(writer, n) for n in range(WRITERS)]:
            future.result()
    with psycopg.connect(team.store_url) as ledger:
        for rel, writes in acknowledged.items():
            lines = (team.vault / rel).read_text(encoding="utf-8").splitlines()
            for line, _ in writes:
                assert lines.count(line) == 1, (rel, line)
            recorded = ledger.execute(
                "SELECT after FROM events WHERE path = %s AND decision = 'written'", (rel,)
            ).fetchall()
            assert {revision for _, revision in writes} <= {r[0] for r in recorded}, rel
    assert sum(len(w) for w in acknowledged.values()) == WRITERS * WRITES_EACH


def test_a_note_written_on_one_replica_is_found_on_the_other_within_a_second(
    team: Team,
) -> None:
    word = "quorumbellflower"
    with team.a.client() as a, team.b.client() as b:
        put = a.put(
            "/notes/team/fresh.md",
            content=note_text("Fresh", f"The {word} grows here."),
            headers={"If-None-Match": "*", "Content-Type": "text/markdown"},
        )
        assert put.status_code == 201, put.text
        written = time.monotonic()

        def found() -> bool:
            hits = b.get("/search", params={"q": word}).json()["results"]
            return any(h["path"] == "team/fresh.md" for h in hits)

        wait_until(found, timeout=5.0, interval=0.01)
        assert time.monotonic() - written < 1.0


def test_a_token_revoked_through_one_replica_is_refused_by_the_other(
    team: Team, add_caller: Callable[..., str]
) -> None:
    token = add_caller("temp", "read")
    headers = {"Authorization": f"Bearer {token}"}
    assert httpx2.get(f"{team.a.url}/api/v1/policy", headers=headers).status_code == 200
    with team.b.client() as b:
        assert b.delete("/admin/tokens/temp").status_code in (200, 204)
    assert httpx2.get(f"{team.a.url}/api/v1/policy", headers=headers).status_code == 401


def _propose(team: Team, token: str) -> str:
    with httpx2.Client(
        base_url=f"{team.a.url}/api/v1", headers={"Authorization": f"Bearer {token}"}
    ) as a:
        read = a.get(f"/notes/{NOTES[0]}")
        put = a.put(
            f"/notes/{NOTES[0]}",
            content=read.json()["content"] + "\nproposed line\n",
            headers={"If-Match": read.headers["etag"], "Content-Type": "text/markdown"},
        )
    assert put.status_code == 202, put.text
    proposal_id: str = put.json()["proposal_id"]
    return proposal_id


def test_a_proposal_made_on_one_replica_is_confirmed_on_the_other(
    team: Team, add_caller: Callable[..., str]
) -> None:
    proposal = _propose(team, add_caller("agent", "read,write", "propose"))
    with team.b.client() as b:
        done = b.post(f"/proposals/{proposal}/confirm")
    assert done.status_code == 200, done.text
    assert "proposed line" in (team.vault / NOTES[0]).read_text(encoding="utf-8")


def test_two_confirms_racing_on_two_replicas_apply_the_proposal_once(
    team: Team, add_caller: Callable[..., str]
) -> None:
    proposal = _propose(team, add_caller("agent", "read,write", "propose"))
    start = threading.Barrier(2)

    def confirm(replica: Replica) -> httpx2.Response:
        with replica.client() as client:
            start.wait(10)
            return client.post(f"/proposals/{proposal}/confirm")

    with ThreadPoolExecutor(2) as pool:
        answers = list(pool.map(confirm, [team.a, team.b]))
    assert sorted(r.status_code for r in answers)[0] == 200
    assert [r.status_code for r in answers].count(200) == 1, [r.text for r in answers]
    text = (team.vault / NOTES[0]).read_text(encoding="utf-8")
    assert text.count("proposed line") == 1


def test_an_access_request_approved_on_both_replicas_at_once_gives_one_grant(
    team: Team, add_caller: Callable[..., str]
) -> None:
    token = add_caller("asker", "read")
    asked = httpx2.post(
        f"{team.a.url}/api/v1/access-requests",
        json={"glob": "team/**", "reason": "to read the logs"},
        headers={"Authorization": f"Bearer {token}"},
    )
    assert asked.status_code in (200, 201), asked.text
    request_id = asked.json()["request_id"]
    start = threading.Barrier(2)

    def approve(replica: Replica) -> httpx2.Response:
        with replica.client() as client:
            start.wait(10)
            return client.post(f"/admin/access-requests/{request_id}/approve", json={})

    with ThreadPoolExecutor(2) as pool:
        answers = list(pool.map(approve, [team.a, team.b]))
    assert [r.status_code for r in answers].count(201) == 1, [r.text for r in answers]
    with team.b.client() as b:
        grants = b.get("/admin/grants").json()["grants"]
    assert [g["caller"] for g in grants].count("asker") == 1, (grants, [r.text for r in answers])


def test_a_restart_of_postgres_refuses_writes_meanwhile_and_serves_them_after(
    team: Team, pg_cluster: object
) -> None:
    cluster = pg_cluster
    rel = NOTES[1]
    with team.a.client(timeout=60) as a:
        cluster.stop("fast")  # type: ignore[attr-defined]
        try:
            read = a.get(f"/notes/{rel}")
            assert read.status_code == 200, read.text
            assert "store_unavailable" in {w["kind"] for w in read.json()["warnings"]}
            found = a.get("/search", params={"q": "shared log"})
            assert found.status_code == 200, found.text
            assert "store_unavailable" in {w["kind"] for w in found.json()["warnings"]}
            put = a.put(
                f"/notes/{rel}",
                content=read.json()["content"] + "\nduring the outage\n",
                headers={"If-Match": read.headers["etag"], "Content-Type": "text/markdown"},
            )
            assert put.status_code == 503, put.text
            assert put.json()["error"] == "unavailable"
        finally:
            cluster.start()  # type: ignore[attr-defined]
        assert "during the outage" not in (team.vault / rel).read_text(encoding="utf-8")
        revision = wait_until(lambda: _append_once(a, rel, "after the outage"), timeout=30)
    with team.b.client() as b:

        def recorded() -> bool:
            history = b.get(f"/notes/{rel}/history").json()
            return revision in {e["after"] for e in history.get("events", [])}

        wait_until(recorded, timeout=30)


@pytest.mark.parametrize("point", [p for p in POINTS if p.startswith("write.")])
def test_a_replica_killed_mid_write_leaves_the_note_whole_and_the_other_serving(
    team: Team, point: str
) -> None:
    rel = NOTES[2]
    before = (team.vault / rel).read_bytes()
    team.a.stop()
    team.a.env = team.env | {"HOARD_FAILPOINT": point}
    team.a.start()
    with team.a.client() as a:
        read = a.get(f"/notes/{rel}")
        new = read.json()["content"] + "\nthe write that died\n"
        with pytest.raises(httpx2.TransportError):
            a.put(
                f"/notes/{rel}",
                content=new,
                headers={"If-Match": read.headers["etag"], "Content-Type": "text/markdown"},
            )
    assert team.a.proc is not None and team.a.proc.wait(30) == 97
    assert (team.vault / rel).read_bytes() in (before, new.encode("utf-8"))
    with team.b.client() as b:
        assert b.get(f"/notes/{rel}").status_code == 200
        _append(team.b, b, rel, "b goes on")
    team.a.env = team.env
    team.a.start()
    with team.a.client() as a:
        assert "b goes on" in a.get(f"/notes/{rel}").json()["content"]
        _append(team.a, a, rel, "a is back")
