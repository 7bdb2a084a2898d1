"""Defaults shared by surfaces, kept in a module that imports nothing heavy (the CLI reads
them without loading the MCP SDK)."""

import hashlib
import os
from pathlib import Path

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8765


def default_state_dir(vault: Path) -> Path:
    """One state folder per vault under the XDG state dir, outside the vault."""
    base = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    real = vault.resolve()
    digest = hashlib.sha256(str(real).encode()).hexdigest()[:12]
    return Path(base) / "hoard" / f"{real.name or 'vault'}-{digest}"
