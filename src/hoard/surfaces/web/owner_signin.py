"""The web app's owner sign-in as other surfaces see it: the OAuth consent page asks the
owner signed in here (session cookie, CSRF token of the session) instead of an admin token."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from urllib.parse import quote

from hoard.app.sessions import Sessions
from hoard.surfaces.web.context import COOKIE


@dataclass(frozen=True, slots=True)
class WebOwner:
    sessions: Sessions

    def owner(self, cookies: Mapping[str, str]) -> tuple[str, str] | None:
        """``(who, csrf token)`` of the live session these cookies carry, or ``None``."""
        session = self.sessions.current(cookies.get(COOKIE, ""))
        return None if session is None else (session.row.caller, session.row.csrf)

    def signin_url(self, next_path: str) -> str:
        return "/signin?next=" + quote(next_path, safe="")
