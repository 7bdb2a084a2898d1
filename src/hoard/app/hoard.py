"""The service façade: every use-case of hoard, and (from the write issue on) the only write
path. Surfaces (CLI, MCP tools, HTTP) call this and nothing below it.

One :class:`Hoard` per vault and process. It is thread-safe: the MCP SDK runs plain tools in
worker threads.
"""

from __future__ import annotations

import logging
import sqlite3
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from hoard.adapters.fs.atomic import sweep_staging
from hoard.adapters.fs.background import run_at_low_priority
from hoard.adapters.fs.places import default_state_dir
from hoard.adapters.fs.vault import Vault
from hoard.adapters.fs.watcher import Watcher
from hoard.adapters.index.graph import backlinks, broken_links, outgoing
from hoard.adapters.index.rows import frontmatter_of
from hoard.adapters.index.store import Index, ProgressFn
from hoard.adapters.ledger.store import AccessRequest, Ledger
from hoard.adapters.search.fallback import SubstringSearcher
from hoard.adapters.search.fts import (
    Fts5Searcher,
    SearchOutcome,
    SearchRequest,
)
from hoard.adapters.search.rerank import HttpReranker, Reranker
from hoard.app.honesty import Budget, Honesty
from hoard.app.search_rerank import is_contested, rerank_step
from hoard.app.writes.common import iso
from hoard.app.writes.write_path import WritePath
from hoard.core.byte_window import utf8_window
from hoard.core.config import Config, load_config
from hoard.core.contract import check_contract
from hoard.core.errors import Forbidden, HoardError, InvalidArgument, NotFound, Protected, TooLarge
from hoard.core.globs import matches_any
from hoard.core.models import (
    BrokenLink,
    CheckResult,
    CheckViolation,
    IndexResult,
    LinksResult,
    ListEntry,
    ListResult,
    OutgoingLink,
    PolicyResult,
    ReadResult,
    SearchHit,
    SearchResult,
)
from hoard.core.note import revision_of
from hoard.core.paths import normalize_note_path, normalize_rel_path
from hoard.core.policy import OWNER, Caller, is_protected, may_see, policy_notes

log = logging.getLogger("hoard")

MODES = ("natural", "fts")
RERANK_CHOICES = ("auto", "on", "off")
MAX_LIMIT = 100
READ_HARD_CAP = 256 * 1024 * 1024
STAT_WALK_INTERVAL_S = 1.0


