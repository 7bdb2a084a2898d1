"""The web app speaks in words: a refusal says what happened and what to do (no error codes),
the owner has one name in the activity log however they signed in, and a personal note's
page does not list an unregistered synthesis or an empty claims list as if they mattered."""

from __future__ import annotations

from typing import Any

import pytest

from hoard.core.errors import Conflict, PrivateNote
from hoard.surfaces.web.words import refusal, refusal_of

from .support import Site


def test_a_private_note_refusal_says_so_and_what_to_do() -> None:
    words = refusal_of(PrivateNote("'personal/diary.md' is a private note"))
    assert words.text.startswith("This note is private: 'personal/diary.md' is a private note.")
    assert "owner" in words.advice
    assert "private_note" not in words.text


@pytest.mark.parametrize("code", ["conflict", "exists", "forbidden", "not_found", "no_such_code"])
def test_a_refusal_never_shows_its_code(code: str) -> None:
    words = refusal(code, "the detail")
    assert code not in words.text
    assert "the detail" in words.text and words.advice


def test_a_conflict_wire_object_reads_as_a_changed_note() -> None:
    obj = Conflict("expected revision abc, found def", "def").to_object()
    assert refusal_of(obj).headline == "The note changed since you opened it"


def test_the_error_page_says_what_happened_and_what_to_do(owner_page: Any, site: Site) -> None:
    page = owner_page
    page.goto(f"{site.url}/rev/no-such-revision")
    assert page.inner_text("h1") == "Nothing is there"
    body = page.inner_text("main")
    assert "not_found" not in body
    assert "Check the path" in body


def test_a_personal_note_page_has_no_unregistered_synthesis_or_empty_claims(
    owner_page: Any, site: Site
) -> None:
    page = owner_page
    page.goto(f"{site.url}/n/tech/hue-bridge.md")
    page.wait_for_selector("article.rendered")
    head = page.inner_text("header.note-head")
    assert "synthesis" not in head and "unregistered" not in head
    assert page.locator("#claims").count() == 0
    assert page.locator("#synthesis").count() == 0


def test_the_owner_has_one_name_in_the_activity_log(owner_page: Any, site: Site) -> None:
    sessions, _ = site.hoard.owner_tools(site.tokens)
    _, by_token = sessions.sign_in(site.owner_token, "test")
    _, by_link = sessions.sign_in_with_code(sessions.issue_code(), "test")
    assert by_token.caller.name == by_link.caller.name == "owner"
    page = owner_page
    page.goto(f"{site.url}/edit/tech/hue-bridge.md")
    body = page.input_value("textarea[name=content]")
    page.fill("textarea[name=content]", body + "\nOne more line.\n")
    page.click("#save")
    page.wait_for_selector("article.rendered")
    page.goto(f"{site.url}/activity")
    log = page.inner_text("main")
    assert "owner" in log and "web:" not in log
