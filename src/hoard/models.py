"""The typed results of the service façade: the SPEC's result objects, field for field.

The MCP surface returns these (the SDK turns them into output schemas), the CLI prints them
or dumps them with ``--json`` (:func:`to_json`).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any


@dataclass
class SearchHit:
    path: str
    title: str
    score: float
    snippet: str
    folder: str
    frontmatter: dict[str, Any] | None
    warnings: list[dict[str, Any]] = field(default_factory=list)


@dataclass
class SearchResult:
    query: str
    engine: str
    error: str | None
    contested: bool
    reranked: bool
    hidden_protected: int
    took_ms: float
    results: list[SearchHit]
    warnings: list[dict[str, Any]] = field(default_factory=list)


@dataclass
class ReadResult:
    path: str
    revision: str
    size: int
    content: str
    offset: int
    next_offset: int | None
    truncated: bool
    frontmatter: dict[str, Any] | None
    warnings: list[dict[str, Any]] = field(default_factory=list)


@dataclass
class ListEntry:
    path: str
    kind: str
    size: int
    mtime: str


@dataclass
class ListResult:
    path: str
    entries: list[ListEntry]
    truncated: bool


@dataclass
class OutgoingLink:
    target: str
    resolved_path: str | None
    broken: bool
    heading: str | None = None
    alias: str | None = None
    embed: bool = False
    line: int = 0


@dataclass
class LinksResult:
    path: str
    outgoing: list[OutgoingLink]
    backlinks: list[str]
    broken: list[str]


@dataclass
class CheckViolation:
    path: str
    field: str
    rule: str
    message: str


@dataclass
class BrokenLink:
    path: str
    target: str
    line: int


@dataclass
class CheckResult:
    checked: int
    violations: list[CheckViolation]
    broken_links: list[BrokenLink]
    private_skipped: int


@dataclass
class IndexResult:
    notes: int
    added: int
    updated: int
    removed: int
    failed: int
    rebuilt: bool
    elapsed_ms: float
    reason: str | None = None


@dataclass
class PolicyResult:
    caller: str
    scopes: list[str]
    write_mode: str
    private: list[str]
    protected: list[str]
    grants: list[dict[str, Any]]
    notes: list[str]


@dataclass
class AccessRequestResult:
    request_id: str
    status: str
    glob: str
    reason: str
    message: str


def to_json(obj: Any) -> Any:
    """Plain JSON-able data from a result dataclass (recursively)."""
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return {f.name: to_json(getattr(obj, f.name)) for f in dataclasses.fields(obj)}
    if isinstance(obj, list | tuple):
        return [to_json(x) for x in obj]
    if isinstance(obj, dict):
        return {str(k): to_json(v) for k, v in obj.items()}
    return obj
