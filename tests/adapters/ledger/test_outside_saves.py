"""A save from outside is recorded once however many replicas of a shared store notice it at
once: the record is made only while the note's head is still the revision the replica
believed, checked in the transaction that moves the head. One process records what it is
told, as before."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from hoard.adapters.ledger import kept
from hoard.adapters.ledger.records import Records
from hoard.adapters.ledger.store import MIGRATIONS, Ledger
from hoard.adapters.store.shared import SharedStore
from hoard.core.note import revision_of

PATH = "team/log.md"
WRITTEN, SAVED, SAVED_AGAIN = b"# Log\n\nOne.\n", b"# Log\n\nTwo.\n", b"# Log\n\nThree.\n"


@pytest.fixture
def open_ledger(tmp_path: Path) -> Iterator[Callable[[str, str], Ledger]]:
    """``open_ledger(url, name)``: the ledger of replica ``name`` on the store at ``url``
    (``""``: one process's ``ledger.db`` in a state folder of its own)."""
    stores: list[SharedStore] = []

    def open_(url: str, name: str) -> Ledger:
        state = tmp_path / f"state-{name}"
        state.mkdir()
        store = SharedStore(state, url, name, pool_size=2)
        stores.append(store)
        ledger = Ledger(store.database("ledger", MIGRATIONS, "ledger.db"))
        ledger.replica = None if store.server is None else name
        return ledger

    yield open_
    for store in stores:
        store.close()


def outside_events(ledger: Ledger) -> list[tuple[str | None, str | None]]:
    return [
        (e.before, e.after)
        for e in Records(ledger).events_of(PATH)
        if e.decision == kept.EDITED_OUTSIDE
    ]


def test_two_replicas_noticing_the_same_outside_save_at_once_record_it_once(
    pg_store: str, open_ledger
) -> None:
    a, b = open_ledger(pg_store, "a"), open_ledger(pg_store, "b")
    write = kept.record_written(a, "vault_write", "agent", PATH, None, WRITTEN, None)
    # both replicas read what hoard last knew there before either records the save
    believed = {h: kept.last_known(h, [PATH])[PATH].after for h in (a, b)}
    assert believed == {a: revision_of(WRITTEN), b: revision_of(WRITTEN)}
    clobbered = Records(a).events_of(PATH)[-1]
    assert clobbered.event_id == write

    first = kept.record_outside(a, PATH, believed[a], SAVED, clobbered)
    second = kept.record_outside(b, PATH, believed[b], SAVED, clobbered)

    assert first is not None and second is None
    assert outside_events(a) == [(revision_of(WRITTEN), revision_of(SAVED))]
    assert [c.event_id for c in kept.open_clobbers(b)] == [first]


def test_a_replica_whose_record_was_a_no_op_records_the_next_save_from_the_new_head(
    pg_store: str, open_ledger
) -> None:
    a, b = open_ledger(pg_store, "a"), open_ledger(pg_store, "b")
    kept.record_written(a, "vault_write", "agent", PATH, None, WRITTEN, None)
    kept.record_outside(a, PATH, revision_of(WRITTEN), SAVED, None)
    assert kept.record_outside(b, PATH, revision_of(WRITTEN), SAVED, None) is None

    believed = kept.last_known(b, [PATH])[PATH].after
    assert kept.record_outside(b, PATH, believed, SAVED_AGAIN, None) is not None

    assert outside_events(a) == [
        (revision_of(WRITTEN), revision_of(SAVED)),
        (revision_of(SAVED), revision_of(SAVED_AGAIN)),
    ]


def test_one_process_records_every_outside_save_it_is_told_of_as_before(open_ledger) -> None:
    ledger = open_ledger("", "one")
    kept.record_written(ledger, "vault_write", "agent", PATH, None, WRITTEN, None)
    kept.record_outside(ledger, PATH, revision_of(WRITTEN), SAVED, None)

    again = kept.record_outside(ledger, PATH, revision_of(WRITTEN), SAVED, None)

    assert again is not None
    assert outside_events(ledger) == [(revision_of(WRITTEN), revision_of(SAVED))] * 2
