"""map_in_forks: results in item order, items shared out dynamically, child exceptions
re-raised in the parent."""

from __future__ import annotations

import os
import time

import pytest

from fcbench.runner.forks import map_in_forks

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")


def test_results_come_back_in_item_order_from_other_processes() -> None:
    parent = os.getpid()
    results = map_in_forks(lambda n: (n * 2, os.getpid()), [1, 2, 3, 4, 5], workers=2)
    assert [value for value, _ in results] == [2, 4, 6, 8, 10]
    assert all(pid != parent for _, pid in results)
    assert len({pid for _, pid in results}) <= 2


def test_a_free_worker_takes_the_next_item() -> None:
    """One long item and four short ones on two workers: the short ones all go to the
    other worker instead of half of them waiting behind the long one."""

    def work(seconds: float) -> int:
        time.sleep(seconds)
        return os.getpid()

    pids = map_in_forks(work, [0.6, 0.01, 0.01, 0.01, 0.01], workers=2)
    assert pids[0] not in pids[1:]
    assert len(set(pids[1:])) == 1


def test_every_item_is_done_exactly_once() -> None:
    items = list(range(200))
    assert map_in_forks(lambda n: n * n, items, workers=3) == [n * n for n in items]


def test_a_child_exception_is_raised_in_the_parent() -> None:
    def work(item: int) -> int:
        if item == 0:
            raise ValueError("bad item 0")
        return item

    with pytest.raises(ValueError, match="bad item 0"):
        map_in_forks(work, [1, 0, 2], workers=2)


def test_a_child_that_dies_is_reported() -> None:
    with pytest.raises(RuntimeError, match="died"):
        map_in_forks(lambda item: os._exit(3), [1, 2], workers=2)  # type: ignore[func-returns-value]


def test_a_child_exception_carries_the_child_traceback() -> None:
    """The parent alone can only show where it re-raised; the worker's frames come along
    (issue 30), as text and as a note of the exception."""
    from fcbench.runner.forks import worker_traceback

    def deep_in_the_worker(item: int) -> int:
        if item == 0:
            raise KeyError("order_type")
        return item

    with pytest.raises(KeyError) as caught:
        map_in_forks(deep_in_the_worker, [1, 0, 2], workers=2)
    trace = worker_traceback(caught.value)
    assert trace is not None and "deep_in_the_worker" in trace and "Traceback" in trace
    if hasattr(caught.value, "add_note"):  # Python 3.11+: shown under the parent's traceback
        assert any("deep_in_the_worker" in note for note in caught.value.__notes__)
