"""Notes to HTML for the web app: CommonMark (markdown-it-py) with tables, strikethrough and
task lists, headings with ids, wikilinks as links (broken ones marked), embeds transcluded
(:mod:`hoard.surfaces.web.embeds`), then a real sanitizer (nh3) before anything reaches a
page. A note is untrusted input: agents write notes, so scripts, event handlers,
``javascript:`` URLs and remote images never survive; images come only from the vault,
through ``/file/``."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

import nh3
from markdown_it import MarkdownIt
from markdown_it.common.utils import escapeHtml as escape_html
from markdown_it.renderer import RendererHTML
from markdown_it.rules_core import StateCore
from markdown_it.rules_inline import StateInline
from markdown_it.token import Token
from markdown_it.utils import EnvType, OptionsDict
from mdit_py_plugins.front_matter import front_matter_plugin
from mdit_py_plugins.tasklists import tasklists_plugin

from hoard.surfaces.web import embeds
from hoard.surfaces.web.embeds import NoteView

_WIKI = re.compile(r"(!?)\[\[([^\[\]\n]+?)\]\]")
_NOT_SLUG = re.compile(r"[^\w\- ]")

PAGE_IDS = frozenset(
    {
        *("archive", "archived", "ask", "content", "disk", "editor", "events", "history"),
        *("inbox-lists", "main", "move", "note-body", "note-live", "outcome", "palette"),
        *("palette-form", "palette-open", "palette-q", "palette-results", "path", "preview"),
        *("q", "results", "save", "saved", "saved-outcome", "search", "sync-banner"),
        *("task-outcome", "token"),
    }
)
"""Ids the pages' own elements use: a heading never takes one (it gets ``-1``)."""

ALLOWED_TAGS = set(nh3.ALLOWED_TAGS) | {"input", "img", "label"}
ALLOWED_ATTRIBUTES: dict[str, set[str]] = {
    **{k: set(v) for k, v in nh3.ALLOWED_ATTRIBUTES.items()},
    "input": {"checked", "disabled", "data-line"},
    "img": {"src", "alt", "title", "loading"},
    **{f"h{n}": {"id"} for n in range(1, 7)},
}
ALLOWED_CLASSES = {
    "a": {"wikilink", "broken", "embed"},
    "div": {"embed"},
    "p": {"embed-source"},
    "span": {"missing-image", "embed-refused"},
    "img": {"vault-image"},
    "input": {"task-list-item-checkbox"},
    "li": {"task-list-item"},
    "ul": {"contains-task-list"},
}


def slug(text: str) -> str:
    """A heading's id as Obsidian and GitHub make it: lower case, punctuation dropped,
    spaces to hyphens."""
    return _NOT_SLUG.sub("", unicodedata.normalize("NFC", text).strip().lower()).replace(" ", "-")


def note_href(path: str, heading: str | None = None) -> str:
    href = "/n/" + quote(path, safe="/")
    return href + ("#" + quote(slug(heading)) if heading else "")


def file_href(path: str) -> str:
    return "/file/" + quote(path, safe="/")


def _wikilink_rule(state: StateInline, silent: bool) -> bool:
    if state.src[state.pos] not in "[!":
        return False
    m = _WIKI.match(state.src, state.pos)
    if m is None:
        return False
    if not silent:
        target, _, alias = m.group(2).partition("|")
        target, _, heading = target.partition("#")
        token = state.push("wikilink", "", 0)
        token.meta = {
            "target": target.strip(),
            "heading": heading.strip() or None,
            "alias": alias.strip() or None,
            "embed": m.group(1) == "!",
        }
    state.pos = m.end()
    return True


def _link_html(meta: Mapping[str, Any], env: EnvType) -> str:
    target: str = meta["target"]
    label = meta["alias"] or target + (f"#{meta['heading']}" if meta["heading"] else "")
    resolved: Mapping[str, str | None] = env.get("wikilinks", {})
    classes = ["wikilink"] + (["embed"] if meta["embed"] else [])
    if not target:
        href = "#" + quote(slug(meta["heading"] or ""))
    elif resolved.get(target.lower()) is not None:
        href = note_href(str(resolved[target.lower()]), meta["heading"])
    else:
        href = "/wl/" + quote(target, safe="/") + "?from=" + quote(env.get("source", ""))
        if meta["heading"]:
            href += "&h=" + quote(slug(meta["heading"]))
        if target.lower() in resolved:
            classes.append("broken")
    text = escape_html(("↪ " if meta["embed"] else "") + label)
    title = ' title="no note by this name yet"' if "broken" in classes else ""
    return f'<a class="{" ".join(classes)}" href="{escape_html(href)}"{title}>{text}</a>'


def _render_wikilink(
    self: RendererHTML, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
) -> str:
    meta: dict[str, Any] = tokens[idx].meta
    if meta["embed"] and meta["target"]:
        return embeds.embed_html(meta, env, _link_html(meta, env), _render_inner)
    return _link_html(meta, env)


