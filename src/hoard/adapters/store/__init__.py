"""Where shared state lives: one SQL database behind one small interface, on SQLite (a file
in the state folder, the default) or on PostgreSQL (``[store] url``, shared by replicas)."""
