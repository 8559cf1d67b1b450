"""map_in_forks: results in order, child exceptions re-raised in the parent."""

from __future__ import annotations

import os

import pytest

from fcbench.runner.forks import map_in_forks

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")


def test_results_come_back_in_share_order_from_other_processes() -> None:
    parent = os.getpid()
    results = map_in_forks(lambda share: [(n * 2, os.getpid()) for n in share], [[1, 2], [3]])
    assert [value for value, _ in results] == [2, 4, 6]
    assert all(pid != parent for _, pid in results)


def test_a_child_exception_is_raised_in_the_parent() -> None:
    def work(share: list[int]) -> list[int]:
        if share == [0]:
            raise ValueError("bad share 0")
        return share

    with pytest.raises(ValueError, match="bad share 0"):
        map_in_forks(work, [[1], [0]])


def test_a_child_that_dies_is_reported() -> None:
    with pytest.raises(RuntimeError, match="died"):
        map_in_forks(lambda share: os._exit(3), [[1]])  # type: ignore[func-returns-value]
