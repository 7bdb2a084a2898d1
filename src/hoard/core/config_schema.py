"""The ``hoard.toml`` schema: every key's check and meaning (:data:`SCHEMA`), and
:func:`parse_config`, which validates a parsed file into a :class:`~hoard.core.config.Config`.

``docs/config.md`` is generated from :data:`SCHEMA` (``make docs``; a test keeps it equal).
An unknown key or a bad value raises :class:`~hoard.core.errors.ConfigError` naming the key;
a ranking internal that is no longer configurable (:mod:`hoard.core.ranking`) is ignored.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

from hoard.core.config import (
    AttachmentsConfig,
    Config,
    ContractConfig,
    DailyConfig,
    GitConfig,
    LimitsConfig,
    McpConfig,
    ProposalsConfig,
    RerankConfig,
    SearchConfig,
    SemanticConfig,
    StoreConfig,
    WritesConfig,
)
from hoard.core.errors import ConfigError
from hoard.core.globs import glob_to_regex
from hoard.core.ranking import RETIRED_SEARCH_KEYS

Check = Callable[[str, Any], Any]


def _glob(key: str, pattern: str) -> str:
    try:
        glob_to_regex(pattern)
    except re.error as exc:
        raise ConfigError(key, f"{pattern!r} is not a valid glob: {exc}") from exc
    return pattern


def _globs(key: str, v: Any) -> tuple[str, ...]:
    if not isinstance(v, list) or not all(isinstance(x, str) and x.strip() for x in v):
        raise ConfigError(key, "must be a list of non-empty glob strings")
    return tuple(_glob(key, x) for x in v)


def _strs(key: str, v: Any) -> tuple[str, ...]:
    if not isinstance(v, list) or not all(isinstance(x, str) for x in v):
        raise ConfigError(key, "must be a list of strings")
    return tuple(v)


def _int(lo: int, hi: int) -> Check:
    def check(key: str, v: Any) -> int:
        if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
            raise ConfigError(key, f"must be a whole number from {lo} to {hi}")
        return v

    return check


def _num(lo: float, hi: float) -> Check:
    def check(key: str, v: Any) -> float:
        if isinstance(v, bool) or not isinstance(v, int | float) or not lo <= v <= hi:
            raise ConfigError(key, f"must be a number from {lo} to {hi}")
        return float(v)

    return check


def _bool(key: str, v: Any) -> bool:
    if not isinstance(v, bool):
        raise ConfigError(key, "must be true or false")
    return v


def _str(key: str, v: Any) -> str:
    if not isinstance(v, str):
        raise ConfigError(key, "must be a string")
    return v


def _regex(key: str, v: Any) -> str:
    s = _str(key, v)
    try:
        re.compile(s)
    except re.error as exc:
        raise ConfigError(key, f"is not a valid regular expression: {exc}") from exc
    return s


def _weights(key: str, v: Any) -> dict[str, float]:
    if not isinstance(v, dict):
        raise ConfigError(key, "must be a table of glob = multiplier")
    out: dict[str, float] = {}
    for g, m in v.items():
        out[_glob(f"{key}.{g}", g)] = _num(0.0, 10.0)(f"{key}.{g}", m)
    return out


# key -> (checker, one-line documentation). Defaults come from the dataclasses.
SCHEMA: dict[str, dict[str, tuple[Check, str]]] = {
    "": {
        "private": (
            _globs,
            "Globs of private notes: exempt from the contract when created, "
            "never overwritten, moved or archived through the server (but by the owner in "
            "the web app of a server bound to loopback), never sent off-device.",
        ),
        "protected": (
            _globs,
            "Globs of protected notes: invisible to every caller without a grant.",
        ),
        "ignore": (_globs, "Globs hoard does not index or list (dot-files are always ignored)."),
    },
    "contract": {
        "required": (_strs, "Frontmatter fields every non-private note must have."),
        "non_empty_strings": (_strs, "Fields that must be non-empty strings."),
        "tags_min": (_int(0, 100), "Fewest tags allowed."),
        "tags_max": (_int(0, 100), "Most tags allowed."),
        "tag_pattern": (_regex, "Regular expression every tag must match."),
        "date_fields": (_strs, "Fields that must be real calendar dates YYYY-MM-DD."),
        "max_frontmatter_bytes": (_int(64, 1 << 20), "Largest frontmatter block, in bytes."),
    },
    "search": {
        "weight_title": (_num(0, 100), "BM25 weight of the title (and title_keys) column."),
        "weight_tags": (_num(0, 100), "BM25 weight of the tags column."),
        "weight_body": (_num(0, 100), "BM25 weight of the body column."),
        "weight_path": (_num(0, 100), "BM25 weight of the path column."),
        "weight_frontmatter": (_num(0, 100), "BM25 weight of the whole frontmatter text."),
        "title_keys": (_strs, "Frontmatter keys indexed with the title's weight."),
        "folder_weights": (
            _weights,
            "Rank multipliers by path glob (first match wins; replaces the defaults when set).",
        ),
        "stopwords": (_strs, "Words dropped from natural-mode queries."),
        "owner_names": (_strs, "The owner's names: dropped from queries like stopwords."),
        "prefix_min_length": (_int(1, 100), "Shortest query term that also matches as a prefix."),
        "typo": (_bool, "Typo tolerance on or off."),
        "typo_min_length": (_int(1, 100), "Shortest term that gets one-edit typo tolerance."),
        "folder_cap": (_int(1, 1000), "Most hits from one folder before the others in a page."),
        "snippet_chars": (_int(40, 4000), "Length of a result snippet, in characters."),
        "frontmatter_keys": (_strs, "Frontmatter keys shown with each search result."),
    },
    "limits": {
        "read_max_bytes": (_int(1024, 64 << 20), "Ceiling of one read response, in bytes."),
        "note_max_bytes": (_int(1024, 1 << 30), "Largest note hoard writes, in bytes."),
        "index_max_bytes": (
            _int(1024, 1 << 30),
            "Notes larger than this are indexed by their first this-many bytes.",
        ),
        "list_max_entries": (_int(1, 1_000_000), "Most entries one list call returns."),
        "fallback_max_bytes": (
            _int(1024, 1 << 34),
            "Most bytes the substring fallback scans per search.",
        ),
        "query_max_terms": (
            _int(1, 10_000),
            'Most words a `mode="fts"` query may hold (operators `AND`, `OR`, `NOT`, `NEAR` '
            "not counted); a longer one is a `bad_query` error that says so. Natural queries "
            "search their first 32 words and warn (`query_truncated`) when they had more.",
        ),
        "refuse_hard_links": (
            _bool,
            "Treat a note file with more than one hard link (its bytes shared with a file "
            "elsewhere, perhaps outside the vault) as no note: not read, not indexed "
            "(`path_rejected` on a read). `hoard check` flags such notes either way.",
        ),
        "links_max": (
            _int(1, 100_000),
            "Most outgoing links and most backlinks one `vault_links` call returns; the "
            "answer then says `truncated: true` and gives `next_offset` for the next page.",
        ),
        "request_time_ms": (
            _int(50, 600_000),
            "Time budget of one `vault_search` or `vault_links` call, in milliseconds. Past "
            "it the call stops and answers with what it has found so far, labeled with a "
            "`time_budget` warning.",
        ),
    },
    "proposals": {
        "ttl_seconds": (
            _int(10, 30 * 86400),
            "How long a write proposal waits for a person to confirm or reject it, in seconds "
            "(default 7 days). One that expires unanswered stays in the web inbox, greyed, "
            "for 7 more days.",
        ),
    },
    "writes": {
        "clobber_window_s": (
            _int(0, 30 * 86400),
            "When a save from outside hoard (an editor's stale buffer) replaces a revision "
            "hoard wrote and acknowledged at most this many seconds before, and the saved "
            "bytes no longer hold every line that write added, the owner's inbox shows both "
            "versions with a one-click restore of hoard's (0 turns the check off). The bytes "
            "of every revision hoard writes are kept in the ledger either way.",
        ),
    },
    "rerank": {
        "enabled": (
            _bool,
            "Let a model reorder a contested top (the second score within 90% of the best); "
            'needs `url`. A search with `rerank="on"` asks for it even when not contested.',
        ),
        "url": (
            _str,
            "The rerank endpoint (http or https): hoard POSTs "
            '`{"query", "texts"}` and reads `[{"index", "score"}]` (text-embeddings-inference) '
            'or `{"results": [{"index", "relevance_score"}]}`. Private notes are never sent.',
        ),
        "timeout_ms": (
            _int(10, 60000),
            "How long to wait for the endpoint; past it the BM25 order stands.",
        ),
        "shortlist": (_int(2, 200), "How many BM25 hits the model sees and may reorder."),
    },
    "git": {
        "commit": (
            _bool,
            "When the vault is a git work tree: every change hoard makes (write, edit, move, "
            "archive, restore, file_note, confirm) becomes one commit of only the paths it "
            "changed, the caller as author and the ledger event ids in the message. A failed "
            "commit never undoes the change; the ledger records `commit_failed`.",
        ),
        "remote": (
            _str,
            "The git remote to sync with (a remote's name, e.g. `origin`, or a URL); empty: no "
            "sync. Setting it turns on `commit`. Credentials come from git's own configuration "
            "and are never stored or shown. See docs/sync.md.",
        ),
        "branch": (_str, "The branch to sync; empty: the vault's current branch."),
        "pull_every_s": (
            _int(0, 86400),
            "Seconds between pulls of a running server; 0: only on demand (`hoard sync`, "
            "`POST /api/v1/sync`, the web app's Sync button). hoard's own commits are pushed "
            "within 10 s of a change either way.",
        ),
        "push": (
            _bool,
            "Push hoard's commits to the remote (default: true when a remote is set).",
        ),
        "warn_after_s": (
            _int(1, 7 * 86400),
            "After pushes have failed this long, every web page shows a banner and every write "
            "result a warning, until a push succeeds.",
        ),
    },
    "semantic": {
        "enabled": (_bool, "Blend a local embedding model into the ranking (`make semantic`)."),
        "weight": (_num(0, 1), "Lexical share of the blend (tuned by make quality)."),
        "candidates": (_int(10, 1000), "Notes each side (lexical, semantic) brings to it."),
        "text_chars": (_int(100, 100_000), "Characters of a note (title, body) embedded."),
    },
    "daily": {
        "folder": (
            _str,
            "Folder of the daily notes (`vault_daily`, `hoard daily`); set here, it wins over "
            "`.obsidian/daily-notes.json`'s `folder` (as do `format` and `template`).",
        ),
        "format": (_str, "Their file name as a Moment.js date format (default `YYYY-MM-DD`)."),
        "template": (_str, "The note a new daily note is made from (vault-relative)."),
    },
    "store": {
        "url": (
            _str,
            "Where shared state lives: empty, files of the state folder (one process); a "
            "`postgresql://` URL, one PostgreSQL database that every replica of the vault "
            "shares (ledger, proposals, grants, callers, web sessions, OAuth, locks). "
            "`HOARD_STORE_URL` wins over it; keep the password out of the vault (`~/.pgpass` "
            "or the variable). See docs/deployment.md.",
        ),
        "pool_size": (
            _int(2, 200),
            "Connections each replica keeps to the store at most (a write holds one for its "
            "note's lock and one for its ledger rows).",
        ),
    },
    "attachments": {
        "enabled": (
            _bool,
            "Index the text of PDF, Word (.docx), plain-text and CSV, and HTML files (and "
            "images, see `ocr`) so searches find them (see docs/attachments.md).",
        ),
        "max_mb": (
            _int(1, 4096),
            "Largest attachment read, in megabytes; a larger one is listed as `too_large`.",
        ),
        "max_pages": (
            _int(1, 1_000_000),
            "Most pages of one attachment; a PDF with more is listed as `too_many_pages`.",
        ),
        "time_s": (
            _int(1, 600),
            "Wall-clock and CPU seconds one attachment's extraction may take (in a child "
            "process, never the server); past it the file is listed as `time`.",
        ),
        "memory_mb": (
            _int(256, 65536),
            "Address space of an extraction process, in megabytes; a file that needs more "
            "is listed as `memory`.",
        ),
        "ocr": (
            _bool,
            "Read images' text with Debian's `tesseract-ocr` when it is installed (no effect "
            "without it).",
        ),
    },
    "mcp": {
        "chatgpt_tools": (
            _bool,
            "Offer the two tools ChatGPT's connectors call, `search(query)` and `fetch(id)` "
            "(thin twins of `vault_search` and `vault_read`; private notes never reach them). "
            "Turn off for clients that do not want them.",
        ),
    },
}

SECTIONS: dict[str, type[Any]] = {
    "contract": ContractConfig,
    "search": SearchConfig,
    "limits": LimitsConfig,
    "proposals": ProposalsConfig,
    "writes": WritesConfig,
    "rerank": RerankConfig,
    "git": GitConfig,
    "semantic": SemanticConfig,
    "mcp": McpConfig,
    "daily": DailyConfig,
    "store": StoreConfig,
    "attachments": AttachmentsConfig,
}


def retired_keys(data: Mapping[str, Any]) -> list[str]:
    """The keys of a parsed ``hoard.toml`` that are no longer configurable (ignored by
    :func:`parse_config`; the caller warns about each), as ``section.key``."""
    search = data.get("search")
    if not isinstance(search, dict):
        return []
    return [f"search.{k}" for k in search if k in RETIRED_SEARCH_KEYS]


def parse_config(data: Mapping[str, Any]) -> Config:
    """Validate a parsed ``hoard.toml`` mapping into a :class:`Config`. Pure. The keys of
    :func:`retired_keys` are skipped, not refused, so an older file keeps working."""
    top: dict[str, Any] = {}
    sections: dict[str, Any] = {}
    for key, value in data.items():
        if key in SECTIONS:
            if not isinstance(value, dict):
                raise ConfigError(key, "must be a table ([" + key + "])")
            kwargs: dict[str, Any] = {}
            for sub, sv in value.items():
                spec = SCHEMA[key].get(sub)
                if key == "search" and sub in RETIRED_SEARCH_KEYS:
                    continue
                if spec is None:
                    raise ConfigError(f"{key}.{sub}", "unknown key")
                kwargs[sub] = spec[0](f"{key}.{sub}", sv)
            sections[key] = SECTIONS[key](**kwargs)
        elif key in SCHEMA[""]:
            top[key] = SCHEMA[""][key][0](key, value)
        else:
            raise ConfigError(key, "unknown key")
    cfg = Config(**top, **sections)
    if cfg.contract.tags_min > cfg.contract.tags_max:
        raise ConfigError("contract.tags_min", "is larger than contract.tags_max")
    if cfg.rerank.enabled and not cfg.rerank.url.startswith(("http://", "https://")):
        raise ConfigError("rerank.url", "must be an http:// or https:// URL when rerank is enabled")
    if cfg.store.url and not cfg.store.url.startswith(("postgresql://", "postgres://")):
        raise ConfigError("store.url", "must be a postgresql:// URL (or empty: the state folder)")
    return cfg
