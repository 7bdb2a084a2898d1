"""Embeds in a rendered note, as Obsidian shows them: ``![[note]]`` and ``![[note#Heading]]``
bring in the other note's text (or that section: up to the next heading of the same or a
higher level) in a labeled block with a link to it; ``![[diagram.png]]`` and a Markdown
image with a path relative to the note show the vault's image through ``/file/``.

Depth is bounded (:data:`MAX_DEPTH`), so is the number of notes one page transcludes
(:data:`MAX_EMBEDS`: a note of 200 embeds of notes of 200 embeds stays one page), a note
already being shown on the way in (a cycle) is a plain link, and a note the page may not
show (protected, private, not found) is a link marked "not shown". The caller sanitises
the whole page once."""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable, Mapping
from typing import Any, Protocol
from urllib.parse import quote, unquote, urlsplit

from markdown_it.common.utils import escapeHtml as escape_html
from markdown_it.utils import EnvType

from hoard.core.edits import headings
from hoard.core.frontmatter import split_frontmatter

MAX_DEPTH = 3
"""How deep embeds inside embeds are transcluded; deeper ones are links."""
MAX_EMBEDS = 50
"""How many notes one page transcludes in all; the embeds past them are links."""
IMAGE_TYPES = {
    "png": "image/png",
    "jpg": "image/jpeg",
    "jpeg": "image/jpeg",
    "gif": "image/gif",
    "webp": "image/webp",
    "avif": "image/avif",
    "bmp": "image/bmp",
    "ico": "image/x-icon",
    "svg": "image/svg+xml",
}
"""The files ``/file/`` serves, by extension, with the content type it sends."""
_HEADING_KEY = re.compile(r"\s+")


class NoteView(Protocol):
    """What the page lets a note show of the vault."""

    def note(self, target: str, source: str) -> tuple[str, str] | None:
        """``(path, text)`` of the note ``target`` names, or ``None`` when not shown."""

    def image(self, path: str, source: str) -> str | None:
        """The vault path of the image ``path`` names, or ``None`` when not shown."""


def image_type(path: str) -> str | None:
    return IMAGE_TYPES.get(path.rpartition(".")[2].lower()) if "." in path else None


def _img(path: str, alt: str) -> str:
    src = "/file/" + quote(path, safe="/")
    return f'<img class="vault-image" src="{escape_html(src)}" alt="{escape_html(alt)}">'


def _missing(alt: str) -> str:
    return f'<span class="missing-image" title="image not found">{escape_html(alt)}</span>'


def image_html(src: str, alt: str, env: EnvType) -> str:
    """A Markdown image: one from the vault (relative to the note) is shown, anything else
    (a remote image would tell its server the owner read the note) is its alt text."""
    view: NoteView | None = env.get("view")
    parts = urlsplit(src)
    if view is None or parts.scheme or parts.netloc or src.startswith("/"):
        return _missing(alt or src)
    folder = posixpath.dirname(str(env.get("source", "")))
    path = posixpath.normpath(posixpath.join(folder, unquote(parts.path)))
    if path.startswith("../") or path in ("..", ".") or image_type(path) is None:
        return _missing(alt or src)
    found = view.image(path, str(env.get("source", "")))
    return _img(found, alt) if found else _missing(alt or src)


def section(text: str, heading: str | None) -> str | None:
    """The note's body, or the section under ``heading`` (``None`` when there is none)."""
    body = text[split_frontmatter(text).body_offset :]
    if not heading:
        return body
    lines = body.splitlines(keepends=True)
    hs = headings(lines)

    def key(t: str) -> str:
        return _HEADING_KEY.sub(" ", t).strip().casefold()

    for n, (i, level, title) in enumerate(hs):
        if key(title) == key(heading):
            end = next((j for j, lv, _ in hs[n + 1 :] if lv <= level), len(lines))
            return "".join(lines[i:end])
    return None


def embed_html(
    meta: Mapping[str, Any],
    env: EnvType,
    link: str,
    render: Callable[[str, EnvType], str],
) -> str:
    """An embed: the image, the transcluded note in a labeled block, or ``link`` (with a
    word on why) when it is not shown."""
    view: NoteView | None = env.get("view")
    target: str = meta["target"]
    source = str(env.get("source", ""))
    if view is None:
        return link
    if image_type(target) is not None:
        found = view.image(target, source)
        alt = meta["alias"] or target
        return _img(found, alt) if found else _missing(alt)
    stack: tuple[str, ...] = env.get("stack", ())
    shown: list[int] = env.setdefault("embeds_shown", [0])  # one count for the whole page
    if len(stack) > MAX_DEPTH or shown[0] >= MAX_EMBEDS:
        return link
    shown[0] += 1
    got = view.note(target, source)
    if got is None:
        return link + ' <span class="embed-refused">(not shown)</span>'
    path, text = got
    if path in stack:
        return link
    part = section(text, meta["heading"])
    if part is None:
        return link + ' <span class="embed-refused">(no such heading)</span>'
    inner_env = {**env, "source": path, "stack": (*stack, path), "tasks": False, "page": False}
    inner_env["embedded"] = True
    inner_env["wikilinks"] = {}
    head = f'<p class="embed-source">{link}</p>'
    return f'<div class="embed">{head}{render(part, inner_env)}</div>'
