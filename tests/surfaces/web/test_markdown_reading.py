"""The note renderer on its own (no browser): heading ids, embeds and images, sanitised."""

from __future__ import annotations

from collections.abc import Iterable

from hoard.surfaces.web.embeds import MAX_DEPTH, MAX_EMBEDS, section
from hoard.surfaces.web.markdown import render_page, slug


class Notes:
    """Notes by name for the renderer; ``hidden`` ones are not shown."""

    def __init__(
        self, notes: dict[str, str], images: Iterable[str] = (), hidden: Iterable[str] = ()
    ) -> None:
        self.notes, self.images, self.hidden = notes, set(images), set(hidden)

    def note(self, target: str, source: str) -> tuple[str, str] | None:
        if target not in self.notes or target in self.hidden:
            return None
        return f"{target}.md", self.notes[target]

    def image(self, path: str, source: str) -> str | None:
        return path if path in self.images else None


def test_headings_get_unique_slugs_that_never_take_a_page_id() -> None:
    html = render_page("## Sub Head!\n\n## Sub Head!\n\n## Palette\n", "n.md", {}, Notes({})).html
    assert 'id="sub-head"' in html and 'id="sub-head-1"' in html
    assert 'id="palette"' not in html and 'id="palette-1"' in html
    assert slug("Ünïcode Heading, too") == "ünïcode-heading-too"


def test_a_leading_h1_becomes_the_page_title_and_other_h1s_are_level_two() -> None:
    page = render_page("---\ntitle: T\n---\n# Own Title\n\n# Later\n", "n.md", {}, Notes({}))
    assert page.title == ("Own Title", "own-title")
    assert "<h1" not in page.html and '<h2 id="later">' in page.html


def test_a_section_runs_to_the_next_heading_of_the_same_or_a_higher_level() -> None:
    text = "---\nt: 1\n---\n# A\n## B\nb text\n### C\nc text\n## D\nd text\n"
    assert section(text, "b") == "## B\nb text\n### C\nc text\n"
    assert section(text, "nothing") is None


def test_an_embedded_note_is_sanitised_and_its_tasks_cannot_be_ticked() -> None:
    notes = Notes({"evil": "<script>alert(1)</script>\n\n- [ ] inner\n\nSafe words."})
    html = render_page("![[evil]]\n\n- [ ] outer\n", "n.md", {}, notes).html
    assert "Safe words." in html and "<script" not in html and "alert" not in html
    assert html.count("data-line=") == 1 and "disabled" in html


def test_embeds_inside_embeds_stop_at_the_depth_bound_and_at_cycles() -> None:
    chain = {f"n{i}": f"Text {i}.\n\n![[n{i + 1}]]" for i in range(10)}
    html = render_page("![[n0]]", "top.md", {}, Notes(chain)).html
    assert f"Text {MAX_DEPTH - 1}." in html and f"Text {MAX_DEPTH}." not in html
    loop = Notes({"a": "A text. ![[b]]", "b": "B text. ![[a]]"})
    html = render_page("![[a]]", "top.md", {}, loop).html
    assert html.count("A text.") == 1 and html.count("B text.") == 1


def test_a_page_transcludes_at_most_max_embeds_notes_in_all() -> None:
    fan = " ".join(f"![[b{i}]]" for i in range(30))
    notes = {f"b{i}": f"B{i} text. " + " ".join(["![[leaf]]"] * 30) for i in range(30)}
    notes["leaf"] = "Leaf text."
    html = render_page(fan, "top.md", {}, Notes(notes)).html
    shown = html.count(" text.")
    assert shown == MAX_EMBEDS


def test_a_hidden_note_is_never_transcluded_and_remote_images_never_load() -> None:
    notes = Notes({"plan": "The secret plan."}, images={"att/x.png"}, hidden={"plan"})
    html = render_page(
        "![[plan]]\n\n![x](att/x.png) ![r](https://example.com/t.png) <img src=//e.com/p.png>",
        "n.md",
        {},
        notes,
    ).html
    assert "secret plan" not in html and "(not shown)" in html
    assert 'src="/file/att/x.png"' in html
    assert "example.com" not in html and "e.com" not in html
