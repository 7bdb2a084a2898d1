"""Writing over the JSON API against a real uvicorn: preconditions (If-Match, If-None-Match,
428, 412), contract violations, propose mode with its proposals, archive, restore, file-note,
private notes, and two writers racing on the same revision."""

from __future__ import annotations

import hashlib
import threading

import httpx2

from tests.surfaces.api.conftest import Api, note


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def test_a_put_with_if_none_match_star_creates_the_note_201(api: Api) -> None:
    text = note("Fresh", "A new note about kettles.")
    r = api.client("writer").put(
        "/notes/tech/fresh.md",
        content=text.encode(),
        headers={"If-None-Match": "*", "Content-Type": "text/markdown"},
    )
    assert r.status_code == 201, r.text
    assert r.json()["status"] == "written"
    assert (api.vault / "tech" / "fresh.md").read_text() == text
    assert r.headers["etag"] == f'"{_sha(text.encode())}"'
    assert r.headers["location"] == "/api/v1/notes/tech/fresh.md"
    again = api.client("writer").get(r.headers["location"].removeprefix("/api/v1"))
    assert again.headers["etag"] == r.headers["etag"]


def test_a_put_with_if_match_overwrites_200_and_preserves_the_old_bytes(api: Api) -> None:
    c = api.client("writer")
    old = (api.vault / "tech" / "other.md").read_bytes()
    new = note("Other", "Gardening, rewritten over HTTP.")
    r = c.put("/notes/tech/other.md", json={"content": new}, headers={"If-Match": f'"{_sha(old)}"'})
    assert r.status_code == 200, r.text
    assert r.json()["previous_revision"] == _sha(old)
    assert r.headers["etag"] == f'"{_sha(new.encode())}"'
    history = c.get("/notes/tech/other.md/history").json()
    rev = history["revisions"][0]
    assert rev["sha256"] == _sha(old)
    preserved = c.get(f"/revisions/{rev['revision_id']}").json()
    assert preserved["content"].encode() == old


def test_a_put_without_a_precondition_is_428_and_changes_nothing(api: Api) -> None:
    before = (api.vault / "tech" / "hub.md").read_bytes()
    r = api.client("writer").put("/notes/tech/hub.md", json={"content": note("X", "y")})
    assert r.status_code == 428
    assert r.json()["error"] == "invalid_argument"
    assert (api.vault / "tech" / "hub.md").read_bytes() == before
    r = api.client("writer").put("/notes/tech/new-one.md", json={"content": note("X", "y")})
    assert r.status_code == 428
    assert not (api.vault / "tech" / "new-one.md").exists()


def test_a_stale_if_match_is_412_carrying_the_current_revision(api: Api) -> None:
    current = _sha((api.vault / "tech" / "hub.md").read_bytes())
    r = api.client("writer").put(
        "/notes/tech/hub.md", json={"content": note("Hub", "z")}, headers={"If-Match": '"0a0b"'}
    )
    assert r.status_code == 412
    assert r.json()["error"] == "conflict"
    assert r.json()["current_revision"] == current


def test_creating_over_an_existing_note_is_412_exists(api: Api) -> None:
    current = _sha((api.vault / "tech" / "hub.md").read_bytes())
    r = api.client("writer").put(
        "/notes/tech/hub.md", json={"content": note("Hub", "z")}, headers={"If-None-Match": "*"}
    )
    assert r.status_code == 412
    assert r.json() | {"message": ""} == {
        "error": "exists",
        "message": "",
        "current_revision": current,
    }


def test_a_contract_violation_is_422_listing_every_violation(api: Api) -> None:
    bad = "---\ntitle: x\ntype: note\nstatus: ok\ntags: [One]\nupdated: 2026-02-30\n---\nbody\n"
    r = api.client("writer").put(
        "/notes/tech/bad.md",
        content=bad.encode(),
        headers={"If-None-Match": "*", "Content-Type": "text/markdown"},
    )
    assert r.status_code == 422
    body = r.json()
    assert body["error"] == "contract_violation"
    fields = {v["field"] for v in body["violations"]}
    assert {"tags", "updated"} <= fields
    assert not (api.vault / "tech" / "bad.md").exists()


def test_a_dry_run_needs_no_precondition_and_writes_nothing(api: Api) -> None:
    r = api.client("writer").put(
        "/notes/tech/dry.md", params={"dry_run": 1}, json={"content": "no frontmatter\n"}
    )
    assert r.status_code == 200
    body = r.json()
    assert body["status"] == "dry_run"
    assert body["preflight"]["violations"]
    assert not (api.vault / "tech" / "dry.md").exists()


def test_a_reader_may_not_write_403_forbidden(api: Api) -> None:
    r = api.client("reader").put(
        "/notes/tech/r.md", json={"content": note("R", "r")}, headers={"If-None-Match": "*"}
    )
    assert r.status_code == 403
    assert r.json()["error"] == "forbidden"


def test_an_existing_private_note_cannot_be_overwritten_403(api: Api) -> None:
    raw = (api.vault / "personal-notes" / "diary.md").read_bytes()
    r = api.client("writer").put(
        "/notes/personal-notes/diary.md",
        json={"content": "# Diary\n\nchanged\n"},
        headers={"If-Match": f'"{_sha(raw)}"'},
    )
    assert r.status_code == 403
    assert r.json()["error"] == "private_note"
    assert (api.vault / "personal-notes" / "diary.md").read_bytes() == raw


