"""Folders per caller: the path globs a caller may read and write. Pure: no I/O.

A caller limited to read globs (``hoard token add alice --read 'team/**,shared/**'``) is
told of nothing outside them: a note there does not exist for it. Unlike a protected
note, which a caller may ask a grant for and whose hits are counted as hidden, a note
outside the read globs is never named, counted or hinted: reading it answers
``not_found``, and search, listings and every other count leave it out without a trace.

Write globs (``--write 'team/alice/**'``) limit where it may write; writing needs reading
too, so a write is allowed only where both the read globs (if any) and the write globs
(if any) match, and :func:`outside_reads` names write globs that would reach past the
read globs so a token is never made with them. Globs match the path as written (letter
case counts): a case variant of a folder is outside it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from hoard.core.globs import matches, matches_any

WILDCARDS = "*?["


def parse_globs(text: str | Iterable[str] | None) -> tuple[str, ...]:
    """``"team/**, shared/**"`` → ``("team/**", "shared/**")``; empty means no limit.
    Raises ``ValueError`` for a glob that climbs out of the vault or names nothing."""
    if text is None:
        return ()
    items = text.split(",") if isinstance(text, str) else list(text)
    out: list[str] = []
    for item in items:
        if not isinstance(item, str):
            raise ValueError("a folder glob must be a string")
        glob = item.strip().lstrip("/")
        if not item.strip():
            continue
        if not glob or ".." in glob.split("/") or "\\" in glob or "\x00" in glob:
            raise ValueError(f"folder glob {item.strip()!r} must be a path inside the vault")
        if glob not in out:
            out.append(glob)
    return tuple(out)


def outside_reads(write: tuple[str, ...], read: tuple[str, ...]) -> list[str]:
    """The write globs not within any read glob (none when there are no read globs): a
    write glob is within a read glob when the read glob matches it read as a path."""
    if not read:
        return []
    return [w for w in write if not any(matches(w, r) for r in read)]


def _literal_folder(glob: str) -> str:
    """The folder a glob names before its first wildcard (``team/a*/**`` → ``team/``)."""
    cut = min((i for i, c in enumerate(glob) if c in WILDCARDS), default=len(glob))
    head = glob[:cut]
    return head[: head.rfind("/") + 1] if cut < len(glob) else head.rstrip("/") + "/"


def folder_in_reach(folder: str, globs: tuple[str, ...]) -> bool:
    """Whether a folder (``team/`` or ``team``) may hold a note within ``globs``: it lies
    on the way to one (``team/`` for ``team/alice/**``) or inside one."""
    rel = folder.rstrip("/")
    if not globs or not rel:
        return True
    for g in globs:
        head = _literal_folder(g)
        if head.startswith(rel + "/") or matches(rel, g):
            return True
        if "**" in g and (rel + "/").startswith(head):
            return True
    return False


def glob_in_reach(glob: str, globs: tuple[str, ...]) -> bool:
    """Whether a glob (a protected or private one from ``hoard.toml``) may name anything
    within ``globs``; one that cannot is not shown, as it would name a folder outside."""
    return folder_in_reach(_literal_folder(glob.strip().lstrip("/")), globs)


def in_reach(path: str, globs: tuple[str, ...]) -> bool:
    """Whether ``path`` (a note, or a folder asked as ``path/``) is within ``globs``."""
    if not globs:
        return True
    if path.endswith("/"):
        return folder_in_reach(path, globs)
    return matches_any(path, globs)


def may_write(path: str, read: tuple[str, ...], write: tuple[str, ...]) -> bool:
    """Whether a caller with these globs may write ``path`` (see the module's words)."""
    return in_reach(path, read) and in_reach(path, write)


class Sight:
    """What a caller limited to folders may see: ``sight(path)``. :meth:`known` tells
    the counting code apart: a note refused because it is protected is counted as hidden,
    one outside the caller's folders is not (it does not exist for the caller)."""

    __slots__ = ("globs", "protected")

    def __init__(self, globs: tuple[str, ...], protected: Callable[[str], bool] | None) -> None:
        self.globs = globs
        self.protected = protected

    def known(self, path: str) -> bool:
        return in_reach(path, self.globs)

    def __call__(self, path: str) -> bool:
        return self.known(path) and (self.protected is None or self.protected(path))


def counts_as_hidden(visible: Callable[[str], bool] | None, path: str) -> bool:
    """Whether a note ``visible`` refuses may be counted as hidden: a protected one is,
    one outside the caller's folders never is."""
    return not isinstance(visible, Sight) or visible.known(path)


def checked_reach(
    read: str | Iterable[str] | None, write: str | Iterable[str] | None
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The read and write globs a new caller is given, or ``ValueError`` with the reason:
    a write glob reaching past the read globs is refused (writing needs reading too)."""
    reads, writes = parse_globs(read), parse_globs(write)
    outside = outside_reads(writes, reads)
    if outside:
        raise ValueError(
            f"write glob(s) {', '.join(outside)} reach outside the read globs "
            f"({', '.join(reads)}): a caller must be able to read what it writes; "
            "add them to the read globs or narrow them"
        )
    return reads, writes
