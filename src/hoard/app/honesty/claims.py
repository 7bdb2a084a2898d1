"""Claims: explicit statements bound to the exact revision of the note they came from.

``claim_get`` re-checks each source on disk and never picks a winner: a changed or vanished
source makes it abstain (``abstained_stale_source``), as do two live claims that disagree
(``abstained_conflict``). Supersession is typed: a claim supersedes one earlier claim with the
same subject, property and scope, and a claim can be superseded only once.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from hoard.adapters.ledger.honesty_schema import MAX_VALUE, clean_text
from hoard.adapters.ledger.honesty_tables import ClaimRow, ClaimsTable, NewClaim
from hoard.adapters.ledger.store import new_id
from hoard.app.deps import Deps
from hoard.app.honesty.budget import Budget, HashCache
from hoard.app.honesty.results import (
    ClaimGetResult,
    ClaimInfo,
    ClaimListResult,
    ClaimRecordResult,
    ConflictingClaim,
)
from hoard.core.attachments import note_or_attachment_path
from hoard.core.errors import InvalidArgument, NotFound
from hoard.core.gates import require_scope
from hoard.core.policy import Caller
from hoard.core.reach import counts_as_hidden
from hoard.core.times import iso_instant, parse_instant

LIST_LIMIT = 1000

Window = tuple[float | None, float | None]
"""A claim's validity window in epoch seconds: ``[valid_from, valid_until)``."""


def _window(row: tuple[object, ...]) -> Window:
    vf, vu = row[7], row[8]
    return (
        float(vf) if isinstance(vf, float | int) else None,
        float(vu) if isinstance(vu, float | int) else None,
    )


def _info(row: tuple[object, ...]) -> ClaimInfo:
    (cid, subject, prop, scope, value, src, rev, vf, vu, sup, by, caller, at) = row
    return ClaimInfo(
        claim_id=str(cid),
        subject=str(subject),
        property=str(prop),
        scope=str(scope),
        value=str(value),
        source_path=str(src),
        source_revision=str(rev),
        valid_from=iso_instant(vf if isinstance(vf, float | int) else None),
        valid_until=iso_instant(vu if isinstance(vu, float | int) else None),
        supersedes=None if sup is None else str(sup),
        superseded_by=None if by is None else str(by),
        live=by is None,
        caller=str(caller),
        recorded_at=iso_instant(at if isinstance(at, float | int) else None),
    )