def test_a_propose_mode_write_is_202_and_a_confirmer_applies_it(api: Api) -> None:
    text = note("Proposed", "Suggested by an agent.")
    r = api.client("proposer").put(
        "/notes/tech/proposed.md", json={"content": text}, headers={"If-None-Match": "*"}
    )
    assert r.status_code == 202, r.text
    body = r.json()
    assert body["status"] == "proposed"
    assert len(body["proposal_id"]) == 8
    assert "+Suggested by an agent." in body["diff"]
    assert not (api.vault / "tech" / "proposed.md").exists()
    listed = api.client("confirmer").get("/proposals").json()["proposals"]
    assert body["proposal_id"] in {p["proposal_id"] for p in listed}
    denied = api.client("proposer").post(f"/proposals/{body['proposal_id']}/confirm")
    assert denied.status_code == 403
    done = api.client("confirmer").post(f"/proposals/{body['proposal_id']}/confirm")
    assert done.status_code == 200, done.text
    assert done.json()["status"] == "written"
    assert (api.vault / "tech" / "proposed.md").read_text() == text
    again = api.client("confirmer").post(f"/proposals/{body['proposal_id']}/confirm")
    assert again.status_code == 404
    assert again.json()["error"] == "proposal_not_found"


def test_a_rejected_proposal_writes_nothing(api: Api) -> None:
    r = api.client("proposer").put(
        "/notes/tech/rejected.md",
        json={"content": note("Rejected", "Not wanted.")},
        headers={"If-None-Match": "*"},
    )
    pid = r.json()["proposal_id"]
    out = api.client("confirmer").post(f"/proposals/{pid}/reject")
    assert out.json() == {"proposal_id": pid, "status": "rejected"}
    assert not (api.vault / "tech" / "rejected.md").exists()


def test_archive_needs_if_match_then_preserves_and_restore_recreates(api: Api) -> None:
    c = api.client("owner")
    path = api.vault / "tech" / "retire-me.md"
    text = note("Retire", "Soon gone.")
    assert (
        c.put(
            "/notes/tech/retire-me.md", json={"content": text}, headers={"If-None-Match": "*"}
        ).status_code
        == 201
    )
    r = c.post("/notes/tech/retire-me.md/archive", json={"reason": "superseded"})
    assert r.status_code == 428
    stale = c.post(
        "/notes/tech/retire-me.md/archive",
        json={"reason": "superseded"},
        headers={"If-Match": '"beef"'},
    )
    assert stale.status_code == 412
    ok = c.post(
        "/notes/tech/retire-me.md/archive",
        json={"reason": "superseded"},
        headers={"If-Match": f'"{_sha(text.encode())}"'},
    )
    assert ok.status_code == 200, ok.text
    assert not path.exists()
    restored = c.post("/restore", json={"revision_id": ok.json()["revision_id"]})
    assert restored.status_code == 201, restored.text
    assert path.read_text() == text
    twice = c.post("/restore", json={"revision_id": ok.json()["revision_id"]})
    assert twice.status_code == 409
    assert twice.json()["error"] == "exists"


def test_file_note_writes_the_note_and_its_index_line(api: Api) -> None:
    text = note("Filed", "Filed through the API.")
    r = api.client("writer").post("/file-note", json={"path": "tech/filed.md", "content": text})
    assert r.status_code == 201, r.text
    assert r.json()["status"] == "written"
    assert "[[filed]]" in (api.vault / "tech" / "_INDEX.md").read_text()
    bad = api.client("writer").post("/file-note", json={"path": "tech/filed.md"})
    assert bad.status_code == 400


def test_bad_json_bodies_are_400(api: Api) -> None:
    c = api.client("writer")
    headers = {"If-None-Match": "*", "Content-Type": "application/json"}
    assert c.put("/notes/tech/j.md", content=b"{nope", headers=headers).status_code == 400
    assert c.put("/notes/tech/j.md", content=b"", headers=headers).status_code == 400
    assert c.put("/notes/tech/j.md", json={"content": 5}, headers=headers).status_code == 400
    assert c.put("/notes/tech/j.md", json=[1], headers=headers).status_code == 400


def test_two_writers_with_the_same_if_match_exactly_one_wins(api: Api) -> None:
    c = api.client("writer")
    base = note("Race", "The starting line.")
    created = c.put("/notes/tech/race.md", json={"content": base}, headers={"If-None-Match": "*"})
    tag = created.headers["etag"]
    texts = [note("Race", f"Writer {i} was here.") for i in range(2)]
    results: list[httpx2.Response] = []
    gate = threading.Barrier(2)

    def write(text: str) -> None:
        with httpx2.Client(base_url=c.base_url, headers=dict(c.headers)) as own:
            gate.wait()
            results.append(
                own.put("/notes/tech/race.md", json={"content": text}, headers={"If-Match": tag})
            )

    threads = [threading.Thread(target=write, args=(t,)) for t in texts]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    statuses = sorted(r.status_code for r in results)
    assert statuses == [200, 412]
    winner = next(r for r in results if r.status_code == 200)
    loser = next(r for r in results if r.status_code == 412)
    on_disk = (api.vault / "tech" / "race.md").read_bytes()
    assert winner.headers["etag"] == f'"{_sha(on_disk)}"'
    assert loser.json()["current_revision"] == _sha(on_disk)
    history = c.get("/notes/tech/race.md/history").json()
    assert [r["sha256"] for r in history["revisions"]] == [_sha(base.encode())]
