"""Where a session hook keeps each caller's last briefing cursor: ``session-cursors.json`` in
the state folder (owner-only), replaced atomically. A missing or unreadable file is no
cursor: the next briefing tells what changed recently instead of since last time."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

FILE_NAME = "session-cursors.json"


def _load(path: Path) -> dict[str, str]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict):
        return {}
    return {str(k): str(v) for k, v in data.items() if isinstance(v, str)}


class CursorFile:
    def __init__(self, state_dir: Path) -> None:
        self.path = state_dir / FILE_NAME

    def get(self, caller: str) -> str | None:
        return _load(self.path).get(caller)

    def put(self, caller: str, cursor: str) -> None:
        data = _load(self.path)
        data[caller] = cursor
        fd, tmp = tempfile.mkstemp(prefix=".cursors-", dir=self.path.parent)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                json.dump(data, f, sort_keys=True)
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, self.path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
