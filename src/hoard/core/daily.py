"""Daily notes as Obsidian files them: where the note for a date lives, and the text a new
one starts from. Pure: settings, a date and a template in; a path and text out.

- Settings come from ``.obsidian/daily-notes.json`` (``folder``, ``format``, ``template``)
  and ``[daily]`` in ``hoard.toml``; a key set in ``hoard.toml`` wins (it is hoard's own,
  explicit configuration; the Obsidian file is the editor's). ``format`` defaults to
  ``YYYY-MM-DD``, the folder to the vault root.
- A template's placeholders are filled as Obsidian's core Templates plugin fills them:
  ``{{date}}`` (``YYYY-MM-DD``), ``{{time}}`` (``HH:mm``), ``{{date:FORMAT}}`` and
  ``{{time:FORMAT}}`` (Moment.js), ``{{title}}`` (the note's file name without ``.md``);
  the names match case-insensitively and may have spaces inside the braces. Dates are the
  daily note's date at the current time of day.
- What the frontmatter contract requires and the template lacks is added: ``title``,
  ``type: daily``, ``status: active``, ``tags`` (``daily``, ``journal``, ...) and ``updated``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from hoard.core.config import ContractConfig, DailyConfig
from hoard.core.edits import SetFields, apply_edits
from hoard.core.frontmatter import parse_yaml_block, split_frontmatter
from hoard.core.moment import format_moment

DEFAULT_FORMAT = "YYYY-MM-DD"
_PLACEHOLDER = re.compile(r"\{\{\s*(date|time|title)\s*(?::([^}]*))?\}\}", re.IGNORECASE)
_TAGS = ("daily", "journal", "log", "day", "diary")


@dataclass(frozen=True, slots=True)
class DailySettings:
    folder: str = ""
    format: str = DEFAULT_FORMAT
    template: str = ""


def _clean(value: object) -> str:
    return value.strip() if isinstance(value, str) else ""


def settings_of(obsidian: dict[str, Any] | None, toml: DailyConfig) -> DailySettings:
    """The daily-note settings: each key from ``hoard.toml`` when set there, else from the
    parsed ``.obsidian/daily-notes.json`` (None when absent), else the default."""
    obs = obsidian or {}

    def pick(key: str) -> str:
        return _clean(getattr(toml, key)) or _clean(obs.get(key))

    return DailySettings(
        folder=pick("folder").strip("/"),
        format=pick("format") or DEFAULT_FORMAT,
        template=pick("template"),
    )


def daily_path(settings: DailySettings, when: datetime) -> str:
    """The vault-relative path of the daily note for ``when``'s date."""
    name = format_moment(settings.format, when).strip("/")
    path = f"{settings.folder}/{name}" if settings.folder else name
    return path if path.lower().endswith(".md") else path + ".md"


def template_path(settings: DailySettings) -> str | None:
    """The template note's path (Obsidian stores it without ``.md``), or None."""
    t = settings.template.strip("/")
    if not t:
        return None
    return t if t.lower().endswith(".md") else t + ".md"


def fill_template(text: str, when: datetime, title: str) -> str:
    """``text`` with ``{{date}}``, ``{{time}}``, ``{{date:F}}``, ``{{time:F}}``, ``{{title}}``
    filled for ``when``."""

    def one(m: re.Match[str]) -> str:
        name, fmt = m.group(1).lower(), m.group(2)
        if name == "title":
            return title
        default = DEFAULT_FORMAT if name == "date" else "HH:mm"
        return format_moment(fmt.strip() if fmt and fmt.strip() else default, when)

    return _PLACEHOLDER.sub(one, text)


def _tags(contract: ContractConfig) -> list[str]:
    want = min(max(contract.tags_min, 2), contract.tags_max, len(_TAGS))
    return list(_TAGS[:want])


def with_contract(text: str, contract: ContractConfig, title: str, when: datetime) -> str:
    """``text`` with the contract's required fields it lacks added to its frontmatter (the
    ones hoard knows a daily note's value for); every line already there stays."""
    split = split_frontmatter(text)
    data = parse_yaml_block(split.yaml_text).data if split.has_block else {}
    have = data if isinstance(data, dict) else {}
    known: dict[str, Any] = {
        "title": title,
        "type": "daily",
        "status": "active",
        "tags": _tags(contract),
        "updated": when.date().isoformat(),
    }
    missing = {k: known[k] for k in contract.required if k in known and have.get(k) is None}
    if not missing:
        return text
    out = apply_edits(text, [SetFields(tuple(missing.items()))])
    return out if out.endswith("\n") else out + "\n"


@dataclass(frozen=True)
class DailyResult:
    """``vault_daily``'s answer. ``status``: ``found`` (the note exists), ``missing`` (it
    does not and ``create`` was false), ``written`` (made now) or ``proposed`` (a caller in
    propose mode: the owner confirms ``proposal_id``)."""

    status: str
    path: str
    date: str
    exists: bool
    created: bool
    revision: str | None
    template: str | None = None
    proposal_id: str | None = None
    expires_at: str | None = None
    diff: str | None = None
