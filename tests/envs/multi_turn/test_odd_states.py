"""Environment states nobody wrote (issue 30): every multi-turn class, each public attribute
replaced by a value of a type the corpus never holds (int keys beside str keys, as the official
TradingBot's `orders` has them; NaN and infinities; integers past Python's 4,300-digit str()
limit; sets, tuples, objects; deep nesting; any unicode), through the checker's state
comparison, the failure record it writes, the score file and the report's state diff.

The invariant: no exception escapes a stage, and equal states stay equal (no difference, so
the verdict does not change).
"""

from __future__ import annotations

import copy
import json
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fcbench.check.kinds.multi_turn import multi_turn_record
from fcbench.check.multi_turn import STATE_MISMATCH, _Replay, state_differences
from fcbench.core import categories
from fcbench.core.model import TestCase, Verdict
from fcbench.envs.multi_turn import CLASSES
from fcbench.envs.scenario import (
    STATELESS_CLASSES,
    Scenario,
    environment_class,
    public_state,
)
from fcbench.report.html.cases import multi_turn_detail, state_diff
from fcbench.results.score_files import read_score_file, write_score_file


class Unprintable:
    """An object whose text form raises (a handler, a broken repr)."""

    def __str__(self) -> str:
        raise RuntimeError("no text")

    __repr__ = __str__


class Plain:
    """An object json does not know (written as its str)."""

    def __str__(self) -> str:
        return "Plain()"


def huge_int(digits: int) -> int:
    return 10 ** (digits - 1) + 7