class Hoard:
    """A vault, its index and everything hoard does with them."""

    def __init__(
        self,
        vault: Path,
        state_dir: Path | None = None,
        config: Config | None = None,
        *,
        watch: bool = False,
        progress: ProgressFn | None = None,
    ) -> None:
        self.config = config if config is not None else load_config(vault)
        self.vault = Vault(vault, self.config)
        self.state_dir = (state_dir or default_state_dir(self.vault.root)).resolve()
        if self.state_dir == self.vault.root or self.state_dir.is_relative_to(self.vault.root):
            raise InvalidArgument(
                "the state folder must be outside the vault", state_dir=str(self.state_dir)
            )
        self.state_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
        self.ledger = Ledger(self.state_dir / "ledger.db")
        self.index = Index(self.state_dir / "index.db", self.vault, self.config)
        self.searcher = Fts5Searcher(self.index, self.config)
        self.fallback = SubstringSearcher(self.vault, self.config)
        rr = self.config.rerank
        self.reranker: Reranker | None = (
            HttpReranker(rr.url, rr.timeout_ms / 1000) if rr.enabled and rr.url else None
        )
        self.watcher: Watcher | None = Watcher(self.vault.root, self.index) if watch else None
        self._startup = self.index.open_checked(
            progress, self.watcher.start if self.watcher is not None else None
        )
        self.owner = OWNER
        self.writes = WritePath(self)
        self.honesty = Honesty(self)
        self._recover_at_startup()
        self._last_walk = time.monotonic()
        self._repair_lock = threading.Lock()
        self._repairing = False
        if watch:
            # A long-running server also runs the deep integrity check (startup trusted a
            # file that passed it before and has not changed since) and warms the typo
            # vocabulary, both off the request path.
            threading.Thread(
                target=self._background_start, name="hoard-deep-check", daemon=True
            ).start()

    def _background_start(self) -> None:
        try:
            problem = run_at_low_priority(lambda: self.index.check(deep=True), "hoard-check")
            if problem is not None:
                log.warning("the deep index check failed (%s); rebuilding", problem)
                self._schedule_repair()
                return
            self.searcher.vocab.warm(self.index.reader_token())
        except Exception as exc:  # a background check must never take the server down
            log.warning("background index check failed: %s", exc)

    def _recover_at_startup(self) -> None:
        """Sweep stage files a crash left behind; finish journaled transactions that can be
        finished safely, and log the ones that cannot."""
        for rel in sweep_staging(self.vault):
            log.warning("removed a stage file left by an interrupted write: %s", rel)
        if n := self.writes.reconcile_intents():
            log.warning("recorded the outcome of %d change(s) a crash interrupted", n)
        pending = self.writes.records.unfinished_transactions(include_stuck=True)
        if not pending:
            return
        for item in self.writes.recover(caller=OWNER).transactions:
            if item.state == "done":
                log.warning("completed interrupted transaction %s", item.transaction_id)
            else:
                log.error(
                    "transaction %s is %s: %s (hoard recover %s)",
                    item.transaction_id,
                    item.state,
                    item.detail,
                    item.transaction_id,
                )

    def close(self) -> None:
        if self.watcher is not None:
            self.watcher.stop()
        self.index.close()
        self.ledger.close()

    def __enter__(self) -> Hoard:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- freshness --------------------------------------------------------------------------

    def ensure_fresh(self) -> None:
        """Before a read of the index: with the watcher running, nothing to do (it applies
        changes as they happen); without it, a stat walk at most once a second."""
        if self.watcher is not None and self.watcher.running:
            return
        now = time.monotonic()
        if now - self._last_walk >= STAT_WALK_INTERVAL_S:
            self._last_walk = now
            self.index.sync()

    # -- access -----------------------------------------------------------------------------

    def _require(self, caller: Caller, scope: str) -> None:
        if not caller.has(scope):
            raise Forbidden(
                f"caller {caller.name!r} lacks the {scope!r} scope",
                scope=scope,
                caller=caller.name,
            )

    def visibility(self, caller: Caller) -> Callable[[str], bool] | None:
        """A predicate for what ``caller`` may see, or ``None`` when it sees everything."""
        protected = self.config.protected
        if not protected or caller.owner:
            return None
        grants = [g for g in self.ledger.active_grants() if g.caller == caller.name]
        now = time.time()
        return lambda path: may_see(path, caller, protected, grants, now)

    def check_visible(self, path: str, caller: Caller) -> None:
        if caller.owner or not is_protected(path, self.config.protected):
            return
        seen = self.visibility(caller)
        if seen is not None and not seen(path):
            raise Protected(
                f"{path!r} is protected; ask the owner for a grant (vault_request_access)",
                path=path,
            )

    def request_access(self, glob: str, reason: str, caller: Caller) -> AccessRequest:
        self._require(caller, "read")
        if not isinstance(glob, str) or not isinstance(reason, str):
            raise InvalidArgument("glob and reason must be strings")
        return self.ledger.request_access(caller.name, glob, reason)

    def policy(self, caller: Caller) -> PolicyResult:
        grants = [
            {"grant_id": g.grant_id, "glob": g.glob, "expires_at": iso(g.expires_at)}
            for g in self.ledger.active_grants()
            if g.caller == caller.name
        ]
        return PolicyResult(
            caller=caller.name,
            scopes=sorted(caller.scopes),
            write_mode=caller.write_mode,
            private=list(self.config.private),
            protected=list(self.config.protected),
            grants=grants,
            notes=policy_notes(caller, bool(self.config.protected)),
        )

    # -- search -----------------------------------------------------------------------------

    def search(
        self,
        query: str,
        limit: int = 10,
        folder: str | None = None,
        mode: str = "natural",
        rerank: str = "auto",
        visible: Callable[[str], bool] | None = None,
        caller: Caller = OWNER,
    ) -> SearchResult:
        t0 = time.perf_counter()
        self._require(caller, "read")
        allowed = self.visibility(caller)
        if allowed is not None:
            extra = visible
            visible = allowed if extra is None else (lambda p: allowed(p) and extra(p))
        if not isinstance(query, str):
            raise InvalidArgument("query must be a string")
        if mode not in MODES:
            raise InvalidArgument(f"mode must be one of {', '.join(MODES)}", mode=mode)
        if rerank not in RERANK_CHOICES:
            raise InvalidArgument(
                f"rerank must be one of {', '.join(RERANK_CHOICES)}", rerank=rerank
            )
        if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= MAX_LIMIT:
            raise InvalidArgument(f"limit must be a whole number from 1 to {MAX_LIMIT}")
        folder_rel = normalize_rel_path(folder, allow_root=True) if folder else None
        reranker = self.reranker if rerank != "off" else None
        fetch = max(limit, self.config.rerank.shortlist) if reranker else limit
        req = SearchRequest(query, fetch, folder_rel or None, mode, visible)
        error: str | None = None
        try:
            self.ensure_fresh()
            outcome = self.searcher.search(req)
        except HoardError:
            raise
        except (sqlite3.Error, OSError) as exc:
            error = f"index unusable ({type(exc).__name__}: {exc}); answered by a substring scan"
            log.warning("search fell back to a substring scan: %s", exc)
            self._schedule_repair()
            outcome = self._fallback(req)
        hits = [
            SearchHit(h.path, h.title, h.score, h.snippet, h.folder, h.frontmatter)
            for h in outcome.hits
        ]
        contested = is_contested(hits)
        step = rerank_step(
            reranker,
            rerank,
            contested,
            outcome.engine,
            self.index.reader,
            query,
            hits,
            self.config.rerank.shortlist,
            self.is_private,
        )
        hits, engine, reranked, warnings = step.hits, step.engine, step.reranked, step.warnings
        error = error or step.error
        hits = hits[:limit]
        # Registered summaries carry their synthesis state; one budget for the whole page.
        by_path = self.honesty.warnings_for([h.path for h in hits], Budget(), caller=caller)
        for h in hits:
            h.warnings.extend(by_path.get(h.path, []))
        if outcome.corrections:
            warnings.append(
                {
                    "kind": "typo_corrections",
                    "message": "some words had no match; close spellings were searched too "
                    "(their hits rank below exact matches)",
                    "corrections": outcome.corrections,
                }
            )
        return SearchResult(
            query=query,
            engine=engine,
            error=error or outcome.error,
            contested=contested,
            reranked=reranked,
            hidden_protected=outcome.hidden,
            took_ms=round((time.perf_counter() - t0) * 1000, 3),
            results=hits,
            warnings=warnings,
        )

    def _fallback(self, req: SearchRequest) -> SearchOutcome:
        if req.mode == "fts":
            # The FTS5 grammar has no substring meaning; scan for its words instead.
            req = SearchRequest(
                req.query.replace('"', " "), req.limit, req.folder, "natural", req.visible
            )
        return self.fallback.search(req)

    def _schedule_repair(self) -> None:
        """Check and rebuild a failing index in the background, once at a time."""
        with self._repair_lock:
            if self._repairing:
                return
            self._repairing = True

        def repair() -> None:
            try:
                problem = self.index.check()
                if problem is not None:
                    log.warning("rebuilding the index: %s", problem)
                    self.index.rebuild()
            except Exception as exc:
                log.error("index repair failed: %s", exc)
            finally:
                with self._repair_lock:
                    self._repairing = False

        threading.Thread(target=repair, name="hoard-repair", daemon=True).start()

    # -- read, list, links --------------------------------------------------------------------

    def note_size(self, path: object) -> int | None:
        """See :meth:`hoard.adapters.fs.vault.Vault.note_size` (no access check: a size only)."""
        return self.vault.note_size(path)

    def read(
        self, path: str, offset: int = 0, max_bytes: int | None = None, caller: Caller = OWNER
    ) -> ReadResult:
        self._require(caller, "read")
        self.check_visible(normalize_note_path(path), caller)
        ceiling = self.config.limits.read_max_bytes
        if isinstance(offset, bool) or not isinstance(offset, int) or offset < 0:
            raise InvalidArgument("offset must be a whole number of bytes, 0 or more")
        if max_bytes is None:
            max_bytes = ceiling
        elif isinstance(max_bytes, bool) or not isinstance(max_bytes, int) or max_bytes < 1:
            raise InvalidArgument("max_bytes must be a whole number of bytes, 1 or more")
        max_bytes = min(max_bytes, ceiling)
        rel, raw, size = self.vault.read_note(path, max_bytes=READ_HARD_CAP + 1)
        if size > READ_HARD_CAP:
            raise TooLarge(
                f"{rel!r} is {size} bytes; hoard reads notes up to {READ_HARD_CAP}",
                path=rel,
                size=size,
            )
        size = len(raw)
        content, end, valid = utf8_window(raw, offset, max_bytes)
        warnings: list[dict[str, Any]] = []
        if not valid:
            warnings.append(
                {
                    "kind": "encoding",
                    "message": "the note is not valid UTF-8; bad bytes are shown as U+FFFD",
                }
            )
        frontmatter = frontmatter_of(raw)
        warnings.extend(self.honesty.warnings_for([rel], Budget(), caller=caller).get(rel, []))
        return ReadResult(
            path=rel,
            revision=revision_of(raw),
            size=size,
            content=content,
            offset=offset,
            next_offset=end if end < size else None,
            truncated=end < size,
            frontmatter=frontmatter,
            warnings=warnings,
        )

    def list(
        self, path: str = "", recursive: bool = False, limit: int = 500, caller: Caller = OWNER
    ) -> ListResult:
        self._require(caller, "read")
        cap = self.config.limits.list_max_entries
        if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= cap:
            raise InvalidArgument(f"limit must be a whole number from 1 to {cap}")
        seen = self.visibility(caller)
        if seen is not None and path and not seen(normalize_rel_path(path) + "/"):
            raise Protected(f"{path!r} is protected", path=path)
        rel, entries, truncated = self.vault.list_dir(path or "", recursive, limit, seen)
        return ListResult(
            path=rel,
            entries=[ListEntry(e.path, e.kind, e.size, iso(e.mtime)) for e in entries],
            truncated=truncated,
        )

    def links(self, path: str, caller: Caller = OWNER) -> LinksResult:
        self._require(caller, "read")
        rel = normalize_note_path(path)
        self.check_visible(rel, caller)
        seen = self.visibility(caller)
        self.ensure_fresh()
        self.index.refresh_paths([rel])
        conn = self.index.reader()
        row = conn.execute("SELECT id FROM notes WHERE path = ?", (rel,)).fetchone()
        if row is None:
            raise NotFound(f"no note at {rel!r}", path=rel)
        out = outgoing(conn, row[0], rel)
        broken: list[str] = []
        for o in out:
            if o.broken and o.target not in broken:
                broken.append(o.target)
        back = backlinks(conn, rel)
        if seen is not None:
            back = [b for b in back if seen(b)]

        def shown(target: str | None) -> str | None:
            return target if seen is None or target is None or seen(target) else None

        return LinksResult(
            path=rel,
            outgoing=[
                OutgoingLink(
                    o.target,
                    shown(o.resolved_path),
                    o.broken,
                    o.heading,
                    o.alias,
                    o.embed,
                    o.line,
                )
                for o in out
            ],
            backlinks=back,
            broken=broken,
        )

    # -- maintenance ----------------------------------------------------------------------------

    def is_private(self, path: str) -> bool:
        return matches_any(path, self.config.private)

    def check(self) -> CheckResult:
        """Every non-private note against the contract, plus every broken link."""
        violations: list[CheckViolation] = []
        checked = skipped = 0
        for fs in sorted(self.vault.walk(), key=lambda f: f.path):
            if self.is_private(fs.path):
                skipped += 1
                continue
            checked += 1
            try:
                _, raw = self.vault.read_full(fs.path, self.config.limits.note_max_bytes)
            except HoardError as exc:
                violations.append(CheckViolation(fs.path, "file", exc.code, exc.message))
                continue
            for v in check_contract(raw, self.config.contract):
                violations.append(CheckViolation(fs.path, v.field, v.rule, v.message))
        self.ensure_fresh()
        broken = [BrokenLink(p, t, ln) for p, t, ln in broken_links(self.index.reader())]
        return CheckResult(checked, violations, broken, skipped)

    def reindex(self, rebuild: bool = False, progress: ProgressFn | None = None) -> IndexResult:
        report = self.index.rebuild(progress) if rebuild else self.index.sync(progress)
        self._last_walk = time.monotonic()
        return IndexResult(
            notes=self.index.note_count(),
            added=report.added,
            updated=report.updated,
            removed=report.removed,
            failed=report.failed,
            rebuilt=rebuild,
            elapsed_ms=round(report.elapsed_ms, 1),
        )

    @property
    def startup_report(self) -> IndexResult:
        r = self._startup
        return IndexResult(
            self.index.note_count(),
            r.added,
            r.updated,
            r.removed,
            r.failed,
            self.index.last_problem is not None,
            round(r.elapsed_ms, 1),
            self.index.last_problem,
        )
