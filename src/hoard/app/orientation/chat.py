"""ChatGPT's two connector tools over hoard's own search and read: ``search(query)`` answers
``{"results": [{"id", "title", "url"}]}`` and ``fetch(id)`` answers ``{"id", "title", "text",
"url", "metadata"}``. The id is the note's vault path; the url is where a person can open it
(given by the surface: the web app's page, or the JSON API's).

ChatGPT is a service off this machine, so private notes never reach it: its search leaves
them out and its fetch refuses them (``private_note``), whoever the caller is."""

from __future__ import annotations

from collections.abc import Callable

from hoard.app.access import Access
from hoard.app.reading import Reading
from hoard.app.search import SearchFlow
from hoard.core.agent_results import ChatDocument, ChatSearchHit, ChatSearchResult
from hoard.core.errors import PrivateNote
from hoard.core.paths import normalize_note_path
from hoard.core.policy import Caller

UrlOf = Callable[[str], str]

SEARCH_LIMIT = 20
FETCH_BYTES = 256 * 1024


class ChatTools:
    def __init__(self, access: Access, searching: SearchFlow, reading: Reading) -> None:
        self.access = access
        self.searching = searching
        self.reading = reading

    def search(self, query: str, *, caller: Caller, url_of: UrlOf) -> ChatSearchResult:
        found = self.searching.search(query, SEARCH_LIMIT, caller=caller)
        return ChatSearchResult(
            [
                ChatSearchHit(h.path, h.title or h.path, url_of(h.path))
                for h in found.results
                if not self.access.is_private(h.path)
            ]
        )

    def fetch(self, id: str, *, caller: Caller, url_of: UrlOf) -> ChatDocument:
        rel = normalize_note_path(id)
        if self.access.is_private(rel):
            raise PrivateNote(f"{rel!r} is private: it never leaves this machine", path=rel)
        note = self.reading.read(rel, 0, FETCH_BYTES, caller=caller)
        fm = note.frontmatter if isinstance(note.frontmatter, dict) else {}
        title = fm.get("title")
        metadata = {
            "revision": note.revision,
            "size": note.size,
            "truncated": note.truncated,
            "frontmatter": fm,
        }
        return ChatDocument(
            id=note.path,
            title=title if isinstance(title, str) and title else note.path,
            text=note.content,
            url=url_of(note.path),
            metadata=metadata,
        )
