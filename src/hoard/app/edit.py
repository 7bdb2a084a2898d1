"""``vault_edit``: a list of small edits applied to one note, all or nothing, through the one
write path.

The edits are applied by the pure engine (:mod:`hoard.core.edits`) to the note as it is at
``expected_revision``; the result then goes through :meth:`WritePath.write` like any
``vault_write``: gates (contract on the result, private, Related block), the per-path lock, the
revision precondition re-checked under the lock, prior bytes preserved in the ledger, atomic
replace, index update, ledger event, propose mode with a diff, ``dry_run``. So the result is
``vault_write``'s result, and a note changed between the read and the lock is a ``conflict``.
"""

from __future__ import annotations

from hoard.app.writes.write_path import WritePath
from hoard.core import gates
from hoard.core.edits import apply_edits, parse_edits
from hoard.core.errors import InvalidArgument, NotFound
from hoard.core.models import WriteResult
from hoard.core.policy import Caller
from hoard.core.tasks import toggle_task

TOOL = "vault_edit"


class Edits:
    def __init__(self, writes: WritePath) -> None:
        self.writes = writes
        self.core = writes.core

    def edit(
        self,
        path: str,
        edits: object,
        expected_revision: str,
        dry_run: bool = False,
        *,
        caller: Caller,
    ) -> WriteResult:
        with self.core.attempt(TOOL, path, caller=caller):
            rel, text = self._edited(path, edits, expected_revision, dry_run, caller)
        return self.writes.write(rel, text, expected_revision, dry_run, tool=TOOL, caller=caller)

    def _edited(
        self, path: str, edits: object, expected_revision: str, dry_run: bool, caller: Caller
    ) -> tuple[str, str]:
        """The note's path and its text after the edits (refusals raise, changing nothing)."""
        rel = self.core.target(path, caller=caller)
        ops = parse_edits(edits)
        if not isinstance(expected_revision, str) or not expected_revision:
            raise InvalidArgument("expected_revision is required: the revision you edit")
        current = self.core.current(rel)
        if current.raw is None:
            raise NotFound(f"no note at {rel!r}", path=rel)
        if not dry_run:
            gates.check_revision(rel, current, expected_revision)
        try:
            text = current.raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise InvalidArgument(
                f"{rel!r} is not valid UTF-8 (byte {exc.start}); edit it whole instead"
            ) from exc
        return rel, apply_edits(text, ops)

    def tick(
        self, path: str, line: int, checked: bool, expected_revision: str, *, caller: Caller
    ) -> WriteResult:
        """Tick (or untick) the task on ``line`` (0-based) of the note at
        ``expected_revision``: a ``vault_edit`` that changes exactly that one character."""
        with self.core.attempt(TOOL, path, caller=caller):
            rel = self.core.target(path, caller=caller)
            current = self.core.current(rel)
            if current.raw is None:
                raise NotFound(f"no note at {rel!r}", path=rel)
            gates.check_revision(rel, current, expected_revision)
            try:
                text = toggle_task(current.raw.decode("utf-8"), line, checked)
            except UnicodeDecodeError as exc:
                raise InvalidArgument(f"{rel!r} is not valid UTF-8 (byte {exc.start})") from exc
        return self.writes.write(rel, text, expected_revision, False, tool=TOOL, caller=caller)
