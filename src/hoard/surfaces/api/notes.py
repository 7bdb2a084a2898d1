"""Routes of one note: read it (with its revision as the ETag), its links and history, write
it under ``If-Match`` / ``If-None-Match: *``, edit part of it or move it under ``If-Match``,
archive it, restore a preserved revision, file a note with its index line."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from hoard.app.hoard import Hoard
from hoard.core.models import (
    ArchiveResult,
    FileNoteResult,
    HistoryResult,
    LinksResult,
    MoveResult,
    ReadResult,
    RestoreResult,
    RevisionContent,
    WriteResult,
)
from hoard.surfaces.api.bodies import (
    ArchiveBody,
    EditBody,
    FileNoteBody,
    MoveBody,
    NoteBody,
    RestoreBody,
)
from hoard.surfaces.api.etags import etag, expected_revision, if_match, none_match
from hoard.surfaces.api.framework import Body, Call, Op, Param, Reply

API_PREFIX = "/api/v1"
INLINE_READ_BYTES = 1 << 20
"""A ``GET`` of a note up to this size runs on the event loop, as ``vault_read`` does."""

NOTE_PATH = Param(
    "path", str, "Vault-relative note path, e.g. tech/hue-bridge.md.", required=True,
    where="path", slashes=True,
)  # fmt: skip
DRY_RUN = Param("dry_run", bool, "Check everything, change nothing; answer the preflight.", False)
WRITE_ERRORS = (400, 403, 404, 409, 412, 413, 422, 428)


def location(path: str) -> str:
    return f"{API_PREFIX}/notes/{quote(path)}"


def written(result: Any, revision: str | None, created: bool) -> Reply:
    """The reply to a write: 202 for a proposal, 201 (with Location) for a new note, else 200;
    the new revision is the ETag."""
    status = getattr(result, "status", "")
    if status == "proposed":
        return Reply(result, 202)
    if status == "dry_run":
        return Reply(result, 200)
    headers = {"ETag": etag(revision)} if revision else {}
    if created:
        return Reply(result, 201, {**headers, "Location": location(result.path)})
    return Reply(result, 200, headers)


def note_ops(hoard: Hoard) -> list[Op]:
    return [*_read_ops(hoard), *_write_ops(hoard), *_edit_ops(hoard)]


def _read_ops(hoard: Hoard) -> list[Op]:
    writes = hoard.writes

    def small(call: Call) -> bool:
        size = hoard.reading.note_size(call.params["path"])
        return size is None or size <= INLINE_READ_BYTES

    def get_note(call: Call) -> Reply:
        p = call.params
        part = {"heading": p["heading"], "block": p["block"]}
        r = hoard.reading.read(p["path"], p["offset"], p["max_bytes"], caller=call.caller, **part)
        headers = {"ETag": etag(r.revision)}
        if_none = call.headers.get("if-none-match")
        if if_none is not None and none_match(if_none, r.revision):
            return Reply(None, 304, headers)
        return Reply(r, 200, headers)

    read_params = (
        NOTE_PATH,
        Param("offset", int, "Byte offset to start at.", 0, minimum=0),
        Param("max_bytes", int, "Most bytes to return.", None, minimum=1),
        Param("heading", str, "Only the section under this heading (A#B: B inside A).", None),
        Param("block", str, "Only the paragraph or list item marked with this ^block id.", None),
    )
    return [
        Op("GET", "/notes/{path}/links", "links", "A note's outgoing links and backlinks.",
           "notes", lambda c: hoard.reading.links(c.params["path"], caller=c.caller),
           {200: LinksResult}, (NOTE_PATH,)),
        Op("GET", "/notes/{path}/history", "history",
           "A note's preserved revisions and write events.", "notes",
           lambda c: writes.retirement.history(c.params["path"], None, caller=c.caller),
           {200: HistoryResult}, (NOTE_PATH,)),
        Op("GET", "/notes/{path}", "read",
           "Read a note (byte ranges with offset/max_bytes); its revision is the ETag.",
           "notes", get_note, {200: ReadResult, 304: None}, read_params, inline=small,
           etag=True),
        Op("GET", "/revisions/{revision_id}", "revision",
           "One preserved revision's exact content with its sha256.", "notes",
           lambda c: writes.retirement.history(None, c.params["revision_id"], caller=c.caller),
           {200: RevisionContent},
           (Param("revision_id", str, "A preserved revision's id.", required=True,
                  where="path"),)),
    ]  # fmt: skip


def _write_ops(hoard: Hoard) -> list[Op]:
    writes = hoard.writes

    def put_note(call: Call) -> Reply:
        dry = bool(call.params["dry_run"])
        expected = expected_revision(call.headers, required=not dry)
        body: NoteBody = call.body
        r = writes.write(call.params["path"], body.content, expected, dry, caller=call.caller)
        return written(r, r.revision, r.previous_revision is None)

    def archive(call: Call) -> Reply:
        expected = expected_revision(call.headers) or ""
        body: ArchiveBody = call.body
        dry = bool(call.params["dry_run"])
        r = writes.retirement.archive(
            call.params["path"], body.reason, expected, caller=call.caller, dry_run=dry
        )
        return written(r, None, False)

    def restore(call: Call) -> Reply:
        body: RestoreBody = call.body
        r = writes.retirement.restore(body.revision_id, body.path, caller=call.caller)
        return written(r, r.revision, True)

    def file_note(call: Call) -> Reply:
        b: FileNoteBody = call.body
        r = writes.notes.file_note(
            b.path, b.content, b.index_line, b.expected_revision, b.dry_run, caller=call.caller
        )
        return written(r, r.note_revision, b.expected_revision is None)

    return [
        Op("POST", "/notes/{path}/archive", "archive",
           "Retire a note (If-Match: its revision): the bytes go into the ledger first.",
           "notes", archive, {200: ArchiveResult, 202: ArchiveResult}, (NOTE_PATH, DRY_RUN),
           Body(ArchiveBody), WRITE_ERRORS, precondition=True),
        Op("PUT", "/notes/{path}", "write",
           "Create (If-None-Match: *) or overwrite (If-Match: its revision) a note.",
           "notes", put_note,
           {200: WriteResult, 201: WriteResult, 202: WriteResult}, (NOTE_PATH, DRY_RUN),
           Body(NoteBody, markdown=True), WRITE_ERRORS, precondition=True, etag=True),
        Op("POST", "/restore", "restore",
           "Recreate a note from a preserved revision; never over an existing file.",
           "notes", restore, {201: RestoreResult, 202: RestoreResult}, (), Body(RestoreBody),
           WRITE_ERRORS),
        Op("POST", "/file-note", "file_note",
           "Write a note and its folder's _INDEX.md line as one journaled transaction.",
           "notes", file_note,
           {200: FileNoteResult, 201: FileNoteResult, 202: FileNoteResult}, (),
           Body(FileNoteBody), WRITE_ERRORS),
    ]  # fmt: skip


def _edit_ops(hoard: Hoard) -> list[Op]:
    """``vault_edit`` as ``PATCH`` and ``vault_move`` as ``POST .../move``: both start from the
    revision the caller read (``If-Match``, required even for a dry run)."""

    def patch_note(call: Call) -> Reply:
        expected = if_match(call.headers)
        body: EditBody = call.body
        p = call.params
        r = hoard.edits.edit(
            p["path"], body.edits, expected, bool(p["dry_run"]), caller=call.caller
        )
        return written(r, r.revision, False)

    def move(call: Call) -> Reply:
        expected = if_match(call.headers)
        b: MoveBody = call.body
        p = call.params
        r = hoard.moves.move(
            p["path"], b.new_path, expected, b.update_links, bool(p["dry_run"]), caller=call.caller
        )
        return Reply(r, 202 if r.status == "proposed" else 200)

    return [
        Op("PATCH", "/notes/{path}", "edit",
           "Edit part of a note (If-Match: its revision): append, prepend, a section by its "
           "heading, a block by its ^id, find and replace, frontmatter fields and tags; all "
           "or nothing.",
           "notes", patch_note, {200: WriteResult, 202: WriteResult}, (NOTE_PATH, DRY_RUN),
           Body(EditBody), WRITE_ERRORS, precondition=True, etag=True),
        Op("POST", "/notes/{path}/move", "move",
           "Move or rename a note (If-Match: its revision) and rewrite every link to it and "
           "both folders' _INDEX.md, as one journaled transaction; 409 if new_path is taken.",
           "notes", move, {200: MoveResult, 202: MoveResult}, (NOTE_PATH, DRY_RUN),
           Body(MoveBody), WRITE_ERRORS, precondition=True),
    ]  # fmt: skip
