"""The HTTP part of ``hoard bench``: one session of the official MCP client (Streamable
HTTP, bearer token, loopback) against a running ``hoard serve --http``, one phase a tool.

Writes go only to scratch notes under ``bench-scratch/`` that the bench creates, and every
note it creates is archived before it ends."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from hoard.benchmark.api_phases import api_phases
from hoard.benchmark.corpus import LARGE_BYTES, SCRATCH, Inputs, scratch_note
from hoard.benchmark.edit_phases import edit_phases
from hoard.benchmark.mcp_runner import ArgsFor, Check, Runner, Targets, error_text, structured
from hoard.benchmark.orient_phases import orient_phases
from hoard.benchmark.queries import Query
from hoard.benchmark.rows import Row

LARGE_SCRATCH = f"{SCRATCH}/large-read.md"


def status_is(want: str) -> Check:
    def check(i: int, d: dict[str, Any]) -> str | None:
        return None if d.get("status") == want else f"status {d.get('status')!r}, want {want!r}"

    return check


def read_check(size: int) -> Check:
    def check(i: int, d: dict[str, Any]) -> str | None:
        if d.get("truncated") or d.get("size") != size:
            return f"size {d.get('size')} truncated={d.get('truncated')}, want {size}"
        return None

    return check


def dry_check(i: int, d: dict[str, Any]) -> str | None:
    pre = d.get("preflight") or {}
    if d.get("status") != "dry_run" or pre.get("revision_check") != "create":
        return f"status {d.get('status')!r} preflight {pre.get('revision_check')!r}"
    if pre.get("violations"):
        return f"violations {pre['violations']}"
    return None


def code_check(i: int, d: dict[str, Any]) -> str | None:
    return None if "result" in d else f"no result: {str(d)[:200]}"


class Phases:
    """The phases in order; ``facts`` collects what the receipt keeps besides the rows."""

    def __init__(
        self, r: Runner, inputs: Inputs, queries: Sequence[Query], rerank_configured: bool
    ) -> None:
        self.r = r
        self.inputs = inputs
        self.queries = list(queries)
        self.rerank_configured = rerank_configured
        self.facts: dict[str, Any] = {}
        self.large_path, self.large_size = inputs.large or (LARGE_SCRATCH, LARGE_BYTES)
        self.large_revision: str | None = None
        self.total = r.n + r.warmup

    def query(self, i: int) -> str:
        return self.queries[i % len(self.queries)].text

    async def setup(self) -> None:
        c = self.r.c
        policy = structured(await c.call_tool("vault_policy", {})) or {}
        self.facts["policy"] = {k: policy.get(k) for k in ("caller", "scopes", "write_mode")}
        if policy.get("write_mode") != "direct":
            raise RuntimeError(f"the bench token is not in direct write mode: {policy}")
        if self.inputs.large is None:
            # No note near 250 KB in the vault: write a scratch one to read.
            content = scratch_note("Bench note large", LARGE_BYTES, self.inputs.pool, 0)
            res = await c.call_tool("vault_write", {"path": LARGE_SCRATCH, "content": content})
            data = structured(res)
            if res.is_error or not data or data.get("status") != "written":
                raise RuntimeError(f"could not write the large scratch note: {error_text(res)}")
            self.large_revision = data.get("revision")

    async def floors(self, http: httpx2.AsyncClient) -> None:
        await self.r.phase(
            "policy", "MCP floor: vault_policy", "vault_policy", lambda i: {}, group="floor"
        )
        await self.r.healthz_phase(http)

    async def reads(self) -> None:
        small_path, small_size = self.inputs.small
        row, _ = await self.r.phase(
            "read_small",
            f"vault_read, small note ({small_size / 1024:.1f} KiB)",
            "vault_read",
            lambda i: {"path": small_path},
            read_check(small_size),
        )
        row.note = small_path
        row, _ = await self.r.phase(
            "read_large",
            f"vault_read, large note ({self.large_size / 1024:.0f} KiB)",
            "vault_read",
            lambda i: {"path": self.large_path},
            read_check(self.large_size),
        )
        row.note = self.large_path + (
            ": a scratch note the bench wrote" if self.inputs.large is None else ""
        )

    async def search(self) -> None:
        warmup = self.r.warmup
        found: dict[str, list[int]] = {}

        def check(i: int, d: dict[str, Any]) -> str | None:
            if d.get("engine") != "fts5" or d.get("error"):
                return f"engine {d.get('engine')!r} error {d.get('error')!r}"
            q = self.queries[i % len(self.queries)]
            if i >= warmup and q.relevant:
                paths = {h.get("path") for h in d.get("results", [])}
                tally = found.setdefault(q.kind, [0, 0])
                tally[0] += bool(paths & q.relevant)
                tally[1] += 1
            return None

        row, _ = await self.r.phase(
            "search", "vault_search", "vault_search", lambda i: {"query": self.query(i)}, check
        )
        hit = sum(v[0] for v in found.values())
        judged = sum(v[1] for v in found.values())
        row.note = f"{len(self.queries)} queries; known note in the top 10: {hit}/{judged}"
        self.facts["search_found_top10"] = {k: f"{v[0]}/{v[1]}" for k, v in found.items()}

        if not self.rerank_configured:
            rerank = self.r.row("search_rerank", "vault_search, rerank")
            rerank.skipped = "not configured"
            return
        row, outputs = await self.r.phase(
            "search_rerank",
            "vault_search, rerank on",
            "vault_search",
            lambda i: {"query": self.query(i), "rerank": "on"},
            check,
        )
        reranked = sum(1 for d in outputs if d and d.get("reranked"))
        row.note = f"reranked in {reranked} of {len(outputs)} answers"

    async def read_code(self) -> None:
        await self.r.phase(
            "code_trivial",
            "read_code, trivial script",
            "read_code",
            lambda i: {"code": "return 1 + 1;"},
            code_check,
        )
        await self.r.phase(
            "code_search",
            "read_code, one search call",
            "read_code",
            lambda i: {
                "code": "return (await call('search', {query: "
                + json.dumps(self.query(i))
                + "})).results.length;"
            },
            code_check,
        )

    async def links(self) -> None:
        notes = self.inputs.link_notes
        none_out = 0

        def check(i: int, d: dict[str, Any]) -> str | None:
            nonlocal none_out
            none_out += not d.get("outgoing")
            return None if isinstance(d.get("backlinks"), list) else "no backlinks list"

        row, _ = await self.r.phase(
            "links",
            "vault_links",
            "vault_links",
            lambda i: {"path": notes[i % len(notes)]},
            check,
        )
        row.note = f"{len(notes)} notes; {none_out} calls found no outgoing link"

    async def lists(self) -> None:
        for key, label, folder, entries, limit in self.inputs.lists:

            def check(i: int, d: dict[str, Any], want: int = min(entries, limit)) -> str | None:
                got = d.get("entries")
                if not isinstance(got, list) or (want and not got):
                    return f"{len(got) if isinstance(got, list) else got!r} entries"
                return None

            def args(i: int, folder: str = folder, limit: int = limit) -> dict[str, Any]:
                return {"path": folder, "limit": limit}

            row, _ = await self.r.phase(key, label, "vault_list", args, check)
            row.note = f"{folder or '/'}: {entries} entries, limit {limit}"
            if key == "list_500" and entries < 500:
                row.targets = []  # the target is for a folder of 500 notes

    async def raw(self, http: httpx2.AsyncClient) -> None:
        version = getattr(getattr(self.r.c, "session", None), "protocol_version", None)
        if isinstance(version, str) and version:
            self.r.protocol = version
        self.facts["protocol_version"] = self.r.protocol
        small_path = self.inputs.small[0]
        links = self.inputs.link_notes
        _, _, folder, _, limit = self.inputs.lists[0]
        calls: list[tuple[str, str, str, ArgsFor]] = [
            ("raw_policy", "raw POST: vault_policy", "vault_policy", lambda i: {}),
            (
                "raw_read_small",
                "raw POST: vault_read small",
                "vault_read",
                lambda i: {"path": small_path},
            ),
            (
                "raw_read_large",
                "raw POST: vault_read large",
                "vault_read",
                lambda i: {"path": self.large_path},
            ),
            (
                "raw_search",
                "raw POST: vault_search",
                "vault_search",
                lambda i: {"query": self.query(i)},
            ),
            (
                "raw_links",
                "raw POST: vault_links",
                "vault_links",
                lambda i: {"path": links[i % len(links)]},
            ),
            (
                "raw_list_500",
                f"raw POST: vault_list {folder or '/'}",
                "vault_list",
                lambda i: {"path": folder, "limit": limit},
            ),
        ]
        for key, label, tool, args_for in calls:
            await self.r.raw_phase(http, key, label, tool, args_for)

    async def writes(self) -> None:
        """Write phases on scratch notes, then archive each and read its history."""
        revisions = await self._write_phases()
        await self._retire_phases(revisions)

    def _scratch_text(self, i: int, tag: str) -> str:
        return scratch_note(
            f"Bench note {tag}{i}", 500, self.inputs.pool, 7919 * i + len(tag) * 131
        )

    async def _write_phases(self) -> list[Any]:
        """Dry run, create and overwrite; the revisions the overwrites left."""
        await self.r.phase(
            "write_dry",
            "vault_write dry run (500 B, new path)",
            "vault_write",
            lambda i: {
                "path": f"{SCRATCH}/dry-{i}.md",
                "content": self._scratch_text(i, "dry "),
                "dry_run": True,
            },
            dry_check,
        )
        _, created = await self.r.phase(
            "write_create",
            "vault_write real: create (500 B)",
            "vault_write",
            lambda i: {"path": f"{SCRATCH}/w-{i}.md", "content": self._scratch_text(i, "")},
            status_is("written"),
        )
        revisions = [d.get("revision") if d else None for d in created]
        _, overwritten = await self.r.phase(
            "write_overwrite",
            "vault_write real: overwrite, expected_revision (500 B)",
            "vault_write",
            lambda i: {
                "path": f"{SCRATCH}/w-{i}.md",
                "content": self._scratch_text(i + self.total, "v2 "),
                "expected_revision": revisions[i],
            },
            status_is("written"),
        )
        return [d.get("revision") if d else None for d in overwritten]

    async def _retire_phases(self, revisions: list[Any]) -> None:
        """Archive each written scratch note, then read the revision the archive kept."""
        _, archived = await self.r.phase(
            "archive",
            "vault_archive (expected_revision)",
            "vault_archive",
            lambda i: {
                "path": f"{SCRATCH}/w-{i}.md",
                "reason": "archived",
                "expected_revision": revisions[i],
            },
            status_is("archived"),
        )
        ids = [d.get("revision_id") if d else None for d in archived]

        def history_check(i: int, d: dict[str, Any]) -> str | None:
            if d.get("revision_id") != ids[i] or d.get("size") != 500:
                return f"revision {d.get('revision_id')!r} size {d.get('size')!r}"
            return None

        await self.r.phase(
            "history",
            "vault_history, one revision",
            "vault_history",
            lambda i: {"revision_id": ids[i]},
            history_check,
        )

    async def cleanup(self) -> None:
        """Archive the large scratch note, if the bench wrote one (untimed)."""
        if self.inputs.large is None and self.large_revision:
            res = await self.r.c.call_tool(
                "vault_archive",
                {
                    "path": LARGE_SCRATCH,
                    "reason": "archived",
                    "expected_revision": self.large_revision,
                },
            )
            data = structured(res)
            self.facts["large_scratch_archived"] = bool(
                data and data.get("status") == "archived" and not res.is_error
            )


async def run_phases(
    base: str,
    token: str,
    pid: int,
    n: int,
    warmup: int,
    inputs: Inputs,
    queries: Sequence[Query],
    rerank_configured: bool,
    targets: Targets,
    say: Callable[[str], None],
) -> tuple[list[Row], dict[str, Any]]:
    """Every HTTP phase in one client session; the rows and the facts for the receipt."""
    headers = {"Authorization": f"Bearer {token}"}
    async with (
        httpx2.AsyncClient(headers=headers, timeout=120.0) as hc,
        Client(streamable_http_client(f"{base}/mcp", http_client=hc)) as client,
        httpx2.AsyncClient(timeout=120.0) as plain,
    ):
        runner = Runner(client, base, token, pid, n, warmup, targets, say)
        p = Phases(runner, inputs, queries, rerank_configured)
        await p.setup()
        await p.floors(plain)
        await p.reads()
        await p.search()
        await api_phases(runner, plain, p.inputs.small, p.query)
        await p.read_code()
        await p.links()
        await orient_phases(runner, inputs.link_notes)
        await p.lists()
        await p.raw(plain)
        await p.writes()
        await edit_phases(runner, inputs.pool, p.query)
        await p.cleanup()
        return runner.rows, p.facts
