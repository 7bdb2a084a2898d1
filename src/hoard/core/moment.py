"""Moment.js date formats, the ones Obsidian's daily notes and templates are written in.
Pure: a format and a datetime in, text out.

Tokens: ``YYYY`` ``YY`` (year), ``Q`` (quarter), ``MMMM`` ``MMM`` ``MM`` ``M`` (month),
``DDDD`` ``DDD`` (day of the year), ``DD`` ``D`` ``Do`` (day of the month, ``Do`` = 1st),
``dddd`` ``ddd`` ``dd`` ``d`` (weekday; ``d`` 0 = Sunday), ``E`` (ISO weekday, 1 = Monday),
``WW`` ``W`` ``Wo`` (ISO week), ``GGGG`` (ISO week year), ``ww`` ``w`` (week of the year,
weeks starting Sunday, as moment's default English locale), ``HH`` ``H`` ``hh`` ``h``
``mm`` ``m`` ``ss`` ``s`` ``A`` ``a`` (time), ``X`` ``x`` (Unix seconds, milliseconds).
``[text]`` is literal text; any other character is itself. Names are English, as in
Obsidian with its default locale.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import date, datetime

MONTHS = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
]
DAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]


def ordinal(n: int) -> str:
    """``1st``, ``2nd``, ``3rd``, ``4th``, ``11th``, ``22nd``: moment's English ordinals."""
    if 10 <= n % 100 <= 20:
        return f"{n}th"
    suffix = {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def _hour12(d: datetime) -> int:
    return d.hour % 12 or 12


def _sunday_week(d: date) -> int:
    """Week of the year with weeks starting Sunday and week 1 holding January 1st."""
    jan1 = date(d.year, 1, 1)
    offset = (jan1.weekday() + 1) % 7  # days from the Sunday on or before January 1st
    return (d.timetuple().tm_yday - 1 + offset) // 7 + 1


_TOKENS: dict[str, Callable[[datetime], str]] = {
    "YYYY": lambda d: f"{d.year:04d}",
    "YY": lambda d: f"{d.year % 100:02d}",
    "GGGG": lambda d: f"{d.isocalendar()[0]:04d}",
    "Q": lambda d: str((d.month - 1) // 3 + 1),
    "MMMM": lambda d: MONTHS[d.month - 1],
    "MMM": lambda d: MONTHS[d.month - 1][:3],
    "MM": lambda d: f"{d.month:02d}",
    "M": lambda d: str(d.month),
    "DDDD": lambda d: f"{d.timetuple().tm_yday:03d}",
    "DDD": lambda d: str(d.timetuple().tm_yday),
    "DD": lambda d: f"{d.day:02d}",
    "Do": lambda d: ordinal(d.day),
    "D": lambda d: str(d.day),
    "dddd": lambda d: DAYS[d.weekday()],
    "ddd": lambda d: DAYS[d.weekday()][:3],
    "dd": lambda d: DAYS[d.weekday()][:2],
    "d": lambda d: str((d.weekday() + 1) % 7),
    "E": lambda d: str(d.isoweekday()),
    "WW": lambda d: f"{d.isocalendar()[1]:02d}",
    "Wo": lambda d: ordinal(d.isocalendar()[1]),
    "W": lambda d: str(d.isocalendar()[1]),
    "ww": lambda d: f"{_sunday_week(d):02d}",
    "w": lambda d: str(_sunday_week(d)),
    "HH": lambda d: f"{d.hour:02d}",
    "H": lambda d: str(d.hour),
    "hh": lambda d: f"{_hour12(d):02d}",
    "h": lambda d: str(_hour12(d)),
    "mm": lambda d: f"{d.minute:02d}",
    "m": lambda d: str(d.minute),
    "ss": lambda d: f"{d.second:02d}",
    "s": lambda d: str(d.second),
    "A": lambda d: "AM" if d.hour < 12 else "PM",
    "a": lambda d: "am" if d.hour < 12 else "pm",
    "X": lambda d: str(int(d.timestamp())),
    "x": lambda d: str(int(d.timestamp() * 1000)),
}

# Longest token first at each position, as moment scans; [..] is literal text.
_SCAN = re.compile(
    r"\[[^\]]*\]|" + "|".join(re.escape(t) for t in sorted(_TOKENS, key=len, reverse=True))
)


def format_moment(fmt: str, when: datetime) -> str:
    """``when`` written in the Moment.js format ``fmt``."""

    def one(m: re.Match[str]) -> str:
        token = m.group(0)
        return token[1:-1] if token.startswith("[") else _TOKENS[token](when)

    return _SCAN.sub(one, fmt)
