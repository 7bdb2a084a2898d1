"""``hoard serve --http`` on a port another program holds: one clear line, exit 2."""

from __future__ import annotations

import socket
import subprocess
from pathlib import Path

from tests.helpers import EXAMPLE_VAULT, hoard_env


def test_a_taken_port_is_one_clear_line_and_exit_2(hoard_bin: Path, tmp_path: Path) -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen(1)
        port = holder.getsockname()[1]
        done = subprocess.run(
            [
                str(hoard_bin),
                "serve",
                "--vault",
                str(EXAMPLE_VAULT),
                "--state-dir",
                str(tmp_path / "state"),
                "--tokens",
                str(tmp_path / "tokens.json"),
                "--http",
                f"127.0.0.1:{port}",
            ],
            capture_output=True,
            text=True,
            timeout=60,
            env=hoard_env(tmp_path),
        )
    assert done.returncode == 2
    assert done.stdout == ""
    lines = done.stderr.splitlines()
    assert len(lines) == 1, done.stderr
    line = lines[0]
    assert str(port) in line
    assert "taken" in line
    assert "--http 127.0.0.1:PORT" in line
    assert "Errno" not in line
    # Nothing was announced and nothing was indexed: the bind came first.
    assert "serving" not in done.stderr
    assert not (tmp_path / "state").exists()
