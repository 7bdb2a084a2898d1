"""Which tools a caller sees in ``tools/list``: only those its scopes allow.

A read-only agent that is shown ``vault_write`` spends context on a tool it cannot use and
learns so only from the refusal. The scope a tool needs is the one its use-case checks: a
read-only tool needs ``read``, any other ``write``, except for the few named below. Hiding
a tool only trims the list; a call by name is still checked by the use-case and refused
with ``forbidden`` as before.
"""

from __future__ import annotations

from collections.abc import Iterable

from mcp_types import Tool

from hoard.core.policy import Caller

TOOL_SCOPES: dict[str, str | None] = {
    "vault_policy": None,  # anyone may ask what it may do
    "vault_request_access": "read",  # records a request, changes no note
    "vault_confirm": "confirm",
    "vault_reject": "confirm",
}
"""The exceptions to the rule "read-only hint → read, else write"."""


def required_scope(tool: Tool) -> str | None:
    """The scope ``tool`` needs (``None``: none at all)."""
    if tool.name in TOOL_SCOPES:
        return TOOL_SCOPES[tool.name]
    hints = tool.annotations
    return "read" if hints is not None and hints.read_only_hint else "write"


def visible_tools(tools: Iterable[Tool], caller: Caller) -> list[Tool]:
    """The tools ``caller`` may call, in their listed order."""
    out = []
    for tool in tools:
        scope = required_scope(tool)
        if scope is None or caller.has(scope):
            out.append(tool)
    return out
