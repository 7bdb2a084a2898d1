"""Refusals in words: what happened and what to do, for a person reading a page. The error's
own message says the detail (which note, which revision); the code stays in the JSON API and
MCP answers, where programs read it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from hoard.core.errors import HoardError


@dataclass(frozen=True, slots=True)
class Refusal:
    headline: str
    """What happened, as a sentence's start (``This note is private``)."""
    detail: str
    """The error's own message."""
    advice: str
    """What to do next; empty when there is nothing to add."""

    @property
    def text(self) -> str:
        """One line: ``headline: detail. advice``."""
        line = f"{self.headline}: {self.detail}".rstrip()
        if line and line[-1] not in ".!?":
            line += "."
        return f"{line} {self.advice}".rstrip()


_WORDS: dict[str, tuple[str, str]] = {
    "private_note": (
        "This note is private",
        "Private notes are changed only by the owner on this machine.",
    ),
    "protected": ("This note is protected", "A grant on the Access page lets a caller see it."),
    "forbidden": ("That is not allowed", "Nothing was changed."),
    "not_found": ("Nothing is there", "Check the path, or find the note with search."),
    "exists": ("A note is already there", "Pick another path; nothing is ever replaced."),
    "conflict": (
        "The note changed since you opened it",
        "Reload it to see the current text; nothing was written.",
    ),
    "contract_violation": (
        "The note breaks the frontmatter contract",
        "Fix the fields named and save again.",
    ),
    "path_rejected": ("That path cannot be used", "Use a vault-relative path ending in .md."),
    "invalid_argument": ("That was not accepted", "Correct it and try again."),
    "bad_query": ("The search could not be read", "Check the quotes and operators."),
    "too_large": ("That is too large", "Make it smaller and try again."),
    "proposal_not_found": (
        "That proposal is gone",
        "It was confirmed, rejected or expired; the inbox shows what waits.",
    ),
    "proposal_expired": ("That proposal expired", "Ask the agent to propose it again."),
    "busy": ("Hoard is busy", "Try again in a moment."),
    "unavailable": ("That is not available now", "Try again in a moment."),
    "unauthorized": ("You are not signed in", "Sign in and try again."),
    "ambiguous": ("More than one note matches", "Use the full path."),
}


def refusal(code: str, message: str) -> Refusal:
    """The words for an error's ``code`` and ``message``."""
    headline, advice = _WORDS.get(code, ("That did not work", "Nothing was changed."))
    return Refusal(headline, message, advice)


def refusal_of(error: HoardError | dict[str, Any]) -> Refusal:
    """The words for an exception or its wire object (``{error, message}``)."""
    if isinstance(error, HoardError):
        return refusal(error.code, error.message)
    return refusal(str(error.get("error", "")), str(error.get("message", "")))
