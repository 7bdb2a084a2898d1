"""The composition root: one :class:`Hoard` per vault and process builds the adapters and the
use-cases once and exposes them. Surfaces (CLI, MCP tools, HTTP) call its use-cases and
nothing below them; nothing in the app layer imports this module.

It is thread-safe: the MCP SDK runs plain tools in worker threads.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

from hoard import __version__
from hoard.adapters.attachments.indexer import Attachments
from hoard.adapters.fs.atomic import sweep_staging
from hoard.adapters.fs.config_file import load_config
from hoard.adapters.fs.places import default_state_dir, make_private_dir
from hoard.adapters.fs.vault import Vault
from hoard.adapters.fs.watcher import Watcher
from hoard.adapters.index.store import Index, ProgressFn
from hoard.adapters.ledger.store import MIGRATIONS as LEDGER_MIGRATIONS
from hoard.adapters.ledger.store import Ledger
from hoard.adapters.search.fallback import SubstringSearcher
from hoard.adapters.search.fts import Fts5Searcher
from hoard.adapters.search.rerank import HttpReranker, Reranker
from hoard.adapters.semantic.service import Semantic
from hoard.adapters.sessions import MIGRATIONS as SESSION_MIGRATIONS
from hoard.adapters.sessions import SESSIONS_FILE, SessionStore
from hoard.adapters.store.replica import ReplicaLink
from hoard.adapters.store.shared import SharedStore, default_replica_name, store_url
from hoard.app.access import Access
from hoard.app.admin import Admin
from hoard.app.callers import CallerFile
from hoard.app.daily import Daily
from hoard.app.deps import Deps
from hoard.app.edit import Edits
from hoard.app.freshness import IndexKeeper
from hoard.app.git_history import GitHistory
from hoard.app.honesty import Honesty
from hoard.app.maintenance import Maintenance
from hoard.app.move import Moves
from hoard.app.oauth_grants import GrantStore, open_grants
from hoard.app.orientation.briefing import Briefer
from hoard.app.orientation.chat import ChatTools
from hoard.app.orientation.context import NoteContext
from hoard.app.orientation.feed import ChangeFeed
from hoard.app.orientation.guide import Guides
from hoard.app.orientation.recent import RecentChanges
from hoard.app.owner import OwnerDesk
from hoard.app.read_code import CodeRunner
from hoard.app.reading import Reading
from hoard.app.search import SearchFlow
from hoard.app.sessions import Sessions
from hoard.app.similar import Similar
from hoard.app.sync.permit import SyncPermit
from hoard.app.sync.service import Sync
from hoard.app.writes.clobbers import Clobbers
from hoard.app.writes.core import WriteCore
from hoard.app.writes.outside import OutsideSaves
from hoard.app.writes.stage_recovery import settle_stage_files
from hoard.app.writes.write_path import WritePath
from hoard.core.config import Config
from hoard.core.errors import InvalidArgument
from hoard.core.models import IndexResult
from hoard.core.policy import OWNER

log = logging.getLogger("hoard")


def checked_state_dir(vault: Vault, state_dir: Path | None) -> Path:
    """The state folder (created, owner-only), refused when it lies inside the vault."""
    state = (state_dir or default_state_dir(vault.root)).resolve()
    if state == vault.root or state.is_relative_to(vault.root):
        raise InvalidArgument("the state folder must be outside the vault", state_dir=str(state))
    make_private_dir(state)
    return state


class Hoard:
    """A vault, its index and ledger, and every use-case over them."""

    def __init__(
        self,
        vault: Path,
        state_dir: Path | None = None,
        config: Config | None = None,
        *,
        watch: bool = False,
        progress: ProgressFn | None = None,
        code_workers: int = 2,
        sync_permit: SyncPermit | None = None,
        replica: str | None = None,
    ) -> None:
        self.config = config if config is not None else load_config(vault)
        self.vault = Vault(vault, self.config)
        self.state_dir = checked_state_dir(self.vault, state_dir)
        self._open_shared(replica)
        self.index = Index(self.state_dir / "index.db", self.vault, self.config)
        self.index.on_changed = OutsideSaves(
            self.ledger, self.vault, self.config, self.path_locks
        ).notice
        self.searcher = Fts5Searcher(self.index, self.config)
        self.watcher = Watcher(self.vault.root, self.index) if watch else None
        self._startup = self.index.open_checked(
            progress, self.watcher.start if self.watcher is not None else None
        )
        self.keeper = IndexKeeper(self.index, self.watcher)
        if self.watcher is not None:
            self.watcher.on_error = self.keeper.missed_write
        self.semantic = (
            Semantic(self.index, self.state_dir, self.config.semantic)
            if self.config.semantic.enabled
            else None
        )
        self.attachments = self._open_attachments()
        self.owner = OWNER
        self.access = Access(self.config, self.ledger)
        self.deps = Deps(
            config=self.config,
            vault=self.vault,
            index=self.index,
            ledger=self.ledger,
            access=self.access,
            state_dir=self.state_dir,
            ensure_fresh=self.keeper.ensure_fresh,
            locks=self.path_locks,
            index_failed=self.keeper.failed,
            index_missed=self.keeper.missed_write,
            attachments=self.attachments,
        )
        self._build_use_cases(code_workers)
        if sync_permit is None and self.replica_link is not None:
            sync_permit = self.replica_link.sync_permit
        self.sync = Sync(self.writes, sync_permit)
        if self.replica_link is not None:
            self.replica_link.start(self.index.refresh_paths, self.keeper.missed_write)
        self._recover_at_startup()
        if watch:
            self._start_background()

    def _start_background(self) -> None:
        """A server's background work: sync, the index's deep check, attachments' text and
        the embeddings (a one-shot CLI process loads the model when a command needs it and
        uses the vectors already there)."""
        self.sync.start()
        self.keeper.start_background_check(self.searcher.vocab)
        if self.attachments is not None:
            self.attachments.start()
        if self.semantic is not None:
            self.semantic.start()

    def _open_shared(self, replica: str | None) -> None:
        """The shared state, the ledger on it, the per-path locks and the stage files' tag;
        with a PostgreSQL store, this replica's link to the others (their change feed,
        roster and once-only jobs), made before the index opens so that the feed starts
        after the changes the index is built with."""
        self.shared = SharedStore(
            self.state_dir,
            store_url(self.config),
            replica or default_replica_name(self.state_dir),
            self.config.store.pool_size,
        )
        server = self.shared.server
        self.replica_link = (
            None if server is None else ReplicaLink(server, self.shared.replica, __version__)
        )
        self.ledger = Ledger(
            self.shared.database("ledger", LEDGER_MIGRATIONS, "ledger.db"),
            None if self.replica_link is None else self.replica_link.outbox,
        )
        self.ledger.replica = None if self.shared.server is None else self.shared.replica
        self.path_locks = self.shared.path_locks()
        self.vault.stage_tag = self.shared.stage_tag()

    def _open_attachments(self) -> Attachments | None:
        """Attachments' text (``None`` when ``[attachments] enabled = false``); the
        watcher tells it when files that are not notes change."""
        if not self.config.attachments.enabled:
            return None
        attachments = Attachments(self.vault, self.state_dir, self.config.attachments)
        if self.watcher is not None:
            self.watcher.on_other_files = attachments.kick
        return attachments

    def _build_use_cases(self, code_workers: int) -> None:
        rr = self.config.rerank
        reranker: Reranker | None = (
            HttpReranker(rr.url, rr.timeout_ms / 1000) if rr.enabled and rr.url else None
        )
        self.honesty = Honesty(self.deps)
        self.similarity = Similar(self.deps, self.semantic)
        self.write_core = WriteCore(self.deps, self.similarity)
        self.writes = WritePath(self.write_core)
        self.clobbers = Clobbers(self.writes)
        self.edits = Edits(self.writes)
        self.daily = Daily(self.writes).daily
        self.moves = Moves(self.writes)
        self.git_history = GitHistory(self.deps)
        fallback = SubstringSearcher(self.vault, self.config)
        self.searching = SearchFlow(
            self.deps, self.keeper, self.searcher, fallback, reranker, self.honesty, self.semantic
        )
        self.reading = Reading(self.deps, self.honesty)
        self.maintenance = Maintenance(self.deps, self.keeper)
        self.admin = Admin(self.deps)
        self.recent_changes = RecentChanges(self.deps)
        self.note_context = NoteContext(self.reading, self.similarity, self.honesty, self.writes)
        self.briefer = Briefer(self.deps, self.recent_changes, self.writes, self.honesty)
        self.chat = ChatTools(self.access, self.searching, self.reading)
        self.guides = Guides(self.deps, self.reading)
        self.read_methods: dict[str, Callable[..., Any]] = {
            "search": self.searching.search,
            "read": self.reading.read,
            "links": self.reading.links,
            "list": self.reading.list,
        }
        self.code = CodeRunner(self.read_methods, code_workers)
        self._session_store: SessionStore | None = None
        self._grant_store: GrantStore | None = None

    def change_feed(self) -> ChangeFeed:
        """A new feed of the notes that change from now on (resource subscriptions)."""
        return ChangeFeed(self.deps)

    def owner_tools(
        self, tokens: CallerFile, *, private_writes: bool = False
    ) -> tuple[Sessions, OwnerDesk]:
        """The web app's use-cases (sessions, the owner's desk): they need the tokens file,
        which the server opens, so they are built on demand. ``private_writes``: the
        owner's sessions may change private notes (a server only this machine reaches)."""
        if self._session_store is None:
            db = self.shared.database("sessions", SESSION_MIGRATIONS, SESSIONS_FILE)
            self._session_store = SessionStore(db)
        desk = OwnerDesk(self.deps, tokens, self.sync.open_conflicts)
        return Sessions(self.deps, self._session_store, tokens, private_writes=private_writes), desk

    def grant_store(self) -> GrantStore:
        """What the OAuth issuer keeps (opened on first use; the replicas share it)."""
        if self._grant_store is None:
            self._grant_store = open_grants(self.shared)
        return self._grant_store

    def _recover_at_startup(self) -> None:
        """Sweep stage files a crash left behind; finish journaled transactions that can be
        finished safely, and log the ones that cannot. A replica of a shared store settles
        only its own (and those of hoard before replicas), each under its note's lock."""
        for rel in settle_stage_files(self.write_core):
            log.warning("put an outside save back at %s after an interrupted write", rel)
        for rel in sweep_staging(self.vault):
            log.warning("removed a stage file left by an interrupted write: %s", rel)
        if n := self.write_core.reconcile_intents():
            log.warning("recorded the outcome of %d change(s) a crash interrupted", n)
        if not self.write_core.records.unfinished_transactions(include_stuck=True, mine=True):
            return
        for item in self.writes.notes.recover(caller=OWNER).transactions:
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

    @property
    def startup_report(self) -> IndexResult:
        return self.maintenance.startup_report(self._startup)

    def close(self) -> None:
        self.sync.stop()
        if self.replica_link is not None:
            self.replica_link.stop()
        self.code.close()
        if self.attachments is not None:
            self.attachments.close()
        if self.watcher is not None:
            self.watcher.stop()
        else:  # a command's repair of a broken index finishes before the process ends
            self.keeper.wait_for_repair()
        if self._session_store is not None:
            self._session_store.close()
        if self._grant_store is not None:
            self._grant_store.close()
        if self.semantic is not None:
            self.semantic.close()
        self.index.close()
        self.ledger.close()
        self.shared.close()

    def __enter__(self) -> Hoard:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
