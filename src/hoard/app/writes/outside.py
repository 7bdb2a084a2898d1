"""Saves from outside hoard, as the index notices them (the watcher, a stat walk, a write's
own refresh): each one that changed a note hoard has written is recorded in the ledger with
the revision it replaced, and its bytes are kept. When it replaced a write an agent made
(and hoard acknowledged) within ``[writes] clobber_window_s`` without the lines that write
added (see :mod:`hoard.core.clobber`), the owner's inbox shows both versions."""

from __future__ import annotations

import logging
import time

from hoard.adapters.fs.vault import Vault
from hoard.adapters.ledger import kept
from hoard.adapters.ledger.changes import preserved_bytes
from hoard.adapters.ledger.records import Event, Records
from hoard.adapters.ledger.store import Ledger
from hoard.adapters.store.locks import PathLocks
from hoard.core.clobber import keeps_write
from hoard.core.config import Config
from hoard.core.errors import HoardError, NotFound
from hoard.core.note import revision_of

log = logging.getLogger("hoard.writes")


def believed(e: Event) -> str | None:
    """The revision an event says is at its path: what a change left, or, for one that
    failed or was not written, what it found."""
    return e.before if e.decision in ("failed", "not_written") else e.after


class OutsideSaves:
    """Told the paths the index found changed; records the ones changed outside hoard."""

    def __init__(self, ledger: Ledger, vault: Vault, config: Config, locks: PathLocks) -> None:
        self.ledger = ledger
        self.locks = locks
        self.vault = vault
        self.config = config
        self.records = Records(ledger)

    def notice(self, paths: list[str]) -> None:
        """Never raises: the index is up to date whatever the ledger says."""
        try:
            known = kept.last_known(self.ledger, paths)
            # a change under way (its intent has no outcome yet) is hoard's, not outside
            settled = {p: e for p, e in known.items() if e.decision != "intent"}
            # only then what a journaled transaction is moving: usually the file is what
            # the ledger says (another replica's write), and that needs no more reads
            changed = {p: (e, raw) for p, e in settled.items() if (raw := self._differs(p, e))}
            if not changed:
                return
            moving = self._moving(list(changed))
            for rel in changed:
                if rel not in moving:
                    self._confirm(rel)
        except Exception as exc:  # recording an outside save must never break the index
            log.warning("could not record a save from outside hoard: %s", exc)

    def _moving(self, paths: list[str]) -> set[str]:
        """Paths an unfinished transaction (file_note, move) is changing right now."""
        wanted = set(paths)
        out: set[str] = set()
        for txn_id in self.records.unfinished_transactions(include_stuck=True):
            txn, _ = self.records.transaction(txn_id)
            out |= {f["path"] for f in txn.intent.get("files", []) if f.get("path") in wanted}
        return out

    def _differs(self, rel: str, event: Event) -> tuple[bytes | None] | None:
        """The note's bytes (in a tuple; ``None`` inside: gone) when they are not what
        ``event`` says is there; ``None`` when they are, or cannot be read as a note."""
        try:
            raw = self._read(rel)
        except HoardError as exc:  # too large, a hard link: there, but not a note hoard writes
            log.info("not recording the outside save of %s: %s", rel, exc.message)
            return None
        now = None if raw is None else revision_of(raw)
        return None if now == believed(event) else (raw,)

    def _confirm(self, rel: str) -> None:
        """Under the note's lock, read again what the ledger says and what the file holds,
        and record the save if they still differ. Without the lock, a write of another
        replica (or thread) could record its intent and replace the file between the two
        first reads, and its own bytes would be recorded as a save from outside, moving the
        note's head back behind that write's outcome."""
        with self.locks.lock(rel):
            event = kept.last_known(self.ledger, [rel]).get(rel)
            if event is None or event.decision == "intent":
                return
            found = self._differs(rel, event)
            if found is not None:
                self._record(rel, event, found[0])

    def _record(self, rel: str, event: Event, raw: bytes | None) -> None:
        was = believed(event)
        clobbered = None
        if raw is not None and was is not None:
            clobbered = self._clobbered(rel, was, raw)
        recorded = kept.record_outside(self.ledger, rel, was, raw, clobbered)
        if recorded is None:
            log.debug("the outside save of %s was recorded already (another replica)", rel)
        elif clobbered is not None:
            log.warning("an outside save replaced %s's write of %s", clobbered.caller, rel)

    def _read(self, rel: str) -> bytes | None:
        """The note's bytes, ``None`` when it is gone (any other refusal is raised)."""
        try:
            return self.vault.read_full(rel, self.config.limits.note_max_bytes * 2)[1]
        except NotFound:
            return None

    def _clobbered(self, rel: str, was: str, saved: bytes) -> Event | None:
        """The agent's write of revision ``was`` the save replaced without its lines, if
        hoard acknowledged it within the window."""
        window = self.config.writes.clobber_window_s
        write = kept.last_written(self.ledger, rel, was)
        if window <= 0 or write is None or write.at < time.time() - window:
            return None
        written = kept.kept_bytes(self.ledger, was)
        if written is None:
            return None
        before = None
        if write.before is not None:
            before = kept.kept_bytes(self.ledger, write.before)
            if before is None:
                before = preserved_bytes(self.ledger, rel, write.before)
        return None if keeps_write(before, written, saved) else write
