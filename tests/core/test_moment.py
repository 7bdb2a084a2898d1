"""hoard.core.moment: the Moment.js tokens daily notes and templates are written in."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from hoard.core.moment import format_moment, ordinal

WHEN = datetime(2026, 3, 5, 14, 7, 9)  # a Thursday, ISO week 10


@pytest.mark.parametrize(
    ("fmt", "expected"),
    [
        ("YYYY-MM-DD", "2026-03-05"),
        ("YY/M/D", "26/3/5"),
        ("dddd, MMMM Do YYYY", "Thursday, March 5th 2026"),
        ("ddd DD MMM", "Thu 05 Mar"),
        ("GGGG-[W]WW", "2026-W10"),
        ("W Wo E d", "10 10th 4 4"),
        ("HH:mm:ss h A a", "14:07:09 2 PM pm"),
        ("H m s hh", "14 7 9 02"),
        ("Q DDD DDDD", "1 64 064"),
        ("[Daily note of] YYYY [YYYY]", "Daily note of 2026 YYYY"),
        ("YYYY/MM-MMMM/YYYY-MM-DD-dddd", "2026/03-March/2026-03-05-Thursday"),
        ("dd w ww", "Th 10 10"),
    ],
)
def test_moment_tokens_write_the_date(fmt: str, expected: str) -> None:
    assert format_moment(fmt, WHEN) == expected


def test_the_iso_week_year_differs_from_the_calendar_year_at_new_year() -> None:
    assert format_moment("GGGG-[W]WW YYYY", datetime(2027, 1, 1)) == "2026-W53 2027"
    assert format_moment("GGGG-[W]W", datetime(2024, 12, 30)) == "2025-W1"


def test_unix_time_tokens() -> None:
    when = datetime(2026, 1, 1, tzinfo=UTC)
    assert format_moment("X", when) == "1767225600"
    assert format_moment("x", when) == "1767225600000"


@pytest.mark.parametrize(
    ("n", "text"),
    [(1, "1st"), (2, "2nd"), (3, "3rd"), (4, "4th"), (11, "11th"), (12, "12th"),
     (13, "13th"), (21, "21st"), (22, "22nd"), (23, "23rd"), (31, "31st"), (111, "111th")],
)  # fmt: skip
def test_ordinals_are_englishs(n: int, text: str) -> None:
    assert ordinal(n) == text


def test_midnight_and_noon_on_the_twelve_hour_clock() -> None:
    assert format_moment("h A", datetime(2026, 1, 1, 0, 0)) == "12 AM"
    assert format_moment("h a", datetime(2026, 1, 1, 12, 0)) == "12 pm"
