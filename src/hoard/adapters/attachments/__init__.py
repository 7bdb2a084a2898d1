"""Attachments' text: extraction in a pool of limited child processes, the hash-keyed text
cache and its full-text index (``attachments.db`` in the state folder), and the walk that
keeps them in step with the vault."""
