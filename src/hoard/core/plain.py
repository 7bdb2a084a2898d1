"""Markdown syntax taken out of a snippet so a person reads the text: headings without ``#``,
emphasis without ``**``, wikilinks as their alias, links as their text, table rows without
pipes, list items without their markers. Pure: no I/O.

Snippets reach this function already cut to a window and with white space collapsed (see
:mod:`hoard.core.snippet`), so line starts are gone: a marker counts when it stands alone
between spaces, and a link or an emphasis cut open by the window loses its dangling half.
Agents get the original text (the contract says a snippet is the note's own text); the web
app and the CLI's human output show this.
"""

from __future__ import annotations

import re

_FENCE = re.compile(r"(?:`{3,}|~{3,})[\w+-]*")
_WIKI = re.compile(r"!?\[\[([^\[\]|#]*)(?:#\^?([^\[\]|]*))?(?:\|([^\[\]]*))?\]\]")
_LINK = re.compile(r"!?\[([^\[\]]*)\]\([^()\s]*(?:\s+\"[^\"]*\")?\)")
_AUTOLINK = re.compile(r"<((?:https?|mailto):[^<>\s]+)>")
_CUT_WIKI = re.compile(r"^(…?)[^\[\]|]*\|([^\[\]|]*)\]\]")
_OPEN_WIKI = re.compile(r"!?\[\[(?:[^\[\]|]*\|)?")
_RULE_ROW = re.compile(r"\|?(?:\s*:?-{3,}:?\s*\|)+(?:\s*:?-{3,}:?\s*)?")
_HEADING = re.compile(r"(?:(?<=\s)|^)#{1,6}(?=\s)")
_LIST = re.compile(r"(?:(?<=\s)|^)(?:[-*+]|>+)(?:\s+\[[ xX]\])?(?=\s)")
_TASK = re.compile(r"(?:(?<=\s)|^)\[[ xX]\](?=\s)")
_RULE = re.compile(r"(?:(?<=\s)|^)(?:-{3,}|\*{3,}|_{3,})(?=\s|$)")
_STRONG = re.compile(r"(\*\*|__|~~|==)(?=\S)(.+?)(?<=\S)\1")
_EMPH = re.compile(r"(?<![\w*])([*_])(?=[^\s*_])(.+?)(?<=[^\s*_])\1(?![\w*])")
_CODE = re.compile(r"`+")
_LEFTOVER = re.compile(r"\*\*|~~|==|\[\[|\]\]")
_PIPE = re.compile(r"(?:\s*\|)+\s*")


def _wiki(m: re.Match[str]) -> str:
    target, heading, alias = m.group(1).strip(), m.group(2), m.group(3)
    if alias and alias.strip():
        return alias.strip()
    name = target.rsplit("/", 1)[-1].removesuffix(".md")
    if heading:
        return f"{name} › {heading.strip()}" if name else heading.strip()
    return name


def plain_text(snippet: str) -> str:
    """``snippet`` as a person would read the rendered note: the words, without the
    Markdown that marks them up; white space collapsed."""
    s = _FENCE.sub(" ", snippet)
    s = _WIKI.sub(_wiki, s)
    s = _LINK.sub(lambda m: m.group(1), s)
    s = _AUTOLINK.sub(lambda m: m.group(1), s)
    s = _CUT_WIKI.sub(lambda m: m.group(1) + m.group(2), s)
    s = _OPEN_WIKI.sub("", s)
    s = _RULE_ROW.sub(" ", s)
    s = _HEADING.sub(" ", s)
    s = _LIST.sub(" ", s)
    s = _TASK.sub(" ", s)
    s = _RULE.sub(" ", s)
    s = _STRONG.sub(lambda m: m.group(2), s)
    s = _EMPH.sub(lambda m: m.group(2), s)
    s = _CODE.sub("", s)
    s = _LEFTOVER.sub("", s)
    s = _PIPE.sub(" · ", s).strip(" ·")
    return " ".join(s.split())
