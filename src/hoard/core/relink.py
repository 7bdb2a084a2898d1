"""Rewriting the links of a note when a note it links to moves (``vault_move``). Pure: no I/O.

Wikilinks (``[[target]]``, ``[[target|alias]]``, ``[[target#heading]]``, ``![[target]]``) and
relative Markdown links (``[text](../tech/lamp.md#part)``) are rewritten in place; the
alias, heading, embed mark and everything else on the line stay as written. Links inside
fenced code and inline code are not links and are never touched. Which links point at the
moved note is the caller's decision (``points_here``), so a link that was already broken, or
that resolves to another note, stays as it was.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable
from urllib.parse import quote, unquote

from hoard.core.paths import folder_of

_LINK = re.compile(r"(!?)\[\[([^\[\]\n]{1,500}?)\]\]")
_MD_LINK = re.compile(r"(?<!!)(\[[^\]\n]*\]\()(<[^>\n]+>|[^)\s]+)((?:\s+\"[^\"\n]*\")?\))")
_FENCE = re.compile(r"^[ \t]{0,3}(```|~~~)")
_INLINE_CODE = re.compile(r"(`+)(?!`).*?(?<!`)\1(?!`)")
_SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")


def wikilink_target(old: str, new_path: str, keep_stem: bool) -> str:
    """The new target text for a wikilink that named the moved note as ``old``."""
    md = old.strip().lower().endswith(".md")
    stem_only = "/" not in old.strip().strip("/")
    new = new_path[:-3] if new_path.endswith(".md") else new_path
    if stem_only and keep_stem:
        new = new.rpartition("/")[2]
    return new + ".md" if md else new


def markdown_target(url: str, src: str) -> str | None:
    """The vault path a relative Markdown link of note ``src`` points at (``None``: not a
    relative link to a file in the vault)."""
    bare = url[1:-1] if url.startswith("<") and url.endswith(">") else url
    path = unquote(bare.partition("#")[0])
    if not path or _SCHEME.match(path) or path.startswith(("/", "#")):
        return None
    joined = posixpath.normpath(posixpath.join(folder_of(src), path))
    return None if joined.startswith("..") else joined


def relative_url(url: str, target: str, src_folder: str) -> str:
    """``url`` re-pointed at ``target`` from ``src_folder``, keeping its ``#fragment`` and
    its ``<...>`` form."""
    angle = url.startswith("<") and url.endswith(">")
    bare = url[1:-1] if angle else url
    _, hash_, frag = bare.partition("#")
    rel = posixpath.relpath(target, src_folder or ".")
    text = (rel if angle else quote(rel, safe="/()._-~")) + (hash_ + frag)
    return f"<{text}>" if angle else text


def rewrite(
    text: str,
    src: str,
    points_here: Callable[[str], bool],
    new_target: Callable[[str], str],
    md_points_here: Callable[[str], str | None],
    out_folder: str | None = None,
) -> str:
    """``text`` with each wikilink whose target ``points_here`` re-targeted by
    ``new_target``, and each relative Markdown link re-pointed at the vault path
    ``md_points_here(path)`` returns for it (``None``: leave it), written relative to
    ``out_folder`` (default: the note's own folder; the moved note's new one for itself)."""
    out: list[str] = []
    in_fence: str | None = None
    src_folder = folder_of(src) if out_folder is None else out_folder

    def wiki(m: re.Match[str]) -> str:
        inner = m.group(2)
        target, sep, rest = _split_target(inner)
        if not target.strip() or not points_here(target.strip()):
            return m.group(0)
        lead = target[: len(target) - len(target.lstrip())]
        trail = target[len(target.rstrip()) :]
        return f"{m.group(1)}[[{lead}{new_target(target.strip())}{trail}{sep}{rest}]]"

    def md(m: re.Match[str]) -> str:
        url = m.group(2)
        path = markdown_target(url, src)
        moved = None if path is None else md_points_here(path)
        if moved is None:
            return m.group(0)
        return m.group(1) + relative_url(url, moved, src_folder) + m.group(3)

    for line in text.splitlines(keepends=True):
        fence = _FENCE.match(line)
        if fence:
            marker = fence.group(1)
            in_fence = marker if in_fence is None else (None if in_fence == marker else in_fence)
            out.append(line)
            continue
        if in_fence is not None or ("[[" not in line and "](" not in line):
            out.append(line)
            continue
        out.append(_outside_code(line, lambda part: _MD_LINK.sub(md, _LINK.sub(wiki, part))))
    return "".join(out)


def _split_target(inner: str) -> tuple[str, str, str]:
    """``target``, the separator after it (``#`` or ``|`` or nothing) and the rest."""
    cut = min((i for i in (inner.find("#"), inner.find("|")) if i >= 0), default=-1)
    if cut < 0:
        return inner, "", ""
    return inner[:cut], inner[cut], inner[cut + 1 :]


def _outside_code(line: str, fn: Callable[[str], str]) -> str:
    """Apply ``fn`` to the parts of ``line`` outside inline code spans."""
    if "`" not in line:
        return fn(line)
    out: list[str] = []
    pos = 0
    for m in _INLINE_CODE.finditer(line):
        out.append(fn(line[pos : m.start()]))
        out.append(m.group(0))
        pos = m.end()
    out.append(fn(line[pos:]))
    return "".join(out)
