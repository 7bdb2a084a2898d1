"""``vault_daily``: the daily note for a date, found where Obsidian files it, and made from
the daily template through the one write path when asked (so a caller in propose mode gets
a proposal, and every gate of ``vault_write`` applies).

The settings are :func:`hoard.core.daily.settings_of` over ``.obsidian/daily-notes.json``
and ``[daily]`` in ``hoard.toml``. "Today" is the date in the server's local time zone
(hoard has no time zone setting of its own).
"""

from __future__ import annotations

from datetime import date, datetime

from hoard.adapters.fs.config_file import load_obsidian_daily
from hoard.app.writes.write_path import WritePath
from hoard.core.daily import (
    DailyResult,
    DailySettings,
    daily_path,
    fill_template,
    settings_of,
    template_path,
    with_contract,
)
from hoard.core.errors import InvalidArgument, NotFound
from hoard.core.note import revision_of
from hoard.core.paths import normalize_note_path
from hoard.core.policy import Caller

TOOL = "vault_write"
"""The daily note is made by ``vault_write``'s path, and recorded (and confirmed) as one."""


def day_of(value: object, now: datetime) -> datetime:
    """The asked date (``YYYY-MM-DD``; None: today) at the current time of day."""
    if value is None:
        return now
    if not isinstance(value, str):
        raise InvalidArgument("date must be a date written YYYY-MM-DD")
    try:
        day = date.fromisoformat(value.strip())
    except ValueError as exc:
        raise InvalidArgument(f"date {value!r} is not a date written YYYY-MM-DD") from exc
    return datetime.combine(day, now.timetz())


class Daily:
    def __init__(self, writes: WritePath) -> None:
        self.writes = writes
        self.deps = writes.core.deps

    def settings(self) -> DailySettings:
        return settings_of(load_obsidian_daily(self.deps.vault.root), self.deps.config.daily)

    def daily(
        self, date: str | None = None, create: bool = False, *, caller: Caller
    ) -> DailyResult:
        """The daily note for ``date`` (today by default); with ``create``, made from the
        template when it does not exist yet."""
        self.deps.access.require("read", caller=caller)
        when = day_of(date, datetime.now().astimezone())
        settings = self.settings()
        rel = normalize_note_path(daily_path(settings, when))
        self.deps.access.check_visible(rel, caller=caller)
        day = when.date().isoformat()
        tpl = template_path(settings)
        if tpl is not None and not self.deps.access.can_see(tpl, caller=caller):
            tpl = None  # a template the caller may not see is neither named nor copied
        try:
            _, raw, _ = self.deps.vault.read_note(rel)
        except NotFound:
            raw = None
        if raw is not None:
            return DailyResult(
                status="found",
                path=rel,
                date=day,
                exists=True,
                created=False,
                revision=revision_of(raw),
                template=tpl,
            )
        if not create:
            return DailyResult(
                status="missing",
                path=rel,
                date=day,
                exists=False,
                created=False,
                revision=None,
                template=tpl,
            )
        text = self._new_text(settings, tpl, rel, when)
        w = self.writes.write(rel, text, None, caller=caller, tool=TOOL)
        made = w.status == "written"
        return DailyResult(
            status=w.status,
            path=w.path,
            date=day,
            exists=made,
            created=made,
            revision=w.revision,
            template=tpl,
            proposal_id=w.proposal_id,
            expires_at=w.expires_at,
            diff=w.diff,
        )

    def _new_text(self, settings: DailySettings, tpl: str | None, rel: str, when: datetime) -> str:
        """The template filled for ``when`` (empty without one), with the contract's fields."""
        title = rel.rpartition("/")[2].removesuffix(".md")
        text = ""
        if tpl is not None:
            try:
                _, raw, _ = self.deps.vault.read_note(tpl)
            except NotFound as exc:
                raise NotFound(
                    f"the daily template {tpl!r} does not exist (daily-notes settings)", path=tpl
                ) from exc
            text = fill_template(raw.decode("utf-8", "replace"), when, title)
        return with_contract(text, self.deps.config.contract, title, when)
