"""The ``orient`` briefing: what an agent should know as it starts a session. What changed
since its cursor, what waits for a person's confirmation, and which summaries went stale,
in a short text bounded in bytes, with the cursor to pass next time."""

from __future__ import annotations

from hoard.adapters.fs.cursors import CursorFile
from hoard.adapters.ledger.changes import registered_summaries
from hoard.app.deps import Deps
from hoard.app.honesty import Budget, Honesty
from hoard.app.orientation.context import cut_utf8
from hoard.app.orientation.recent import RecentChanges
from hoard.app.writes.write_path import WritePath
from hoard.core.agent_results import Briefing
from hoard.core.errors import InvalidArgument
from hoard.core.policy import Caller

MIN_BYTES = 256
MAX_BYTES = 64 * 1024
CHANGES_SHOWN = 15


class Briefer:
    def __init__(
        self, deps: Deps, recent: RecentChanges, writes: WritePath, honesty: Honesty
    ) -> None:
        self.deps = deps
        self.changes = recent
        self.writes = writes
        self.honesty = honesty

    def briefing(
        self, *, caller: Caller, cursor: str | None = None, max_bytes: int = 2048
    ) -> Briefing:
        if isinstance(max_bytes, bool) or not isinstance(max_bytes, int):
            raise InvalidArgument("max_bytes must be a whole number")
        if not MIN_BYTES <= max_bytes <= MAX_BYTES:
            raise InvalidArgument(f"max_bytes must be from {MIN_BYTES} to {MAX_BYTES}")
        recent = self.changes.recent(caller=caller, cursor=cursor, limit=CHANGES_SHOWN)
        pending = self.writes.proposals(caller=caller).proposals
        stale = self._stale(caller)
        lines = [f"hoard briefing for {caller.name} (a credential holder, not a person)."]
        if recent.changes:
            head = "Changed since you last looked" if cursor else "Recent changes"
            lines.append(f"{head} (newest first):")
            lines += [
                f"- {c.path} ({c.title}): {c.kind} by {c.who} at {c.at}; {c.summary}"
                for c in recent.changes
            ]
            if recent.more:
                lines.append("- ... and older ones: vault_recent lists them all")
        else:
            lines.append("Nothing changed since you last looked." if cursor else "No changes.")
        if pending:
            lines.append(f"Waiting for confirmation ({len(pending)}):")
            lines += [f"- {p.proposal_id}: {p.tool} {p.path} by {p.caller}" for p in pending[:10]]
        if stale:
            lines.append("Stale summaries (a source changed since they were written):")
            lines += [f"- {p}" for p in stale[:10]]
        text = "\n".join(lines) + "\n"
        cut = cut_utf8(text, max_bytes)
        if cut != text:
            cut = cut_utf8(text, max_bytes - 16).rsplit("\n", 1)[0] + "\n[... cut]\n"
        return Briefing(
            text=cut,
            cursor=recent.latest_cursor,
            changes=len(recent.changes),
            pending_proposals=len(pending),
            stale_summaries=len(stale),
        )

    def session_start(self, *, caller: Caller, max_bytes: int = 2048) -> Briefing:
        """The briefing since this caller's previous session start (or of recent changes,
        the first time); the cursor is kept for next time only once the text is made."""
        cursors = CursorFile(self.deps.state_dir)
        brief = self.briefing(caller=caller, cursor=cursors.get(caller.name), max_bytes=max_bytes)
        cursors.put(caller.name, brief.cursor)
        return brief

    def _stale(self, caller: Caller) -> list[str]:
        seen = self.deps.access.visibility(caller=caller)
        paths = [p for p in registered_summaries(self.deps.ledger) if seen is None or seen(p)]
        warned = self.honesty.warnings_for(paths, Budget(), caller=caller)
        return [p for p in paths if any(w["state"] == "stale" for w in warned.get(p, []))]
