"""Reading ``hoard.toml`` from the vault root (its meaning is :mod:`hoard.core.config`), and
Obsidian's own settings hoard follows (``.obsidian/daily-notes.json``)."""

from __future__ import annotations

import json
import logging
import tomllib
from pathlib import Path
from typing import Any

from hoard.core.config import CONFIG_NAME, Config
from hoard.core.config_schema import parse_config, retired_keys
from hoard.core.errors import ConfigError

log = logging.getLogger("hoard.config")


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
    config = parse_config(data)
    for key in retired_keys(data):
        log.warning(
            "%s: %s is no longer configurable (a ranking constant fixed in code); "
            "the setting is ignored and can be removed",
            path,
            key,
        )
    return config


OBSIDIAN_DAILY = (".obsidian", "daily-notes.json")
_SETTINGS_MAX = 64 * 1024


def load_obsidian_daily(vault: Path) -> dict[str, Any] | None:
    """Obsidian's daily-notes settings as a mapping; None when the file is absent, too
    large or not a JSON object (Obsidian then uses its defaults too)."""
    try:
        with (vault.joinpath(*OBSIDIAN_DAILY)).open("rb") as f:
            raw = f.read(_SETTINGS_MAX + 1)
    except OSError:
        return None
    if len(raw) > _SETTINGS_MAX:
        return None
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return None
    return data if isinstance(data, dict) else None
