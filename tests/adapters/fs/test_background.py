"""Background work runs in a thread of its own at the lowest priority (Linux)."""

from __future__ import annotations

import os
import sys
import threading

import pytest

from hoard.adapters.fs.background import LOW_PRIORITY, run_at_low_priority

linux_only = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="per-thread priorities are Linux's"
)


def _priority() -> int:
    return os.getpriority(os.PRIO_PROCESS, threading.get_native_id())


def test_the_work_runs_in_another_thread_and_its_result_comes_back() -> None:
    here = threading.get_ident()
    assert run_at_low_priority(lambda: threading.get_ident() != here, "t") is True


def test_an_exception_in_the_work_is_raised_to_the_caller() -> None:
    def fail() -> None:
        raise ValueError("broken index")

    with pytest.raises(ValueError, match="broken index"):
        run_at_low_priority(fail, "t")


@linux_only
def test_the_work_runs_at_the_lowest_priority_and_the_caller_keeps_its_own() -> None:
    before = _priority()
    assert run_at_low_priority(_priority, "t") == LOW_PRIORITY
    assert _priority() == before
    assert os.getpriority(os.PRIO_PROCESS, 0) == before  # nor is the process reniced
