"""Routes of proposals: the writes of propose-mode callers, waiting for a person."""

from __future__ import annotations

from hoard.app.hoard import Hoard
from hoard.core.models import (
    ArchiveResult,
    FileNoteResult,
    ProposalsResult,
    RejectResult,
    RestoreResult,
    WriteResult,
)
from hoard.surfaces.api.framework import Op, Param

PROPOSAL_ID = Param("proposal_id", str, "The 8-character proposal id.", required=True,
                    where="path")  # fmt: skip
Confirmed = WriteResult | FileNoteResult | ArchiveResult | RestoreResult


def proposal_ops(hoard: Hoard) -> list[Op]:
    writes = hoard.writes
    return [
        Op("GET", "/proposals", "proposals", "Pending proposals with their diffs.",
           "proposals", lambda c: writes.proposals(caller=c.caller), {200: ProposalsResult}),
        Op("POST", "/proposals/{proposal_id}/confirm", "confirm",
           "Apply a proposal after re-running every gate against the note as it is now "
           "(confirm scope).", "proposals",
           lambda c: writes.confirm(c.params["proposal_id"], caller=c.caller), {200: Confirmed},
           (PROPOSAL_ID,), errors=(400, 403, 404, 409, 410, 413, 422)),
        Op("POST", "/proposals/{proposal_id}/reject", "reject",
           "Drop a pending proposal; nothing is written.", "proposals",
           lambda c: writes.reject(c.params["proposal_id"], caller=c.caller), {200: RejectResult},
           (PROPOSAL_ID,), errors=(400, 403, 404, 410)),
    ]  # fmt: skip
