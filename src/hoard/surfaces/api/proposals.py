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

PROPOSAL_ID = Param("proposal_id", str, "The 8-character proposal id.", required=True, where="path")
Confirmed = WriteResult | FileNoteResult | ArchiveResult | RestoreResult


def proposal_ops(hoard: Hoard) -> list[Op]:
    writes = hoard.writes
    return [
        Op(
            method="GET",
            path="/proposals",
            op_id="proposals",
            summary="Pending proposals with their diffs.",
            tag="proposals",
            handler=lambda c: writes.proposals(caller=c.caller),
            ok={200: ProposalsResult},
        ),
        Op(
            method="POST",
            path="/proposals/{proposal_id}/confirm",
            op_id="confirm",
            summary=(
                "Apply a proposal after re-running every gate against the note as it is now "
                "(confirm scope)."
            ),
            tag="proposals",
            handler=lambda c: writes.confirm(c.params["proposal_id"], caller=c.caller),
            ok={200: Confirmed},
            params=(PROPOSAL_ID,),
            errors=(400, 403, 404, 409, 410, 413, 422),
        ),
        Op(
            method="POST",
            path="/proposals/{proposal_id}/reject",
            op_id="reject",
            summary="Drop a pending proposal; nothing is written.",
            tag="proposals",
            handler=lambda c: writes.reject(c.params["proposal_id"], caller=c.caller),
            ok={200: RejectResult},
            params=(PROPOSAL_ID,),
            errors=(400, 403, 404, 410),
        ),
    ]
