"""A throwaway PostgreSQL cluster for the store's tests and benchmarks: ``initdb`` in a
temporary folder, listening on a loopback port, run as an unprivileged user (``postgres``, the
user Debian's package makes, when they run as root; PostgreSQL refuses to run as root),
stopped at the end. Each test gets a database of its own.

The server's binaries are Debian's ``postgresql`` package (``.ci/run`` installs it); without
them the tests that need a cluster are skipped with the command that installs it, and a
benchmark says so.
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import subprocess
import tempfile
from itertools import count
from pathlib import Path

import psycopg

from hoard.benchmark.server import free_port

_numbers = count(1)


def server_bindir() -> Path | None:
    """The folder of ``initdb``/``pg_ctl``/``postgres``, newest version first."""
    for candidate in sorted(glob.glob("/usr/lib/postgresql/*/bin"), reverse=True):
        if (Path(candidate) / "postgres").exists():
            return Path(candidate)
    found = shutil.which("postgres")
    return Path(found).parent if found else None


class Cluster:
    """One running cluster; :meth:`new_database` hands out empty databases."""

    def __init__(self, bindir: Path) -> None:
        self.bindir = bindir
        self.root = Path(tempfile.mkdtemp(prefix="hoard-pg-"))
        self.port = free_port()
        self.user = self._run_as()
        if self.user is not None:
            entry = pwd.getpwnam(self.user)
            os.chown(self.root, entry.pw_uid, entry.pw_gid)
        self._pg(
            "initdb",
            "-D",
            str(self.root / "data"),
            "-A",
            "trust",
            "-U",
            "hoard",
            "-E",
            "UTF8",
            "--no-sync",
            "--locale=C",
        )
        self.start()

    @staticmethod
    def _run_as() -> str | None:
        if os.geteuid() != 0:
            return None
        for name in ("postgres", "nobody"):
            try:
                pwd.getpwnam(name)
            except KeyError:
                continue
            return name
        raise RuntimeError(
            "the tests run as root and there is no unprivileged user to run postgres"
        )

    def _pg(self, tool: str, *args: str) -> None:
        command = [str(self.bindir / tool), *args]
        if self.user is not None:
            command = ["runuser", "-u", self.user, "--", *command]
        subprocess.run(command, check=True, capture_output=True, cwd=self.root, timeout=120)

    def start(self) -> None:
        options = (
            f"-k {self.root} -p {self.port} -c listen_addresses=127.0.0.1 -c fsync=off "
            "-c synchronous_commit=off -c full_page_writes=off -c max_connections=200"
        )
        self._pg(
            "pg_ctl",
            "-D",
            str(self.root / "data"),
            "-o",
            options,
            "-l",
            str(self.root / "log"),
            "-w",
            "start",
        )

    def stop(self, mode: str = "fast") -> None:
        self._pg("pg_ctl", "-D", str(self.root / "data"), "-m", mode, "-w", "stop")

    def url(self, database: str = "postgres") -> str:
        return f"postgresql://hoard@127.0.0.1:{self.port}/{database}"

    def new_database(self, template: str = "template0") -> str:
        """A new database, a copy of ``template`` (by default empty); its URL."""
        name = f"t{os.getpid()}_{next(_numbers)}"
        with psycopg.connect(self.url(), autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE {name} TEMPLATE "{template}"'.encode())
        return self.url(name)

    def close(self) -> None:
        try:
            self.stop("immediate")
        finally:
            shutil.rmtree(self.root, ignore_errors=True)
