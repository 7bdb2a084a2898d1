"""Where hoard keeps its state by default: one folder per vault under the XDG state dir."""

import hashlib
import os
from pathlib import Path


def default_state_dir(vault: Path) -> Path:
    """One state folder per vault under the XDG state dir, outside the vault."""
    base = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    real = vault.resolve()
    digest = hashlib.sha256(str(real).encode()).hexdigest()[:12]
    return Path(base) / "hoard" / f"{real.name or 'vault'}-{digest}"


def make_private_dir(path: Path) -> None:
    """Create the folder ``path`` and its parents (owner-only when it is new)."""
    path.mkdir(parents=True, exist_ok=True, mode=0o700)
