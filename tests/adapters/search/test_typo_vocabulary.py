"""The typo vocabulary: loaded once, then reloaded in the background when the index
changes, the words already loaded answering meanwhile."""

from __future__ import annotations

import threading

from hoard.adapters.search.typos import Vocabulary


class _Source:
    """Word lists to load, one after another; a load can be held until released."""

    def __init__(self, *lists: list[tuple[str, int]]) -> None:
        self.lists = list(lists)
        self.loads = 0
        self.release = threading.Event()
        self.release.set()

    def __call__(self) -> list[tuple[str, int]]:
        self.release.wait(10)
        words = self.lists[min(self.loads, len(self.lists) - 1)]
        self.loads += 1
        return words


def test_the_first_load_answers_the_first_question() -> None:
    vocab = Vocabulary(_Source([("lantern", 3)]))

    assert vocab.corrections("lantren", 1, token=1) == ["lantern"]


def test_a_changed_index_is_answered_from_the_old_words_until_the_new_ones_are_read() -> None:
    source = _Source([("lantern", 3)], [("lantern", 3), ("quokka", 2)])
    vocab = Vocabulary(source)
    vocab.MIN_RELOAD_S = 0.0
    assert vocab.corrections("qokka", 1, token=1) == []

    source.release.clear()  # the reload is slow
    assert vocab.corrections("qokka", 1, token=2) == []  # no wait: the old words answer
    assert vocab.corrections("lantren", 1, token=2) == ["lantern"]
    source.release.set()
    vocab.wait_reloaded(10)

    assert vocab.corrections("qokka", 1, token=2) == ["quokka"]
    assert source.loads == 2  # one reload, however often it was asked during it


def test_a_failed_reload_keeps_the_old_words_and_the_next_change_retries() -> None:
    calls: list[int] = []

    def load() -> list[tuple[str, int]]:
        calls.append(1)
        if len(calls) == 2:
            raise OSError("disk went away")
        return [("lantern", 3), ("quokka", 2)] if len(calls) > 2 else [("lantern", 3)]

    vocab = Vocabulary(load)
    vocab.MIN_RELOAD_S = 0.0
    vocab.corrections("lantren", 1, token=1)
    vocab.corrections("qokka", 1, token=2)
    vocab.wait_reloaded(10)
    assert vocab.corrections("lantren", 1, token=2) == ["lantern"]  # (starts the retry)
    vocab.wait_reloaded(10)

    assert vocab.corrections("qokka", 1, token=3) == ["quokka"]
