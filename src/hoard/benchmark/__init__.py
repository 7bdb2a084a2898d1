"""``hoard bench``: how fast hoard is on a vault, through the full path a client uses.

The vault is copied (or generated) into a temporary folder; the index is built there and a
``hoard serve --http`` process serves the copy on loopback, and the official MCP client
times every tool over it. Beside those figures: in-process rows (full rebuild, incremental
sync, a raw FTS5 query), the floors (``vault_policy`` through the client, raw JSON-RPC
POSTs, ``GET /healthz``) and naive baselines on the same corpus (a substring scan, an
any-word count, ``grep``). One table, one JSON receipt, ``--compare`` against an older one.

Modules: :mod:`~hoard.benchmark.run` (the whole run), :mod:`~hoard.benchmark.corpus` and
:mod:`~hoard.benchmark.queries` (what is measured on), :mod:`~hoard.benchmark.inprocess`,
:mod:`~hoard.benchmark.baselines`, :mod:`~hoard.benchmark.server`,
:mod:`~hoard.benchmark.mcp_runner` and :mod:`~hoard.benchmark.mcp_phases` (the HTTP part;
they import the MCP client), :mod:`~hoard.benchmark.rows` and
:mod:`~hoard.benchmark.report` (figures, receipts, the table).
"""
