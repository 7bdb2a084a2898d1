"""Startup recovery of stage files that may hold someone else's bytes.

A write swaps its stage file with the note (``RENAME_EXCHANGE``) and then checks what came
out. A crash between the two leaves, at the stage name, either the bytes the write checked
(preserved in the ledger by its intent), hoard's own new bytes (never acknowledged), or an
outside editor's save that landed in the window: that one must not be swept away. It is
preserved in the ledger and, when the note still holds the interrupted write's bytes, swapped
back to the path, as the write itself would have done; the intent's outcome says so.
"""

from __future__ import annotations

import logging

from hoard.adapters.fs import atomic
from hoard.adapters.ledger.records import Event
from hoard.app.writes.core import WriteCore
from hoard.core.errors import HoardError
from hoard.core.note import revision_of

log = logging.getLogger("hoard.writes")

RECOVERED = "outside save found in a stage file after a crash"


def settle_stage_files(core: WriteCore) -> list[str]:
    """Keep the bytes of every stage file of this replica that are not hoard's own (another
    replica's stage files may belong to writes under way); returns the notes put back."""
    intents = [e for e in core.records.open_intents() if e.path is not None]
    cap = core.config.limits.note_max_bytes * 2
    restored: list[str] = []
    for stage_rel in atomic.stage_files(core.vault):
        folder = stage_rel.rpartition("/")[0]
        here = [e for e in intents if (e.path or "").rpartition("/")[0] == folder]
        try:
            raw = atomic.read_stage(core.vault, stage_rel, cap)
        except (OSError, HoardError) as exc:
            log.error("cannot read the stage file %s: %s", stage_rel, exc)
            continue
        rev = revision_of(raw)
        if any(rev in (e.before, e.after) for e in here):
            continue  # hoard's own bytes: the old ones are preserved, the new ones unanswered
        with core.locks.locks([e.path for e in here if e.path is not None]):
            put_back = _settle(core, stage_rel, raw, here)
        if put_back is not None:
            restored.append(put_back)
    return restored


def _settle(core: WriteCore, stage_rel: str, raw: bytes, here: list[Event]) -> str | None:
    """Keep a stage file's outside bytes, and put them back at the note whose interrupted
    write they were swapped out by (its path), under the folder's intents' locks."""
    owner = next((e for e in here if _holds_after(core, e)), None)
    path = stage_rel if owner is None or owner.path is None else owner.path
    core.records.preserve(path, raw, RECOVERED, "hoard")
    log.warning("kept the bytes of the stage file %s in the ledger (%s)", stage_rel, path)
    if owner is None or not atomic.exchange_back(core.vault, stage_rel, path):
        return None
    core.records.event(
        owner.tool,
        owner.caller,
        path,
        owner.before,
        revision_of(raw),
        "not_written",
        "an outside save arrived while the write was interrupted; it is back at the path",
        intent_id=owner.event_id,
    )
    return path


def _holds_after(core: WriteCore, intent: Event) -> bool:
    return intent.path is not None and core.current(intent.path).revision == intent.after
