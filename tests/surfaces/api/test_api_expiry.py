"""An expired proposal over the JSON API: confirming it is ``410 Gone`` with the
``proposal_expired`` error object, and nothing is written (a server whose proposals live
10 s, the shortest the config allows, past which the ledger's clock is moved rather than
waited out)."""

from __future__ import annotations

import time
from datetime import datetime

import pytest

from tests.surfaces.api.conftest import note, serving


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
        shown = datetime.fromisoformat(r.json()["expires_at"].replace("Z", "+00:00"))
        assert 9 <= shown.timestamp() - time.time() <= 11  # the configured 10 s, to the second
        listed = api.client("owner").get("/proposals").json()["proposals"]
        assert [p["proposal_id"] for p in listed] == [proposal]
        # expires_at is shown to the second: one more second is past it for certain
        api.hoard.deps.ledger.clock = lambda: shown.timestamp() + 1
        gone = api.client("owner").post(f"/proposals/{proposal}/confirm")
        assert gone.status_code == 410, gone.text
        assert gone.json()["error"] == "proposal_expired"
        assert gone.json()["proposal_id"] == proposal
        assert not (api.vault / "tech" / "late.md").exists()
