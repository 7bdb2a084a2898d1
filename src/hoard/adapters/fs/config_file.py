"""Reading ``hoard.toml`` from the vault root (its meaning is :mod:`hoard.core.config`)."""

from __future__ import annotations

import tomllib
from pathlib import Path

from hoard.core.config import CONFIG_NAME, Config
from hoard.core.config_schema import parse_config
from hoard.core.errors import ConfigError


def load_config(vault: Path) -> Config:
    """Read ``hoard.toml`` from the vault root; defaults when it is absent."""
    path = vault / CONFIG_NAME
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return Config()
    except OSError as exc:
        raise ConfigError("(file)", f"cannot read {path}: {exc.strerror}") from exc
    try:
        data = tomllib.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError("(file)", f"{path} is not valid TOML: {exc}") from exc
    return parse_config(data)
