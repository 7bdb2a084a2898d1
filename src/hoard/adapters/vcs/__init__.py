"""Version control of the vault: git commits of hoard's own changes."""