def _render_image(
    self: RendererHTML, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
) -> str:
    token = tokens[idx]
    alt = self.renderInlineAsText(token.children or [], options, env)
    return embeds.image_html(str(token.attrGet("src") or ""), alt, env)


def _heading_ids(state: StateCore) -> None:
    taken: set[str] = state.env.setdefault("slugs", set(PAGE_IDS))
    for i, token in enumerate(state.tokens):
        if token.type != "heading_open" or i + 1 >= len(state.tokens):
            continue
        base = slug(state.tokens[i + 1].content) or "section"
        chosen, n = base, 0
        while chosen in taken:
            n += 1
            chosen = f"{base}-{n}"
        taken.add(chosen)
        token.attrSet("id", chosen)


def _one_h1(state: StateCore) -> None:
    """On a page of its own a note has one ``<h1>``, the page's: a leading ``# Title`` of
    the body becomes the page title (``env["title"]``), other level-1 headings are shown
    as level 2, and so are an embedded note's."""
    if not state.env.get("page") and not state.env.get("embedded"):
        return
    tokens = state.tokens
    first = next((i for i, t in enumerate(tokens) if t.type != "front_matter"), len(tokens))
    lead = tokens[first] if first < len(tokens) else None
    if state.env.get("page") and lead and lead.type == "heading_open" and lead.tag == "h1":
        state.env["title"] = (tokens[first + 1].content, tokens[first].attrGet("id"))
        del tokens[first : first + 3]
    for t in tokens:
        if t.type in ("heading_open", "heading_close") and t.tag == "h1":
            t.tag = "h2"


def _task_lines(state: StateCore) -> None:
    """Each task checkbox carries its line in the note (``data-line``, 0-based) so the page
    can tick it; an embedded note's tasks stay disabled."""
    live = state.env.get("tasks", False)
    line = -1
    for token in state.tokens:
        if token.type == "list_item_open" and token.map:
            line = token.map[0]
        for child in token.children or []:
            if child.type == "html_inline" and "task-list-item-checkbox" in child.content:
                checked = " checked" if 'checked="' in child.content else ""
                state_attr = f' data-line="{line}"' if live and line >= 0 else " disabled"
                child.content = (
                    f'<input class="task-list-item-checkbox" type="checkbox"{checked}{state_attr}>'
                )


def _build() -> MarkdownIt:
    md = MarkdownIt("commonmark", {"html": True, "linkify": False, "typographer": False})
    md.enable(["table", "strikethrough"])
    front_matter_plugin(md)
    tasklists_plugin(md, label=True)  # the label around a task is its tap target
    md.inline.ruler.before("link", "wikilink", _wikilink_rule)
    md.core.ruler.push("heading_ids", _heading_ids)
    md.core.ruler.push("task_lines", _task_lines)
    md.core.ruler.push("one_h1", _one_h1)
    md.add_render_rule("wikilink", _render_wikilink)
    md.add_render_rule("image", _render_image)
    return md


_MD = _build()


def _render_inner(text: str, env: EnvType) -> str:
    return str(_MD.render(text, env))


def sanitize(html: str) -> str:
    clean = nh3.clean(
        html,
        tags=ALLOWED_TAGS,
        clean_content_tags={"script", "style"},
        attributes=ALLOWED_ATTRIBUTES,
        url_schemes={"http", "https", "mailto"},
        allowed_classes=ALLOWED_CLASSES,
        tag_attribute_values={"input": {"type": {"checkbox"}}},
        link_rel="noopener noreferrer nofollow",
        attribute_filter=_only_vault_images,
    )
    return str(clean)


def _only_vault_images(tag: str, attribute: str, value: str) -> str | None:
    """An ``<img>`` loads only from ``/file/`` (never a remote server): any other source is
    dropped, leaving an image that loads nothing."""
    if tag == "img" and attribute == "src" and not value.startswith("/file/"):
        return None
    return value


@dataclass(frozen=True, slots=True)
class Rendered:
    html: str
    title: tuple[str, str] | None
    """The note's leading ``# Title`` and its id, shown as the page's heading."""


def render_page(
    text: str, source: str, wikilinks: Mapping[str, str | None], view: NoteView
) -> Rendered:
    """A note for its own page: embeds and images through ``view``, tickable tasks, one
    ``<h1>`` (see :class:`Rendered`)."""
    env: dict[str, Any] = {"wikilinks": wikilinks, "source": source, "view": view}
    env.update(tasks=True, stack=(source,), page=True)
    html = sanitize(_MD.render(text, env))
    title = env.get("title")
    return Rendered(html, (str(title[0]), str(title[1])) if title else None)


def render_note(text: str, source: str, wikilinks: Mapping[str, str | None]) -> str:
    """Sanitized HTML of a note's Markdown (the editor's preview). ``wikilinks`` maps
    lower-cased targets to the note they resolve to (``None``: broken); other targets link
    to ``/wl/`` to resolve. Embeds are links, images their alt text, tasks disabled."""
    env: dict[str, Any] = {"wikilinks": wikilinks, "source": source, "stack": (source,)}
    return sanitize(_MD.render(text, env))
