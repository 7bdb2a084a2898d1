"""Fixtures and settings shared by every test folder.

Hypothesis runs without a per-example deadline: tests never assert wall-clock times, and on a
shared 2-core machine a slow example is noise, not a bug.
"""

from __future__ import annotations

from hypothesis import settings

settings.register_profile("hoard", deadline=None)
settings.load_profile("hoard")
