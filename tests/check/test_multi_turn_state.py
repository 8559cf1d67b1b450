"""The multi-turn state comparison, per API class and per attribute (spec §6.4).

After each turn the checker compares every public attribute of each involved instance with
the ground truth's. Here each attribute of each of the eight APIs is changed alone on the
model's instance and must be reported, and nothing else; the attributes compared must be the
official classes' own (so an attribute made private, or a new one left out, shows too).
"""

from __future__ import annotations

import copy
import importlib
from pathlib import Path
from typing import Any

import pytest

from fcbench.check.multi_turn import STATE_MISMATCH, judge_multi_turn, state_differences
from fcbench.core.model import TestCase
from fcbench.decode.encoding import Encoding
from fcbench.envs.multi_turn import CLASSES
from fcbench.envs.scenario import STATELESS_CLASSES, environment_class, public_state

OFFICIAL_MODULES = {
    "GorillaFileSystem": "gorilla_file_system",
    "MathAPI": "math_api",
    "MessageAPI": "message_api",
    "TwitterAPI": "posting_api",
    "TicketAPI": "ticket_api",
    "TradingBot": "trading_bot",
    "TravelAPI": "travel_booking",
    "VehicleControlAPI": "vehicle_control",
}


class Different:
    """A value equal to nothing, not even itself."""

    def __eq__(self, other: object) -> bool:
        return False

    def __ne__(self, other: object) -> bool:
        return True

    __hash__ = None  # type: ignore[assignment]


def loaded(class_name: str, cls: type[Any] | None = None) -> Any:
    """An instance with its default scenario, as a case without `initial_config` has it."""
    instance = (cls or environment_class(class_name))()
    if class_name not in STATELESS_CLASSES:
        instance._load_scenario({})
    return instance


ATTRIBUTES = [(name, attribute) for name in CLASSES for attribute in public_state(loaded(name))]


def test_every_stateful_api_has_attributes_to_compare() -> None:
    stateful = {name for name, _ in ATTRIBUTES}
    assert stateful == set(CLASSES) - STATELESS_CLASSES


@pytest.mark.parametrize(("class_name", "attribute"), ATTRIBUTES)
def test_each_attribute_alone_is_a_difference(class_name: str, attribute: str) -> None:
    truth = loaded(class_name)
    model = copy.deepcopy(truth)
    assert state_differences(model, truth) == {}
    setattr(model, attribute, Different())
    assert list(state_differences(model, truth)) == [attribute]


@pytest.mark.parametrize("class_name", sorted(CLASSES))
def test_private_attributes_are_not_compared(class_name: str) -> None:
    truth = loaded(class_name)
    model = copy.deepcopy(truth)
    model._fcbench_private = Different()
    assert state_differences(model, truth) == {}


@pytest.mark.parametrize("class_name", sorted(CLASSES))
def test_compared_attributes_are_the_official_ones(class_name: str,
                                                   official_modules: Path) -> None:
    module = importlib.import_module(
        f"bfcl_eval.eval_checker.multi_turn_eval.func_source_code.{OFFICIAL_MODULES[class_name]}"
    )
    official = loaded(class_name, getattr(module, class_name))
    official_public = sorted(k for k in vars(official) if not k.startswith("_"))
    assert sorted(public_state(loaded(class_name))) == official_public


def test_a_state_difference_fails_the_turn_and_names_the_attribute() -> None:
    """End to end: the model adds a stock to the watch list, the ground truth does not."""
    case = TestCase(
        "multi_turn_base_0", "multi_turn_base", [[{"role": "user", "content": "?"}]], [],
        [["get_watchlist()"]],
        extras={"involved_classes": ["TradingBot"], "initial_config": {}},
    )
    raw = [["[add_to_watchlist(stock='ZETA'), get_watchlist()]"]]
    verdict = judge_multi_turn(case, raw, Encoding("prompt"))
    assert (verdict.valid, verdict.error_type) == (False, STATE_MISMATCH)
    assert list(verdict.extras["error"]["details"]["differences"]) == ["watch_list"]
    same = judge_multi_turn(case, [["[get_watchlist()]"]], Encoding("prompt"))
    assert same.valid, same.errors