keys = st.one_of(
    st.integers(-10**6, 10**6), st.text(max_size=8), st.floats(allow_nan=True),
    st.booleans(), st.none(), st.tuples(st.integers(0, 9), st.text(max_size=2)),
    st.sampled_from(["order_type", "12446", "é", "\U0001f600", "\ud800", "a\u2028b", "\x85"]),
)
leaves = st.one_of(
    st.none(), st.booleans(), st.integers(), st.floats(allow_nan=True, allow_infinity=True),
    st.text(alphabet=st.characters(codec=None), max_size=20),
    st.integers(4_301, 6_000).map(huge_int),
    st.builds(Unprintable), st.builds(Plain),
    st.frozensets(st.one_of(st.integers(), st.text(max_size=3)), max_size=4),
)
def containers(inner: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.one_of(
        st.lists(inner, max_size=4), st.tuples(inner, inner),
        st.dictionaries(keys, inner, max_size=4),
        st.sets(st.one_of(st.integers(), st.text(max_size=3)), max_size=4),
    )


values = st.recursive(leaves, containers, max_leaves=20)


@st.composite
def deep(draw: st.DrawFn) -> Any:
    """A list or dict nested past the recursion limit (or not)."""
    depth = draw(st.sampled_from([10, 900, sys.getrecursionlimit() + 500]))
    value: Any = draw(leaves)
    for level in range(depth):
        value = {level: value, "k": 1} if level % 2 else [value]
    return value


odd_values = st.one_of(values, deep())
STATEFUL = sorted(set(CLASSES) - STATELESS_CLASSES)


def loaded(class_name: str) -> Any:
    instance = environment_class(class_name)()
    instance._load_scenario({})
    return instance


@st.composite
def odd_pair(draw: st.DrawFn) -> tuple[str, Any, Any]:
    """(class, model instance, ground-truth instance), one attribute of the model (or of
    both) set to an odd value."""
    class_name = draw(st.sampled_from(STATEFUL))
    truth = loaded(class_name)
    model = copy.deepcopy(truth)
    names = sorted(public_state(truth))
    for name in draw(st.lists(st.sampled_from(names), min_size=1, max_size=3, unique=True)):
        setattr(model, name, draw(odd_values))
    return class_name, model, truth


def checked(class_name: str, model: Any, truth: Any) -> Verdict | None:
    """The multi-turn checker's state check of one turn (`_Replay._check_state`, as the turn
    loop calls it) on these two instances: None when they match, else the failed verdict."""
    replay = _Replay.__new__(_Replay)
    replay.model = SimpleNamespace(instances={class_name: model})
    replay.truth = SimpleNamespace(instances={class_name: truth})
    replay.details, replay.decoded, replay.executions, replay.model_results = True, [], [], []
    return replay._check_state()


def record_of(verdict: Verdict) -> dict[str, Any]:
    """The score-file record the multi-turn kind builds for the failed case."""
    case = TestCase("multi_turn_base_0", "multi_turn_base", [[{"role": "user", "content": "q"}]],
                    [], possible_answer=[["f()"]])
    return multi_turn_record("m", categories.get("multi_turn_base"), case, [[["f()"]]],
                             verdict)


def read_back(path: Path) -> list[Any]:
    """The score file as fcbench reads it back (big integers allowed): the header and the
    records, one per line."""
    limit = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(0)
    try:
        header, records = read_score_file(path)
    finally:
        sys.set_int_max_str_digits(limit)
    return [header, *records]


PROPERTY = settings(max_examples=60, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@PROPERTY
@given(odd_pair())
def test_odd_states_pass_every_stage(tmp_path_factory: pytest.TempPathFactory,
                                     pair: tuple[str, Any, Any]) -> None:
    class_name, model, truth = pair
    differences = state_differences(model, truth)
    verdict = checked(class_name, model, truth)
    assert (verdict is None) == (not differences)
    if verdict is None:
        return
    assert verdict.error_type == STATE_MISMATCH
    record = record_of(verdict)
    path = tmp_path_factory.mktemp("score") / "BFCL_v4_multi_turn_base_score.json"
    write_score_file(path, {"accuracy": 0.0}, [record])
    header, written = read_back(path)
    assert written["id"] == "multi_turn_base_0" and header == {"accuracy": 0.0}
    rows = state_diff(record["error"])
    assert [row[1] for row in rows] == [str(name) for name in differences]
    assert all(row[0] == class_name and isinstance(row[2], str) for row in rows)
    detail = multi_turn_detail(None, record)
    json.dumps(detail)  # the report packs the detail as JSON: plain strings only


@PROPERTY
@given(odd_pair())
def test_odd_states_are_logged_at_generation(pair: tuple[str, Any, Any]) -> None:
    """The inference log's state snapshot (`Scenario.state_log`, taken after every turn of a
    generated multi-turn case) of any state: JSON values, or the state's JSON text."""
    class_name, model, _ = pair
    scenario = Scenario(TestCase("multi_turn_base_0", "multi_turn_base", [], []), "m")
    scenario._instances = {class_name: model}
    [snapshot] = scenario.state_log()
    assert snapshot["class_name"] == class_name
    json.dumps(snapshot["content"])  # plain JSON values


@PROPERTY
@given(odd_pair())
def test_equal_odd_states_stay_equal(pair: tuple[str, Any, Any]) -> None:
    """The same values on both sides: no difference, whatever they are (NaN included: the
    comparison is the official one, identity first)."""
    class_name, model, truth = pair
    for name in public_state(truth):
        setattr(truth, name, getattr(model, name))
    assert state_differences(model, truth) == {}
    assert checked(class_name, model, truth) is None


def test_the_trading_bot_orders_of_the_real_run() -> None:
    """The state that took `fcbench evaluate` down: order ids (int) beside the official
    environment's stray `'order_type'` key (str)."""
    orders = {12345: {"id": 12345, "order_type": "Buy"}, "order_type": "Sell"}
    error = {"error_message": "Model instance for TradingBot does not match the state with "
                              "ground truth instance.",
             "details": {"differences": {"orders": {"model": orders,
                                                    "ground_truth": {12345: orders[12345]}}}}}
    [[owner, name, diff]] = state_diff(error)
    assert (owner, name) == ("TradingBot", "orders")
    assert '+ "order_type": "Sell"' in diff
