"""hoard.core.globs: ``**`` spans folders, ``*`` and ``?`` stay in one, folders cover below."""

from __future__ import annotations

import pytest

from hoard.core.globs import matches, matches_any


@pytest.mark.parametrize(
    ("path", "pattern", "expected"),
    [
        # the default private glob
        ("personal-notes/a.md", "personal-notes/**", True),
        ("personal-notes/deep/er/a.md", "personal-notes/**", True),
        ("personal-notes-old/a.md", "personal-notes/**", False),
        ("life/personal-notes/a.md", "personal-notes/**", False),
        ("personal-notes.md", "personal-notes/**", False),
        # a single star stays inside one component
        ("a.md", "*.md", True),
        ("tech/a.md", "*.md", False),
        ("tech/a.md", "tech/*.md", True),
        ("tech/sub/a.md", "tech/*.md", False),
        ("tech/x-draft.md", "tech/*-draft.md", True),
        ("tech/sub/x-draft.md", "tech/*-draft.md", False),
        # ** at the front: any depth, including none
        ("session-logs/x.md", "**/session-logs/**", True),
        ("projects/p/session-logs/2026/x.md", "**/session-logs/**", True),
        ("projects/my-session-logs/x.md", "**/session-logs/**", False),
        ("projects/session-logs.md", "**/session-logs/**", False),
        ("2026-session-log.md", "**/*session-log*.md", True),
        ("projects/x/2026-session-log-3.md", "**/*session-log*.md", True),
        ("projects/x/session.md", "**/*session-log*.md", False),
        ("a/b/c.md", "**", True),
        ("a/b/c.md", "**/*.md", True),
        ("c.md", "**/*.md", True),
        ("a/b/c.txt", "**/*.md", False),
        # a folder name covers everything below it
        ("logs/x.md", "logs/", True),
        ("logs/2026/03/x.md", "logs/", True),
        ("logs/x.md", "logs", True),
        ("logs/2026/x.md", "logs", True),
        ("logsbook/x.md", "logs/", False),
        ("blogs/x.md", "logs/", False),
        ("tech/logs/x.md", "logs/", False),
        ("tech/logs/x.md", "**/logs/", True),
        # question mark and character classes
        ("a.md", "?.md", True),
        ("ab.md", "?.md", False),
        ("a1.md", "a[0-9].md", True),
        ("ab.md", "a[0-9].md", False),
        ("ax.md", "a[!0-9].md", True),
        ("a5.md", "a[!0-9].md", False),
        ("daily/2026-03-14.md", "daily/[0-9][0-9][0-9][0-9]-*.md", True),
        ("daily/notes.md", "daily/[0-9][0-9][0-9][0-9]-*.md", False),
        ("a[b.md", "a[b.md", True),
        # regex metacharacters are literal
        ("a+b.md", "a+b.md", True),
        ("aab.md", "a+b.md", False),
        ("axb.md", "a.b.md", False),
        ("a(1).md", "a(1).md", True),
        ("x$.md", "x$.md", True),
        # a leading slash anchors at the vault root, like no slash at all
        ("x/a.md", "/x/*.md", True),
        ("y/x/a.md", "/x/*.md", False),
    ],
)
def test_glob_matching(path: str, pattern: str, expected: bool) -> None:
    assert matches(path, pattern) is expected


def test_a_negated_character_class_does_not_match_a_slash() -> None:
    # A class matches one character *inside* a component, like ``?`` (gitignore, pathlib).
    assert matches("a/b.md", "a[!x]b.md") is False


def test_matches_any_is_true_when_one_pattern_matches() -> None:
    patterns = ["personal-notes/**", "secrets/", "**/*.private.md"]
    assert matches_any("secrets/k.md", patterns)
    assert matches_any("tech/x.private.md", patterns)
    assert not matches_any("tech/x.md", patterns)
    assert not matches_any("tech/x.md", [])
