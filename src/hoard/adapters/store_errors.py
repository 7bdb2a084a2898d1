"""The database errors a use-case may catch from the index or the ledger, named once here
so that no use-case imports the database driver."""

from __future__ import annotations

import sqlite3

StoreError = sqlite3.Error
"""Any error the database raised (locked, corrupt, missing, misused)."""

DatabaseError = sqlite3.DatabaseError
"""A database that cannot be used as it is: corrupt, not a database, or an index that is
not trusted (:class:`hoard.adapters.index.store.IndexUntrusted` is one)."""
