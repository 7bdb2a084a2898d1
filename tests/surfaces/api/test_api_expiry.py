"""An expired proposal over the JSON API: confirming it is ``410 Gone`` with the
``proposal_expired`` error object, and nothing is written (a server whose proposals live
10 s, the shortest the config allows)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from tests.surfaces.api.conftest import note, serving, wait_until


def test_confirming_an_expired_proposal_is_410_and_writes_nothing(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    with serving(
        tmp_path_factory.mktemp("expiry"), toml="\n[proposals]\nttl_seconds = 10\n"
    ) as api:
        r = api.client("proposer").put(
            "/notes/tech/late.md",
            json={"content": note("Late", "Proposed, never confirmed in time.")},
            headers={"If-None-Match": "*"},
        )
        assert r.status_code == 202, r.text
        proposal = r.json()["proposal_id"]
        # expires_at is shown to the second: the proposal is past it within one more second
        shown = datetime.fromisoformat(r.json()["expires_at"].replace("Z", "+00:00"))
        expires = shown + timedelta(seconds=1)
        listed = api.client("owner").get("/proposals").json()["proposals"]
        assert [p["proposal_id"] for p in listed] == [proposal]
        wait_until(lambda: datetime.now(UTC) > expires, timeout=30)
        gone = api.client("owner").post(f"/proposals/{proposal}/confirm")
        assert gone.status_code == 410, gone.text
        assert gone.json()["error"] == "proposal_expired"
        assert gone.json()["proposal_id"] == proposal
        assert not (api.vault / "tech" / "late.md").exists()
