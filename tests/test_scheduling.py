"""The plan by which xdist's workers share the suite (`scheduling.py`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

import scheduling

SPREAD_MODULE = "tests/models/families/test_official_prompts.py"


@dataclass(frozen=True)
class Item:
    nodeid: str


def ids(items: list[Any]) -> list[str]:
    return [item.nodeid for item in items]


def test_a_module_is_one_scope_and_a_spread_module_test_its_own() -> None:
    assert scheduling.scope_of("tests/a/test_x.py::test_one") == "tests/a/test_x.py"
    assert scheduling.scope_of("tests/a/test_x.py::Cls::test_one") == "tests/a/test_x.py"
    test = f"{SPREAD_MODULE}::test_single_turn_prompts_equal_the_official[qwen]"
    assert SPREAD_MODULE in scheduling.SPREAD
    assert scheduling.scope_of(test) == test


def test_the_longest_matching_prefix_gives_the_cost_else_the_mean_per_test(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(scheduling, "COSTS", {"tests/a": 5.0, "tests/a/test_x.py": 7.0})
    monkeypatch.setattr(scheduling, "PER_TEST", 0.5)
    assert scheduling.cost("tests/a/test_x.py", 100) == 7.0
    assert scheduling.cost("tests/a/test_y.py", 100) == 5.0
    assert scheduling.cost("tests/b/test_z.py", 3) == 1.5


def test_the_longest_work_starts_first_measured_or_counted(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(scheduling, "COSTS", {"tests/test_slow.py": 1.2,
                                              "tests/test_slower.py": 100.0})
    monkeypatch.setattr(scheduling, "PER_TEST", 0.5)
    items = [Item(n) for n in (
        "tests/test_few.py::a", "tests/test_many.py::a", "tests/test_slow.py::a",
        "tests/test_many.py::b", "tests/test_slower.py::a", "tests/test_many.py::c",
        "tests/test_few.py::b",
    )]
    assert ids(scheduling.longest_first(items)) == [
        "tests/test_slower.py::a",  # 100 s
        "tests/test_many.py::a", "tests/test_many.py::b", "tests/test_many.py::c",  # 1.5 s
        "tests/test_slow.py::a",  # 1.2 s
        "tests/test_few.py::a", "tests/test_few.py::b",  # 1 s
    ]


def test_a_spread_module_goes_first_test_by_test_in_its_order(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(scheduling, "COSTS", {SPREAD_MODULE: 30.0})
    spread = [f"{SPREAD_MODULE}::test_p[{name}]" for name in ("b", "a", "c")]
    items = [Item("tests/test_many.py::a"), Item("tests/test_many.py::b"),
             *map(Item, spread)]
    assert ids(scheduling.longest_first(items)) == [*spread, "tests/test_many.py::a",
                                                     "tests/test_many.py::b"]


def test_the_scheduler_splits_by_the_same_scopes() -> None:
    pytest.importorskip("xdist")
    config = pytest.Config.fromdictargs({"numprocesses": 2, "tx": ["popen"] * 2}, [])
    scheduler = scheduling.make_scheduler(config, log=None)
    spread = f"{SPREAD_MODULE}::test_p[a]"
    assert scheduler._split_scope(spread) == spread
    assert scheduler._split_scope("tests/a/test_x.py::test_one") == "tests/a/test_x.py"


def test_an_xdist_run_without_dist_uses_the_plan(pytestconfig: pytest.Config) -> None:
    """`-n` alone picks the scope scheduler in collection order; the collection order of a
    worker is the plan's (checked on whichever worker runs this test)."""
    import conftest

    config = pytest.Config.fromdictargs(
        {"numprocesses": 2, "dist": "no", "tx": ["popen"] * 2}, [])
    conftest.pytest_cmdline_main(config)
    assert (config.option.dist, config.option.loadscopereorder) == ("loadscope", False)
    assert type(conftest.pytest_xdist_make_scheduler(config, None)).__name__ == (
        "LongestFirstScheduling")
    chosen = pytest.Config.fromdictargs({"numprocesses": 2, "dist": "load"}, [])
    conftest.pytest_cmdline_main(chosen)
    assert chosen.option.dist == "load"
    assert conftest.pytest_xdist_make_scheduler(chosen, None) is None


def test_the_tests_of_each_spread_module_stay_together_in_the_queue() -> None:
    """A worker that leaves a spread module and comes back builds its module fixtures again:
    whatever the other scopes cost, the module's tests are one block (with the real COSTS)."""
    others = [f"tests/test_m{n}.py::t{i}" for n in range(1, 40) for i in range(n)]
    for module in scheduling.SPREAD:
        tests = [f"{module}::test_{kind}[{family}]"
                 for kind in ("single_turn", "multi_turn") for family in ("a", "b", "c")]
        collected = [Item(n) for n in [*others[:300], *tests, *others[300:], *COSTLY]]
        order = [item.nodeid.startswith(module) for item in scheduling.longest_first(collected)]
        first = order.index(True)
        assert order[first:first + len(tests)] == [True] * len(tests)


COSTLY = [f"{prefix}::t" for prefix in scheduling.COSTS if "::" not in prefix]


def test_only_an_xdist_worker_reorders_its_collection() -> None:
    """The worker's order is the queue's; a plain run (or a pytest started by a test inside a
    worker, which inherits the worker's environment) keeps the file order."""
    import types

    import conftest

    collected = [Item("tests/test_few.py::a"), *(Item(f"tests/test_many.py::{n}") for n in "abc")]
    plain = list(collected)
    conftest.pytest_collection_modifyitems(types.SimpleNamespace(), plain)  # type: ignore[arg-type]
    assert plain == collected
    worker = list(collected)
    conftest.pytest_collection_modifyitems(
        types.SimpleNamespace(workerinput={"workerid": "gw0"}), worker)  # type: ignore[arg-type]
    assert worker == [*collected[1:], collected[0]]
