"""``make install-user`` installs hoard for a user the way that works on Debian 12's system
Python (where ``pip install --user .`` is refused by PEP 668): a virtual environment of its
own under ``~/.local/share/hoard`` and a link in ``~/.local/bin``. The target runs with a
temporary ``HOME`` and a bare ``PATH=/usr/bin:/bin`` (the system's Python and make), and the
linked ``hoard`` then starts with that same bare ``PATH``, as a desktop client starts it.

To stay off the network, the target installs a wheel built here from a copy of the sources
(``HOARD_SOURCE``) without dependencies (``PIP_ARGS``): ``hoard --version`` needs none.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from hoard import __version__

pytestmark = pytest.mark.packaging

ROOT = Path(__file__).resolve().parents[2]
BARE_PATH = "/usr/bin:/bin"


def _wheel(tmp: Path) -> Path:
    """A wheel of hoard, built from a copy so nothing is written into the checkout."""
    src = tmp / "src"
    src.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(ROOT / name, src / name)
    shutil.copytree(
        ROOT / "src", src / "src", ignore=shutil.ignore_patterns("__pycache__", "*.egg-info")
    )
    wheels = tmp / "wheels"
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "-w", str(wheels), str(src)],
        check=True,
        timeout=600,
    )
    (wheel,) = wheels.glob("hoard-*.whl")
    return wheel


def test_make_install_user_links_a_hoard_that_starts_with_a_bare_path(tmp_path: Path) -> None:
    if not (Path("/usr/bin/make").exists() and Path("/usr/bin/python3").exists()):
        pytest.skip("needs the system's make and python3 in /usr/bin")
    wheel = _wheel(tmp_path)
    home = tmp_path / "home"
    home.mkdir()
    bare = {"HOME": str(home), "PATH": BARE_PATH, "LANG": "C.UTF-8"}

    done = subprocess.run(
        [
            "make",
            "-C",
            str(ROOT),
            "--no-print-directory",
            "install-user",
            "PYTHON=python3",
            f"HOARD_SOURCE={wheel}",
            "PIP_ARGS=--no-deps --no-index",
        ],
        capture_output=True,
        text=True,
        env=bare,
        timeout=600,
        check=False,
    )

    assert done.returncode == 0, done.stdout + done.stderr
    link = home / ".local" / "bin" / "hoard"
    venv = home / ".local" / "share" / "hoard" / "venv"
    assert link.is_symlink()
    assert link.resolve() == (venv / "bin" / "hoard").resolve()
    assert f"{home}/.local/bin is not on your PATH" in done.stdout
    started = subprocess.run(
        [str(link), "--version"], capture_output=True, text=True, env=bare, timeout=60
    )
    assert started.returncode == 0, started.stderr
    assert started.stdout.strip() == f"hoard {__version__}"
    where = subprocess.run(
        [str(venv / "bin" / "python"), "-c", "import hoard; print(hoard.__file__)"],
        capture_output=True,
        text=True,
        env=bare,
        timeout=60,
        check=True,
    ).stdout
    assert where.startswith(str(venv)), where
