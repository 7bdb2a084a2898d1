"""Notes to HTML for the web app: CommonMark (markdown-it-py) with tables, strikethrough and
task lists, wikilinks as links (broken ones marked, embeds shown as links), then a real
sanitizer (nh3) before anything reaches a page. A note is untrusted input: agents write
notes, so scripts, event handlers, ``javascript:`` URLs and remote images never survive."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any
from urllib.parse import quote

import nh3
from markdown_it import MarkdownIt
from markdown_it.common.utils import escapeHtml as escape_html
from markdown_it.renderer import RendererHTML
from markdown_it.rules_inline import StateInline
from markdown_it.token import Token
from markdown_it.utils import EnvType, OptionsDict
from mdit_py_plugins.front_matter import front_matter_plugin
from mdit_py_plugins.tasklists import tasklists_plugin

_WIKI = re.compile(r"(!?)\[\[([^\[\]\n]+?)\]\]")

# No images: the app serves no vault files, and a remote image would tell its server that
# the owner opened the note.
ALLOWED_TAGS = (set(nh3.ALLOWED_TAGS) - {"img"}) | {"input"}
ALLOWED_ATTRIBUTES: dict[str, set[str]] = {
    **{k: set(v) for k, v in nh3.ALLOWED_ATTRIBUTES.items()},
    "input": {"checked", "disabled"},
}
ALLOWED_CLASSES = {
    "a": {"wikilink", "broken", "embed"},
    "input": {"task-list-item-checkbox"},
    "li": {"task-list-item"},
    "ul": {"contains-task-list"},
}


def note_href(path: str, heading: str | None = None) -> str:
    href = "/n/" + quote(path, safe="/")
    return href + ("#" + quote(heading) if heading else "")


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


def _render_wikilink(
    self: RendererHTML, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
) -> str:
    meta: dict[str, Any] = tokens[idx].meta
    target: str = meta["target"]
    label = meta["alias"] or target + (f"#{meta['heading']}" if meta["heading"] else "")
    resolved: Mapping[str, str | None] = env.get("wikilinks", {})
    classes = ["wikilink"] + (["embed"] if meta["embed"] else [])
    if not target:
        href = "#" + quote(meta["heading"] or "")
    elif resolved.get(target.lower()) is not None:
        href = note_href(str(resolved[target.lower()]), meta["heading"])
    else:
        href = "/wl/" + quote(target, safe="/") + "?from=" + quote(env.get("source", ""))
        if target.lower() in resolved:
            classes.append("broken")
    text = escape_html(("↪ " if meta["embed"] else "") + label)
    title = ' title="no note by this name yet"' if "broken" in classes else ""
    return f'<a class="{" ".join(classes)}" href="{escape_html(href)}"{title}>{text}</a>'


def _build() -> MarkdownIt:
    md = MarkdownIt("commonmark", {"html": True, "linkify": False, "typographer": False})
    md.enable(["table", "strikethrough"])
    front_matter_plugin(md)
    tasklists_plugin(md)
    md.inline.ruler.before("link", "wikilink", _wikilink_rule)
    md.add_render_rule("wikilink", _render_wikilink)
    return md


_MD = _build()


def sanitize(html: str) -> str:
    return nh3.clean(
        html,
        tags=ALLOWED_TAGS,
        clean_content_tags={"script", "style"},
        attributes=ALLOWED_ATTRIBUTES,
        url_schemes={"http", "https", "mailto"},
        allowed_classes=ALLOWED_CLASSES,
        tag_attribute_values={"input": {"type": {"checkbox"}}},
        link_rel="noopener noreferrer nofollow",
    )


def render_note(text: str, source: str, wikilinks: Mapping[str, str | None]) -> str:
    """Sanitized HTML of a note's Markdown. ``wikilinks`` maps lower-cased targets to the
    note they resolve to (``None``: broken); other targets link to ``/wl/`` to resolve."""
    env = {"wikilinks": wikilinks, "source": source}
    return sanitize(_MD.render(text, env))
