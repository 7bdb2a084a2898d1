"""Results of the read tools: search, similar, read, list, links, tags and read_code."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from hoard.core.choices import LinkResolution, SearchEngine, SimilarEngine, TagSource
from hoard.core.result_warnings import ResultWarning

# Result types are frozen (a use-case builds a new one rather than changing one it handed
# out). They are not slotted: the MCP SDK derives each output schema from the class's
# attributes, and slots turn the fields' defaults into member descriptors it cannot read.


@dataclass(frozen=True)
class SearchHit:
    path: str
    title: str
    score: float
    snippet: str
    folder: str
    frontmatter: dict[str, Any] | None
    warnings: list[ResultWarning] = field(default_factory=list)
    kind: Literal["attachment"] | None = None
    """``attachment`` for a file that is not a note (PDF, Word, text, HTML, image), whose
    text was found; absent for a note."""
    page: int | None = None
    """An attachment's page (a PDF's page; a Word file's page between explicit page
    breaks; the part of a long text) that matched best; absent for a note."""


@dataclass(frozen=True)
class SearchResult:
    query: str
    engine: SearchEngine
    error: str | None
    contested: bool
    reranked: bool
    hidden_protected: int
    took_ms: float
    results: list[SearchHit]
    warnings: list[ResultWarning] = field(default_factory=list)
    next_offset: int | None = None
    """Where the next page starts (``offset``), when there may be one."""
    semantic_weight: float | None = None
    """The lexical share of the blend when ``engine`` names ``semantic``."""


@dataclass(frozen=True, slots=True)
class SimilarHit:
    path: str
    title: str
    score: float
    """Cosine similarity of the two notes' vectors (1 is the same direction)."""
    folder: str


@dataclass(frozen=True)
class SimilarResult:
    path: str
    engine: SimilarEngine
    """``semantic``, or ``none`` when the model is not there (``warnings`` say why)."""
    took_ms: float
    results: list[SimilarHit]
    warnings: list[ResultWarning] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class NotePart:
    """One part of a note that ``vault_read`` answered with: a section or a block."""

    kind: Literal["heading", "block"]
    name: str
    """The heading or block id as asked."""
    start: int
    """Byte offset in the file of the part's first line."""
    end: int
    """Byte offset in the file just after the part's last line (its newline included)."""


@dataclass(frozen=True)
class ReadResult:
    path: str
    revision: str
    size: int
    content: str
    offset: int
    next_offset: int | None
    truncated: bool
    frontmatter: dict[str, Any] | None
    warnings: list[ResultWarning] = field(default_factory=list)
    part: NotePart | None = None
    """Set when a heading or block was asked: ``offset`` and ``next_offset`` then count
    from the part's start."""
    kind: Literal["attachment"] | None = None
    """``attachment`` when ``path`` is a file that is not a note: ``content`` is its
    extracted text (each page after a ``--- page N ---`` line), ``revision`` the SHA-256 of
    the file's bytes; absent for a note."""
    pages: int | None = None
    """An attachment's page count (absent for a note)."""
    page: int | None = None
    """The page asked for, when one was (absent otherwise)."""


@dataclass(frozen=True, slots=True)
class ListEntry:
    path: str
    kind: str
    size: int
    mtime: str


@dataclass(frozen=True)
class ListResult:
    path: str
    entries: list[ListEntry]
    truncated: bool


@dataclass(frozen=True)
class OutgoingLink:
    target: str
    resolved_path: str | None
    broken: bool
    heading: str | None = None
    alias: str | None = None
    embed: bool = False
    line: int = 0
    resolved_by: LinkResolution | None = None
    """How the link found its note: ``path``, ``name`` (the file name) or ``alias`` (a
    frontmatter alias); ``None`` when it is broken."""
    ambiguous: list[str] = field(default_factory=list)
    """A broken link whose alias more than one note shares: those notes."""


@dataclass(frozen=True)
class LinksResult:
    path: str
    outgoing: list[OutgoingLink]
    backlinks: list[str]
    broken: list[str]
    offset: int = 0
    next_offset: int | None = None
    """Where the next page starts (``vault_links(path, offset=next_offset)``), or ``None``."""
    truncated: bool = False
    """More outgoing links or backlinks than one page holds (``limits.links_max``), or the
    time budget cut the page short (then a ``time_budget`` warning says so)."""
    warnings: list[ResultWarning] = field(default_factory=list)


@dataclass(frozen=True)
class RunResult:
    """read_code's answer: the script's return value, its console lines, the host calls it
    made and its wall-clock time."""

    result: Any
    logs: list[str]
    calls: list[dict[str, Any]]
    elapsed_ms: float


@dataclass(frozen=True, slots=True)
class TagCount:
    tag: str
    count: int
    source: TagSource = "frontmatter"
    """Where the notes write it: ``frontmatter``, ``inline`` (a ``#tag`` in the body) or
    ``both``."""


@dataclass(frozen=True)
class TagsResult:
    """``vault_tags``: each tag with the number of notes the caller can see that carry it."""

    tags: list[TagCount]
    folder: str | None = None
