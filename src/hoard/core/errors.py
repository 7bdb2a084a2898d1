"""The one exception tree of hoard, and its single mapping to the SPEC's error objects.

Every refusal hoard makes is one of these. Surfaces (MCP tools, CLI, HTTP) never inspect
messages: they call :meth:`HoardError.to_object` (and :attr:`HoardError.http_status`).

::

    HoardError                      (abstract root; code = "io_error")
    ├── InvalidArgument             invalid_argument
    │   ├── BadQuery                bad_query
    │   └── PreconditionRequired    invalid_argument   (HTTP 428: no If-Match / If-None-Match)
    ├── ConfigError                 invalid_argument   (hoard.toml: names the key)
    ├── PathRejected                path_rejected
    ├── NotFound                    not_found
    ├── Ambiguous                   ambiguous          (an edit's heading is repeated)
    ├── Exists                      exists             (current_revision)
    ├── TooLarge                    too_large          (limit, size)
    ├── Conflict                    conflict           (current_revision)
    ├── ContractViolation           contract_violation (violations)
    ├── PrivateNote                 private_note
    ├── Protected                   protected
    ├── Forbidden                   forbidden          (scope)
    ├── ProposalNotFound            proposal_not_found
    ├── ProposalExpired             proposal_expired
    ├── SandboxLimit                sandbox_limit      (limit)
    ├── SandboxError                sandbox_error
    ├── Busy                        busy
    ├── IoError                     io_error
    │   HTTP only (the guard in front of /mcp and /api answers these; no tool raises them):
    ├── Unauthorized                unauthorized       (401, with WWW-Authenticate)
    ├── Misdirected                 misdirected        (421: a foreign Host header)
    └── Unavailable                 unavailable        (503: a bad tokens file in strict mode;
                                                        also from any tool when the shared
                                                        store of replicas is down)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar


class HoardError(Exception):
    """Root of every error hoard raises on purpose."""

    code: ClassVar[str] = "io_error"
    http_status: ClassVar[int] = 500

    def __init__(self, message: str, **details: Any) -> None:
        super().__init__(message)
        self.message = message
        self.details: dict[str, Any] = details
        self.ledgered = False
        """Set once the write path has recorded this refusal as a ledger event."""

    def to_object(self) -> dict[str, Any]:
        """The SPEC error object: ``{"error": CODE, "message": ..., **details}``."""
        obj: dict[str, Any] = {"error": self.code, "message": self.message}
        obj.update(self.details)
        return obj


class InvalidArgument(HoardError):
    code = "invalid_argument"
    http_status = 400


class BadQuery(InvalidArgument):
    code = "bad_query"


class PreconditionRequired(InvalidArgument):
    """A write over the HTTP API without the ``If-Match`` / ``If-None-Match: *`` it needs."""

    http_status = 428


class ConfigError(InvalidArgument):
    """A bad ``hoard.toml``: the message always names the offending key."""

    def __init__(self, key: str, message: str) -> None:
        super().__init__(f"hoard.toml: {key}: {message}", key=key)
        self.key = key


class PathRejected(HoardError):
    code = "path_rejected"
    http_status = 400


class NotFound(HoardError):
    code = "not_found"
    http_status = 404


class Ambiguous(HoardError):
    """An edit names something the note has more than once (``vault_edit``)."""

    code = "ambiguous"
    http_status = 409


class Exists(HoardError):
    code = "exists"
    http_status = 409

    def __init__(self, message: str, current_revision: str | None) -> None:
        super().__init__(message, current_revision=current_revision)
        self.current_revision = current_revision


class TooLarge(HoardError):
    code = "too_large"
    http_status = 413


class Conflict(HoardError):
    code = "conflict"
    http_status = 409

    def __init__(self, message: str, current_revision: str | None) -> None:
        super().__init__(message, current_revision=current_revision)
        self.current_revision = current_revision


class ContractViolation(HoardError):
    code = "contract_violation"
    http_status = 422

    def __init__(self, message: str, violations: Sequence[Mapping[str, str]]) -> None:
        super().__init__(message, violations=[dict(v) for v in violations])


class PrivateNote(HoardError):
    code = "private_note"
    http_status = 403


class Protected(HoardError):
    code = "protected"
    http_status = 403


class Forbidden(HoardError):
    code = "forbidden"
    http_status = 403


class ProposalNotFound(HoardError):
    code = "proposal_not_found"
    http_status = 404


class ProposalExpired(HoardError):
    code = "proposal_expired"
    http_status = 410


class SandboxLimit(HoardError):
    code = "sandbox_limit"
    http_status = 422


class SandboxError(HoardError):
    code = "sandbox_error"
    http_status = 422


class Busy(HoardError):
    code = "busy"
    http_status = 503


class IoError(HoardError):
    code = "io_error"
    http_status = 500


class Unauthorized(HoardError):
    code = "unauthorized"
    http_status = 401


class Misdirected(HoardError):
    code = "misdirected"
    http_status = 421


class Unavailable(HoardError):
    """A service hoard needs is down: the tokens file in strict mode (the HTTP guard), or the
    shared store of replicas (every write is refused, nothing half-done)."""

    code = "unavailable"
    http_status = 503


HTTP_GUARD_CODES: tuple[str, ...] = ("unauthorized", "misdirected", "unavailable")
"""Codes outside SPEC's tool list (401, 421 and 503): the HTTP guard's, and ``unavailable``
also from a tool that needs a shared store (PostgreSQL) that cannot be reached."""

ERROR_CODES: tuple[str, ...] = (
    "invalid_argument",
    "path_rejected",
    "not_found",
    "exists",
    "too_large",
    "conflict",
    "contract_violation",
    "private_note",
    "protected",
    "forbidden",
    "proposal_not_found",
    "proposal_expired",
    "bad_query",
    "sandbox_limit",
    "sandbox_error",
    "busy",
    "io_error",
    "ambiguous",
)
