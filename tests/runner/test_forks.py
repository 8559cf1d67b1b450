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
