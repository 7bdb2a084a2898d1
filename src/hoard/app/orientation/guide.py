"""The guides behind the ``file-a-note`` and ``review-before-write`` prompts, made from the
vault itself: its frontmatter contract (``hoard.toml`` or the defaults), its folders and
which of them keep an ``_INDEX.md``, so an agent writes a note that passes the gates the
first time."""

from __future__ import annotations

from hoard.app.deps import Deps
from hoard.app.reading import Reading
from hoard.core.errors import HoardError
from hoard.core.policy import Caller

INDEX_NAME = "_INDEX.md"
FOLDERS_SHOWN = 40


class Guides:
    def __init__(self, deps: Deps, reading: Reading) -> None:
        self.deps = deps
        self.reading = reading

    def contract_lines(self) -> list[str]:
        c = self.deps.config.contract
        lines = [
            "Every note that is not private starts with a YAML frontmatter block "
            "(a `---` line, YAML, a `---` line) holding: " + ", ".join(c.required) + ".",
        ]
        if c.non_empty_strings:
            lines.append("- non-empty strings: " + ", ".join(c.non_empty_strings))
        if "tags" in c.required:
            lines.append(
                f"- tags: a list of {c.tags_min} to {c.tags_max} distinct strings matching "
                f"`{c.tag_pattern}`"
            )
        if c.date_fields:
            lines.append("- dates (YYYY-MM-DD, a real calendar date): " + ", ".join(c.date_fields))
        lines.append(
            f"- the block stays under {c.max_frontmatter_bytes} bytes; no YAML anchors, aliases "
            "or tags; the file is UTF-8 and ends with exactly one newline."
        )
        if self.deps.config.private:
            lines.append(
                "Private notes (" + ", ".join(self.deps.config.private) + ") are exempt when "
                "created, and can never be overwritten or archived through hoard."
            )
        return lines

    def folder_lines(self, *, caller: Caller) -> list[str]:
        try:
            top = self.reading.list("", False, 500, caller=caller).entries
        except HoardError:
            return []
        folders = [e.path for e in top if e.kind == "folder"][:FOLDERS_SHOWN]
        lines = []
        for folder in folders:
            try:
                listing = self.reading.list(folder, False, 500, caller=caller)
                names = {e.path for e in listing.entries}
            except HoardError:
                continue
            has_index = f"{folder}/{INDEX_NAME}" in names
            notes = sum(1 for n in names if n.endswith(".md") and not n.endswith(INDEX_NAME))
            indexed = f", indexed in {folder}/{INDEX_NAME}" if has_index else ""
            lines.append(f"- {folder}/ ({notes} notes{indexed})")
        return lines

    def file_a_note(self, *, caller: Caller, folder: str | None = None) -> str:
        parts = ["# Filing a note in this vault", "", "## The frontmatter contract", ""]
        parts += self.contract_lines()
        parts += ["", "## Folders", ""]
        parts += self.folder_lines(caller=caller) or ["(the vault has no folders yet)"]
        parts += [
            "",
            "## The index rule",
            "",
            f"A folder with an `{INDEX_NAME}` lists its notes as `[[wikilinks]]`. File a new "
            f"note with `vault_file_note(path, content, index_line)`: it writes the note and "
            f"its folder's `{INDEX_NAME}` line in one transaction. Run it with `dry_run=true` "
            "first: the preflight names every contract problem and a missing index line.",
        ]
        if folder:
            parts += ["", f"You asked about `{folder}`: file the note below it."]
        return "\n".join(parts) + "\n"

    @staticmethod
    def review_before_write(path: str | None = None) -> str:
        target = f"`{path}`" if path else "the note"
        return (
            f"Before you change {target}:\n"
            f"1. `vault_read` it and keep its `revision`.\n"
            "2. Make your change to exactly that text (or plan a `vault_edit` of the part).\n"
            "3. Dry-run: `vault_write(path, content, expected_revision=revision, dry_run=true)` "
            "(or `vault_edit(..., dry_run=true)`), and read the diff and `preflight`: fix every "
            "contract violation it names.\n"
            "4. Write with the same `expected_revision`. A `conflict` means someone changed the "
            "note since you read it: read it again and redo the change; never retry blindly.\n"
            "5. A `proposed` status means a person must confirm: say so, and do not write again.\n"
        )