class ClaimBook:
    def __init__(self, deps: Deps, cache: HashCache) -> None:
        self.deps = deps
        self.cache = cache
        self.table = ClaimsTable(deps.ledger)

    def record(
        self,
        subject: str,
        property: str,
        value: str,
        source_path: str,
        scope: str = "global",
        valid_from: str | None = None,
        valid_until: str | None = None,
        supersedes: str | None = None,
        *,
        caller: Caller,
    ) -> ClaimRecordResult:
        require_scope(caller, "write")
        subject = clean_text(subject, "subject")
        prop = clean_text(property, "property")
        scope = clean_text(scope, "scope")
        if not isinstance(value, str):
            raise InvalidArgument("value must be a string", field="value")
        if len(value) > MAX_VALUE:
            raise InvalidArgument(f"value is longer than {MAX_VALUE} characters", field="value")
        start, end = _stated_window(valid_from, valid_until)
        rel = note_or_attachment_path(source_path)
        self.deps.access.check_visible(rel, caller=caller)
        revision = self.cache.revision(rel)
        claim_id = new_id(10)
        now = time.time()
        old_id = _claim_id(supersedes)
        claim = NewClaim(
            claim_id=claim_id,
            subject=subject,
            property=prop,
            scope=scope,
            value=value,
            source_path=rel,
            source_revision=revision,
            valid_from=start,
            valid_until=end,
            supersedes=supersedes,
            caller=caller.name,
            recorded_at=now,
        )
        self.table.insert(
            claim,
            superseded_id=old_id,
            vet_superseded=lambda row: self._check_supersedes(
                row, str(old_id), subject, prop, scope, caller
            ),
        )
        return ClaimRecordResult(
            claim_id=claim_id,
            source_revision=revision,
            source_path=rel,
            supersedes=supersedes,
            recorded_at=iso_instant(now),
        )

    def _check_supersedes(
        self,
        row: ClaimRow | None,
        old_id: str,
        subject: str,
        prop: str,
        scope: str,
        caller: Caller,
    ) -> None:
        seen = self.deps.access.visibility(caller=caller)
        if row is None or (seen is not None and not seen(str(row[5]))):
            raise NotFound(f"no claim {old_id!r} to supersede", claim_id=old_id)
        old = _info(row)
        if (old.subject, old.property, old.scope) != (subject, prop, scope):
            raise InvalidArgument(
                "a claim can only supersede a claim with the same subject, property and scope "
                f"(claim {old.claim_id} is {old.subject!r} / {old.property!r} / {old.scope!r})",
                field="supersedes",
                superseded=old.claim_id,
            )
        if old.superseded_by is not None:
            raise InvalidArgument(
                f"claim {old.claim_id} is already superseded by {old.superseded_by}; "
                "supersede that one instead",
                field="supersedes",
                superseded_by=old.superseded_by,
            )

    @staticmethod
    def _rows(rows: list[ClaimRow]) -> list[tuple[ClaimInfo, Window]]:
        return [(_info(r), _window(r)) for r in rows]

    def _visible(
        self, claims: list[tuple[ClaimInfo, Window]], caller: Caller
    ) -> tuple[list[tuple[ClaimInfo, Window]], int]:
        seen: Callable[[str], bool] | None = self.deps.access.visibility(caller=caller)
        if seen is None:
            return claims, 0
        shown = [c for c in claims if seen(c[0].source_path)]
        hidden = [c for c in claims if not seen(c[0].source_path)]
        return shown, sum(counts_as_hidden(seen, c[0].source_path) for c in hidden)

    def list_claims(
        self, subject: str | None = None, source_path: str | None = None, *, caller: Caller
    ) -> ClaimListResult:
        require_scope(caller, "read")
        wanted = None if subject is None else clean_text(subject, "subject")
        rel: str | None = None
        if source_path is not None:
            rel = note_or_attachment_path(source_path)
            self.deps.access.check_visible(rel, caller=caller)
        rows, hidden = self._visible(self._rows(self.table.matching(wanted, rel)), caller)
        claims = [c for c, _ in rows]
        return ClaimListResult(claims[:LIST_LIMIT], len(claims) > LIST_LIMIT, hidden)

    def get(
        self,
        subject: str,
        property: str,
        scope: str = "global",
        at: str | None = None,
        budget: Budget | None = None,
        *,
        caller: Caller,
    ) -> ClaimGetResult:
        require_scope(caller, "read")
        subject = clean_text(subject, "subject")
        prop = clean_text(property, "property")
        scope = clean_text(scope, "scope")
        moment = time.time() if at is None else parse_instant(at, "at")
        budget = budget or Budget()
        rows, hidden = self._visible(
            self._rows(self.table.for_key(subject, prop, scope)),
            caller,
        )
        live = [c for c, _ in rows if c.live]
        valid = [c for c, w in rows if c.live and _valid_at(w, moment)]
        base = ClaimGetResult(
            status="no_claim",
            value=None,
            claim_id=None,
            source_path=None,
            recorded_revision=None,
            current_revision=None,
            conflicting=[],
            subject=subject,
            property=prop,
            scope=scope,
            at=iso_instant(moment),
            message="no claim is recorded for this subject, property and scope",
            hidden_claims=hidden,
            budget={},
        )
        if rows and not valid:
            base.status = "expired"
            base.message = (
                f"{len(live)} live claim(s), none valid at {base.at} "
                "(outside every validity window)"
            )
        elif valid:
            self._judge(base, valid, budget)
        base.budget = budget.as_dict()
        return base

    def _judge(self, out: ClaimGetResult, valid: list[ClaimInfo], budget: Budget) -> None:
        """Fill ``out`` for the live claims valid at the asked moment (newest first)."""
        views = [self._view(c, budget) for c in reversed(valid)]
        if len({c.value for c in valid}) > 1:
            out.status = "abstained_conflict"
            out.message = (
                f"{len(valid)} live claims valid at this moment disagree; hoard does not pick "
                "a winner: supersede the wrong one(s)"
            )
            out.conflicting = views
            return
        stale = [v for v in views if v.source_changed]
        chosen = stale[0] if stale else views[0]
        out.claim_id = chosen.claim_id
        out.source_path = chosen.source_path
        out.recorded_revision = chosen.recorded_revision
        out.current_revision = chosen.current_revision
        if stale:
            gone = chosen.current_revision is None
            out.status = "abstained_stale_source"
            out.message = (
                f"the source {chosen.source_path!r} "
                + ("is gone" if gone else "changed since the claim was recorded")
                + "; re-read it and record the claim again (supersedes=...)"
            )
        elif any(v.source_changed is None for v in views):
            out.status = "incomplete"
            out.message = "the check budget ran out before every source could be re-checked"
        else:
            out.status = "current"
            out.value = chosen.value
            agree = len(views) - 1
            out.message = "the claim's source is unchanged since it was recorded" + (
                f" ({agree} more live claim(s) from other sources agree)" if agree else ""
            )

    def _view(self, claim: ClaimInfo, budget: Budget) -> ConflictingClaim:
        state = self.cache.check(claim.source_path, budget)
        return ConflictingClaim(
            claim_id=claim.claim_id,
            value=claim.value,
            source_path=claim.source_path,
            recorded_revision=claim.source_revision,
            current_revision=state.revision,
            source_changed=None if not state.checked else state.revision != claim.source_revision,
            valid_from=claim.valid_from,
            valid_until=claim.valid_until,
        )


def _claim_id(supersedes: object) -> str | None:
    """The id of the claim ``supersedes`` names (``None``: it supersedes none)."""
    if supersedes is None:
        return None
    if not isinstance(supersedes, str) or not supersedes.strip():
        raise InvalidArgument("supersedes must be a claim id", field="supersedes")
    return supersedes.strip()


def _valid_at(window: Window, moment: float) -> bool:
    start, end = window
    return (start is None or start <= moment) and (end is None or moment < end)


def _stated_window(valid_from: str | None, valid_until: str | None) -> Window:
    """The validity window a claim states, as instants; an end must come after its start."""
    start = None if valid_from is None else parse_instant(valid_from, "valid_from")
    end = (
        None if valid_until is None else parse_instant(valid_until, "valid_until", end_of_day=True)
    )
    if start is not None and end is not None and end <= start:
        raise InvalidArgument("valid_until must be later than valid_from", field="valid_until")
    return start, end
