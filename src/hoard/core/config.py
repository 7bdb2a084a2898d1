"""The vault config, ``hoard.toml`` at the vault root. Built once at startup, passed down.

The values and their defaults live here; every key's check and meaning, and the parser, in
:mod:`hoard.core.config_schema`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from hoard.core.ranking import RankingSettings

CONFIG_NAME = "hoard.toml"


@dataclass(frozen=True, slots=True)
class ContractConfig:
    required: tuple[str, ...] = ("title", "type", "status", "tags", "updated")
    non_empty_strings: tuple[str, ...] = ("title", "type", "status")
    tags_min: int = 2
    tags_max: int = 5
    tag_pattern: str = r"^[a-z0-9]+(-[a-z0-9]+)*$"
    date_fields: tuple[str, ...] = ("updated",)
    max_frontmatter_bytes: int = 16 * 1024


DEFAULT_FOLDER_WEIGHTS: dict[str, float] = {
    "dreams/**": 0.35,
    "logs/**": 0.35,
    "archives/**": 0.7,
    "**/session-logs/**": 0.6,
    "**/*session-log*.md": 0.6,
}


@dataclass(frozen=True, slots=True)
class SearchConfig:
    weight_title: float = 6.0
    weight_tags: float = 3.0
    weight_body: float = 1.0
    weight_path: float = 0.5
    weight_frontmatter: float = 2.0
    title_keys: tuple[str, ...] = ("aliases",)
    folder_weights: Mapping[str, float] = field(
        default_factory=lambda: dict(DEFAULT_FOLDER_WEIGHTS)
    )
    stopwords: tuple[str, ...] = ("a", "the", "and", "how")
    owner_names: tuple[str, ...] = ()
    prefix_min_length: int = 4
    typo: bool = True
    typo_min_length: int = 4
    folder_cap: int = 3
    snippet_chars: int = 240
    frontmatter_keys: tuple[str, ...] = (
        "title",
        "type",
        "status",
        "tags",
        "updated",
        "created",
        "aliases",
        "source",
        "author",
    )
    ranking: RankingSettings = field(default_factory=RankingSettings)
    """Fixed in code, never read from ``hoard.toml``."""


@dataclass(frozen=True, slots=True)
class LimitsConfig:
    read_max_bytes: int = 256 * 1024
    note_max_bytes: int = 4 * 1024 * 1024
    index_max_bytes: int = 8 * 1024 * 1024
    list_max_entries: int = 5000
    fallback_max_bytes: int = 64 * 1024 * 1024
    query_max_terms: int = 64
    links_max: int = 500
    request_time_ms: int = 2000
    refuse_hard_links: bool = False


@dataclass(frozen=True, slots=True)
class ProposalsConfig:
    ttl_seconds: int = 7 * 86400


@dataclass(frozen=True, slots=True)
class WritesConfig:
    clobber_window_s: int = 600


@dataclass(frozen=True, slots=True)
class RerankConfig:
    enabled: bool = False
    url: str = ""
    timeout_ms: int = 1500
    shortlist: int = 20


@dataclass(frozen=True, slots=True)
class GitConfig:
    commit: bool = False
    remote: str = ""
    branch: str = ""
    pull_every_s: int = 60
    push: bool | None = None
    warn_after_s: int = 300

    @property
    def pushes(self) -> bool:
        """Whether sync pushes: as configured, else whenever a remote is set."""
        return bool(self.remote) if self.push is None else self.push and bool(self.remote)


@dataclass(frozen=True, slots=True)
class McpConfig:
    chatgpt_tools: bool = True


@dataclass(frozen=True, slots=True)
class DailyConfig:
    folder: str = ""
    format: str = ""
    template: str = ""


@dataclass(frozen=True, slots=True)
class SemanticConfig:
    enabled: bool = False
    weight: float = 0.8
    candidates: int = 100
    text_chars: int = 2000


@dataclass(frozen=True, slots=True)
class StoreConfig:
    url: str = ""
    pool_size: int = 16


@dataclass(frozen=True, slots=True)
class AttachmentsConfig:
    enabled: bool = True
    max_mb: int = 50
    max_pages: int = 2000
    time_s: int = 10
    memory_mb: int = 1024
    ocr: bool = True


@dataclass(frozen=True, slots=True)
class Config:
    private: tuple[str, ...] = ("personal-notes/**",)
    protected: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    contract: ContractConfig = field(default_factory=ContractConfig)
    search: SearchConfig = field(default_factory=SearchConfig)
    limits: LimitsConfig = field(default_factory=LimitsConfig)
    proposals: ProposalsConfig = field(default_factory=ProposalsConfig)
    writes: WritesConfig = field(default_factory=WritesConfig)
    rerank: RerankConfig = field(default_factory=RerankConfig)
    git: GitConfig = field(default_factory=GitConfig)
    semantic: SemanticConfig = field(default_factory=SemanticConfig)
    mcp: McpConfig = field(default_factory=McpConfig)
    daily: DailyConfig = field(default_factory=DailyConfig)
    store: StoreConfig = field(default_factory=StoreConfig)
    attachments: AttachmentsConfig = field(default_factory=AttachmentsConfig)
