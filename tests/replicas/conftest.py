"""Two hoard replicas as a team runs them: two ``hoard serve --http`` processes (the real
console script) on one shared vault folder, each with its own state folder (its local index),
and one PostgreSQL store (a new database of the session's throwaway cluster). Tests speak to
them over HTTP with a bearer token made with ``hoard token add`` against the store."""

from __future__ import annotations

import os
import signal
import subprocess
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx2
import pytest

from tests.helpers import free_port, hoard_env, note_text, wait_until

START_TIMEOUT_S = 90.0


@dataclass
class Replica:
    """One ``hoard serve --http`` process; :meth:`start` again after :meth:`kill`."""

    name: str
    vault: Path
    state: Path
    env: dict[str, str]
    hoard_bin: Path
    token: str
    port: int = 0
    proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        self.spawn()
        self.wait_ready()

    def spawn(self) -> None:
        """Start the process; :meth:`wait_ready` waits for it to answer."""
        self.port = free_port()
        with (self.state.parent / f"{self.name}.log").open("ab") as log:
            self.proc = subprocess.Popen(
                [
                    str(self.hoard_bin),
                    "serve",
                    "--vault",
                    str(self.vault),
                    "--state-dir",
                    str(self.state),
                    "--http",
                    f"127.0.0.1:{self.port}",
                    "--replica",
                    self.name,
                ],
                stdout=log,
                stderr=log,
                env=self.env,
            )

    def wait_ready(self) -> None:
        wait_until(self._answers, timeout=START_TIMEOUT_S)

    def _answers(self) -> bool:
        assert self.proc is not None and self.proc.poll() is None, self.log()
        try:
            with self.client() as client:
                return client.get("/policy").status_code == 200
        except httpx2.TransportError:
            return False

    def client(self, timeout: float = 30.0) -> httpx2.Client:
        return httpx2.Client(
            base_url=f"{self.url}/api/v1",
            headers={"Authorization": f"Bearer {self.token}"},
            timeout=timeout,
        )

    def log(self) -> str:
        return (self.state.parent / f"{self.name}.log").read_text(errors="replace")[-4000:]

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGKILL)
            self.proc.wait(30)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                self.kill()


@dataclass
class Team:
    a: Replica
    b: Replica
    vault: Path
    store_url: str
    env: dict[str, str]
    hoard_bin: Path

    def hoard(self, *args: str) -> subprocess.CompletedProcess[str]:
        """A ``hoard`` command against the same store (e.g. ``token revoke``)."""
        return subprocess.run(
            [str(self.hoard_bin), *args],
            capture_output=True,
            text=True,
            env=self.env,
            timeout=120,
        )


def shared_vault(root: Path) -> Path:
    root.mkdir()
    (root / "team").mkdir()
    for n in range(3):
        (root / "team" / f"log-{n}.md").write_text(
            note_text(f"Shared log {n}", f"The shared log number {n}."), encoding="utf-8"
        )
    return root


@pytest.fixture
def team(tmp_path: Path, pg_store: str, hoard_bin: Path) -> Iterator[Team]:
    vault = shared_vault(tmp_path / "vault")
    env = hoard_env(tmp_path) | {"HOARD_STORE_URL": pg_store}
    made = subprocess.run(
        [
            str(hoard_bin),
            "token",
            "add",
            "team",
            "--scopes",
            "read,write,confirm,maintenance,admin",
            "--write-mode",
            "direct",
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert made.returncode == 0, made.stderr
    token = made.stdout.strip()
    replicas = [
        Replica(name, vault, tmp_path / f"state-{name}", env, hoard_bin, token)
        for name in ("a", "b")
    ]
    try:
        for replica in replicas:  # both at once, as a team's replicas may well start
            replica.spawn()
        for replica in replicas:
            replica.wait_ready()
        yield Team(replicas[0], replicas[1], vault, pg_store, env, hoard_bin)
    finally:
        for replica in replicas:
            replica.stop()


@pytest.fixture
def add_caller(team: Team) -> Callable[..., str]:
    """Make a caller in the store; its token."""

    def add(name: str, scopes: str = "read,write", mode: str = "direct") -> str:
        made = team.hoard("token", "add", name, "--scopes", scopes, "--write-mode", mode)
        assert made.returncode == 0, made.stderr
        return made.stdout.strip()

    return add
