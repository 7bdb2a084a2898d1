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
    "path",
    str,
    "Vault-relative note path, e.g. tech/hue-bridge.md.",
    required=True,
    where="path",
    slashes=True,
)
DRY_RUN = Param("dry_run", bool, "Check everything, change nothing; answer the preflight.", False)
WRITE_ERRORS = (400, 403, 404, 409, 412, 413, 422, 428)
READ_PARAMS = (
    NOTE_PATH,
    Param("offset", int, "Byte offset to start at.", 0, minimum=0),
    Param("max_bytes", int, "Most bytes to return.", None, minimum=1),
    Param("heading", str, "Only the section under this heading (A#B: B inside A).", None),
    Param("block", str, "Only the paragraph or list item marked with this ^block id.", None),
)


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
    return [
        *_read_ops(hoard),
        *_revision_ops(hoard),
        *_write_ops(hoard),
        *_filing_ops(hoard),
        *_edit_ops(hoard),
    ]


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

    return [
        Op(
            method="GET",
            path="/notes/{path}/links",
            op_id="links",
            summary="A note's outgoing links and backlinks.",
            tag="notes",
            handler=lambda c: hoard.reading.links(c.params["path"], caller=c.caller),
            ok={200: LinksResult},
            params=(NOTE_PATH,),
        ),
        Op(
            method="GET",
            path="/notes/{path}/history",
            op_id="history",
            summary="A note's preserved revisions and write events.",
            tag="notes",
            handler=lambda c: writes.retirement.history(c.params["path"], None, caller=c.caller),
            ok={200: HistoryResult},
            params=(NOTE_PATH,),
        ),
        Op(
            method="GET",
            path="/notes/{path}",
            op_id="read",
            summary="Read a note (byte ranges with offset/max_bytes); its revision is the ETag.",
            tag="notes",
            handler=get_note,
            ok={200: ReadResult, 304: None},
            params=READ_PARAMS,
            inline=small,
            etag=True,
        ),
    ]


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

    return [
        Op(
            method="POST",
            path="/notes/{path}/archive",
            op_id="archive",
            summary="Retire a note (If-Match: its revision): the bytes go into the ledger first.",
            tag="notes",
            handler=archive,
            ok={200: ArchiveResult, 202: ArchiveResult},
            params=(NOTE_PATH, DRY_RUN),
            body=Body(ArchiveBody),
            errors=WRITE_ERRORS,
            precondition=True,
        ),
        Op(
            method="PUT",
            path="/notes/{path}",
            op_id="write",
            summary="Create (If-None-Match: *) or overwrite (If-Match: its revision) a note.",
            tag="notes",
            handler=put_note,
            ok={200: WriteResult, 201: WriteResult, 202: WriteResult},
            params=(NOTE_PATH, DRY_RUN),
            body=Body(NoteBody, markdown=True),
            errors=WRITE_ERRORS,
            precondition=True,
            etag=True,
        ),
    ]


def _revision_ops(hoard: Hoard) -> list[Op]:
    writes = hoard.writes
    return [
        Op(
            method="GET",
            path="/revisions/{revision_id}",
            op_id="revision",
            summary="One preserved revision's exact content with its sha256.",
            tag="notes",
            handler=lambda c: writes.retirement.history(
                None, c.params["revision_id"], caller=c.caller
            ),
            ok={200: RevisionContent},
            params=(
                Param(
                    "revision_id", str, "A preserved revision's id.", required=True, where="path"
                ),
            ),
        ),
    ]


def _filing_ops(hoard: Hoard) -> list[Op]:
    """Writes that make a note whole: a restore from a revision, a note filed with its index
    line."""
    writes = hoard.writes

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
        Op(
            method="POST",
            path="/restore",
            op_id="restore",
            summary="Recreate a note from a preserved revision; never over an existing file.",
            tag="notes",
            handler=restore,
            ok={201: RestoreResult, 202: RestoreResult},
            body=Body(RestoreBody),
            errors=WRITE_ERRORS,
        ),
        Op(
            method="POST",
            path="/file-note",
            op_id="file_note",
            summary="Write a note and its folder's _INDEX.md line as one journaled transaction.",
            tag="notes",
            handler=file_note,
            ok={200: FileNoteResult, 201: FileNoteResult, 202: FileNoteResult},
            body=Body(FileNoteBody),
            errors=WRITE_ERRORS,
        ),
    ]


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
        Op(
            method="PATCH",
            path="/notes/{path}",
            op_id="edit",
            summary=(
                "Edit part of a note (If-Match: its revision): append, prepend, a section by "
                "its heading, a block by its ^id, find and replace, frontmatter fields and tags; "
                "all or nothing."
            ),
            tag="notes",
            handler=patch_note,
            ok={200: WriteResult, 202: WriteResult},
            params=(NOTE_PATH, DRY_RUN),
            body=Body(EditBody),
            errors=WRITE_ERRORS,
            precondition=True,
            etag=True,
        ),
        Op(
            method="POST",
            path="/notes/{path}/move",
            op_id="move",
            summary=(
                "Move or rename a note (If-Match: its revision) and rewrite every link to it and "
                "both folders' _INDEX.md, as one journaled transaction; 409 if new_path is taken."
            ),
            tag="notes",
            handler=move,
            ok={200: MoveResult, 202: MoveResult},
            params=(NOTE_PATH, DRY_RUN),
            body=Body(MoveBody),
            errors=WRITE_ERRORS,
            precondition=True,
        ),
    ]
