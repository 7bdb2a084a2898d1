"""The two-file transaction journal (``vault_file_note``, moves): the intent and the new bytes
made durable before any file moves, then one outcome row per attempt. Rows are inserted,
never updated; on a shared store each replica recovers only its own (and older, unnamed)
transactions."""

from __future__ import annotations

import hashlib
import json
import time
from dataclasses import dataclass
from typing import Any

from hoard.adapters.ledger.store import Ledger, new_id
from hoard.core.errors import IoError, NotFound


@dataclass(frozen=True, slots=True)
class Transaction:
    txn_id: str
    kind: str
    intent: dict[str, Any]
    caller: str
    at: float
    state: str
    detail: str | None


def intent_checksum(intent: dict[str, Any]) -> str:
    return hashlib.sha256(json.dumps(intent, sort_keys=True).encode()).hexdigest()


class Journal:
    def __init__(self, ledger: Ledger) -> None:
        self.ledger = ledger

    def _mine(self, table: str) -> tuple[str, tuple[str, ...]]:
        """The condition (and its argument) that keeps the rows of ``table`` this replica
        settles: its own and those without a replica; none for one process."""
        if self.ledger.replica is None:
            return "", ()
        return (
            f" AND ({table}.replica IS NULL OR {table}.replica = ?)",
            (self.ledger.replica,),
        )

    def begin_transaction(
        self, kind: str, intent: dict[str, Any], blobs: dict[str, bytes], caller: str
    ) -> str:
        """Make the intent (and the new bytes) durable before any file moves."""
        txn_id = new_id(10)
        with self.ledger.transaction() as conn:
            conn.execute(
                "INSERT INTO transactions(txn_id, kind, intent, checksum, caller, at, replica) "
                "VALUES(?,?,?,?,?,?,?)",
                (
                    txn_id,
                    kind,
                    json.dumps(intent, sort_keys=True),
                    intent_checksum(intent),
                    caller,
                    time.time(),
                    self.ledger.replica,
                ),
            )
            conn.executemany(
                "INSERT INTO transaction_blobs(txn_id, path, content) VALUES(?,?,?)",
                [(txn_id, p, b) for p, b in blobs.items()],
            )
        return txn_id

    def finish_transaction(self, txn_id: str, state: str, detail: str | None = None) -> None:
        with self.ledger.transaction() as conn:
            conn.execute(
                "INSERT INTO transaction_outcomes(txn_id, state, detail, at) VALUES(?,?,?,?)",
                (txn_id, state, detail, time.time()),
            )

    def transaction(self, txn_id: str) -> tuple[Transaction, dict[str, bytes]]:
        with self.ledger.read() as conn:
            row = conn.execute(
                "SELECT t.txn_id, t.kind, t.intent, t.checksum, t.caller, t.at, "
                "(SELECT state FROM transaction_outcomes o WHERE o.txn_id = t.txn_id "
                " ORDER BY outcome_id DESC LIMIT 1), "
                "(SELECT detail FROM transaction_outcomes o WHERE o.txn_id = t.txn_id "
                " ORDER BY outcome_id DESC LIMIT 1) "
                "FROM transactions t WHERE t.txn_id = ?",
                (txn_id,),
            ).fetchone()
            if row is None:
                raise NotFound(f"no transaction {txn_id!r}", transaction_id=txn_id)
            blobs = {
                p: bytes(c)
                for p, c in conn.execute(
                    "SELECT path, content FROM transaction_blobs WHERE txn_id = ?", (txn_id,)
                )
            }
        intent = json.loads(row[2])
        if intent_checksum(intent) != row[3]:
            raise IoError(
                f"transaction {txn_id!r}: intent checksum mismatch; not replayed",
                transaction_id=txn_id,
            )
        return Transaction(
            txn_id=row[0],
            kind=row[1],
            intent=intent,
            caller=row[4],
            at=row[5],
            state=row[6] or "intent",
            detail=row[7],
        ), blobs

    def unfinished_transactions(self, include_stuck: bool = False, mine: bool = False) -> list[str]:
        """Transactions to retry: no outcome yet, or ``failed``. A ``stuck`` one waits for a
        person (``hoard recover TXN`` after fixing the file). ``mine``: only those this
        replica recovers (see :meth:`open_intents`)."""
        only, args = self._mine("t") if mine else ("", ())
        with self.ledger.read() as conn:
            rows = conn.execute(
                "SELECT t.txn_id FROM transactions t WHERE COALESCE((SELECT state FROM "
                "transaction_outcomes o WHERE o.txn_id = t.txn_id ORDER BY outcome_id DESC "
                f"LIMIT 1), 'intent') NOT IN ('done', 'rolled_back', ?){only} ORDER BY t.at",
                ("-" if include_stuck else "stuck", *args),
            ).fetchall()
        return [r[0] for r in rows]
