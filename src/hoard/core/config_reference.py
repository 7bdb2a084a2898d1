"""``docs/config.md``: every key of ``hoard.toml`` with its default and meaning, generated
from :data:`hoard.core.config_schema.SCHEMA` (``make docs``; a test keeps the page in step)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hoard.core.config import Config
from hoard.core.config_schema import SCHEMA, SECTIONS


def config_docs() -> str:
    """Markdown reference of every key with its default, generated from :data:`SCHEMA`."""
    defaults: dict[str, Any] = {"": Config()}
    for name, cls in SECTIONS.items():
        defaults[name] = cls()
    lines = ["| key | default | meaning |", "|---|---|---|"]
    for section, keys in SCHEMA.items():
        for key, (_, doc) in keys.items():
            value = getattr(defaults[section], key)
            if isinstance(value, tuple):
                value = list(value)
            shown = f"{section}.{key}" if section else key
            lines.append(f"| `{shown}` | `{_toml_value(value)}` | {doc} |")
    return "\n".join(lines) + "\n"


def _toml_value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, str):
        return '"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(v, list):
        return "[" + ", ".join(_toml_value(x) for x in v) + "]"
    if isinstance(v, Mapping):
        return "{ " + ", ".join(f'"{k}" = {_toml_value(x)}' for k, x in v.items()) + " }"
    return str(v)


REFERENCE_HEADER = """# hoard.toml reference

Optional, at the vault root; it travels with the vault. Every key is optional; an unknown key
or a bad value stops hoard at startup with a message naming the key. The ranking internals
that were once `[search]` keys (`common_share`, `posting_budget`, `feedback_terms`,
`feedback_min_words`, `feedback_weight`, `phrase_weight`, `typo_penalty`,
`typo_two_edits_length`) are constants in code now (`hoard.core.ranking`): a file that still
sets one loads, with a warning naming the key, and the value is ignored. This page is generated
from `hoard.core.config_schema.SCHEMA` by `make docs`, and a test keeps it in step with the code.

"""

REFERENCE_EXAMPLE = """
Example:

```toml
private = ["personal-notes/**"]
protected = ["finance/**"]
ignore = ["attachments/**"]

[contract]
tags_max = 8

[search]
owner_names = ["freja"]
folder_weights = { "dreams/**" = 0.35, "logs/**" = 0.35, "archives/**" = 0.7 }
```

Folder weights: the first glob that matches a note's path gives its rank multiplier; a note
no glob matches keeps 1.0. Setting `folder_weights` replaces the defaults.
"""


def render_config_reference() -> str:
    """The whole of ``docs/config.md``."""
    return REFERENCE_HEADER + config_docs() + REFERENCE_EXAMPLE
