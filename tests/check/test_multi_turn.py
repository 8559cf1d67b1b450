"""The multi-turn checker on hand-made scenarios with a stub environment class."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any, ClassVar

import pytest

from fcbench.check.multi_turn import (
    EMPTY_TURN,
    FORCE_TERMINATED,
    INFERENCE_ERROR,
    RESPONSE_MISMATCH,
    STATE_MISMATCH,
    judge_multi_turn,
)
from fcbench.core.model import TestCase
from fcbench.decode.encoding import Encoding
from fcbench.envs.multi_turn import CLASSES
from fcbench.envs.scenario import is_long_context

PROMPT = Encoding()
FC = Encoding("fc", "underscore", "json_string")


class Counter:
    """A tiny stateful backend: `value` is compared, `_calls` is private (not compared)."""

    loaded: ClassVar[list[tuple[dict[str, Any], bool]]] = []

    def __init__(self) -> None:
        self.value = 0
        self._calls = 0

    def _load_scenario(self, scenario: dict[str, Any], long_context: bool = False) -> None:
        Counter.loaded.append((scenario, long_context))
        self.value = scenario.get("value", 0)

    def increment(self, by: int = 1) -> dict[str, int]:
        self._calls += 1
        self.value += by
        return {"value": self.value}

    def get(self) -> dict[str, int]:
        return {"value": self.value}

    def hello(self) -> str:
        return "hello"


class Stateless:
    """Registered as MathAPI: upstream never loads a scenario into that class."""

    def _load_scenario(self, scenario: dict[str, Any], long_context: bool = False) -> None:
        raise AssertionError("a stateless class got a scenario")

    def double(self, x: int) -> dict[str, int]:
        return {"result": 2 * x}


class Broken(Counter):
    def _load_scenario(self, scenario: dict[str, Any], long_context: bool = False) -> None:
        raise KeyError("damaged scenario")


@pytest.fixture(autouse=True)
def stub_classes(monkeypatch: pytest.MonkeyPatch) -> None:
    module = sys.modules[__name__].__name__
    monkeypatch.setitem(CLASSES, "Counter", f"{module}:Counter")
    monkeypatch.setitem(CLASSES, "MathAPI", f"{module}:Stateless")
    monkeypatch.setitem(CLASSES, "Broken", f"{module}:Broken")
    Counter.loaded = []


def case(
    truth: list[list[str]],
    config: dict[str, Any] | None = None,
    classes: tuple[str, ...] = ("Counter",),
    test_id: str = "multi_turn_base_0",
) -> TestCase:
    extras = {"initial_config": config or {}, "involved_classes": list(classes)}
    return TestCase(test_id, test_id.rsplit("_", 1)[0], [], [], truth, extras)


def prompt_steps(*turns: list[str]) -> list[list[str]]:
    """Prompt-mode raw result: one list of step texts per turn."""
    return [list(turn) for turn in turns]


def test_correct_answer_passes() -> None:
    truth = [["increment(by=2)"], ["get()"]]
    raw = prompt_steps(["[increment(by=2)]", "Done."], ["[get()]"])
    verdict = judge_multi_turn(case(truth, {"Counter": {"value": 1}}), raw, PROMPT)
    assert verdict.valid, verdict


def test_fc_answer_passes() -> None:
    truth = [["increment(2)"]]
    raw = [[[{"increment": json.dumps({"by": 2})}], []]]
    assert judge_multi_turn(case(truth), raw, FC).valid


def test_not_a_list_is_an_inference_error() -> None:
    verdict = judge_multi_turn(case([["get()"]]), "Error during inference: boom", PROMPT)
    assert verdict.error_type == INFERENCE_ERROR
    assert verdict.extras["error"] == {
        "error_message": [
            "Error during inference phase. Model did not output a list of model responses."
        ],
        "error_type": INFERENCE_ERROR,
    }


def test_missing_turns_mean_force_terminated() -> None:
    verdict = judge_multi_turn(case([["get()"], ["get()"]]), [["[get()]"]], PROMPT)
    assert verdict.error_type == FORCE_TERMINATED
    assert verdict.errors == [
        "Model was force-terminated during inference phase. The length of the model result "
        "turns (1) does not match the length of the ground truth turns (2)."
    ]


def test_chat_only_turn_is_an_empty_turn() -> None:
    """Undecodable and empty steps are dropped, leaving the turn empty."""
    raw = prompt_steps(["I will not do it.", "[]"])
    verdict = judge_multi_turn(case([["get()"]]), raw, PROMPT)
    assert verdict.error_type == EMPTY_TURN
    error = verdict.extras["error"]
    assert error["error_message"] == "Model response list is empty for turn 0"
    assert error["details"] == {
        "execution_result": [{"model": [], "ground_truth": ['{"value": 0}']}]
    }


def test_state_mismatch_lists_the_differing_attributes() -> None:
    verdict = judge_multi_turn(case([["increment(by=2)"]]), [["[increment(by=3)]"]], PROMPT)
    assert verdict.error_type == STATE_MISMATCH
    error = verdict.extras["error"]
    assert error["error_message"] == (
        "Model instance for Counter does not match the state with ground truth instance."
    )
    assert error["details"] == {
        "differences": {"value": {"model": 3, "ground_truth": 2}},
        "model_instance_state": {"value": 3},
        "ground_truth_instance_state": {"value": 2},
    }
    assert error["execution_result"] == [
        {"model": [['{"value": 3}']], "ground_truth": ['{"value": 2}']}
    ]
    assert verdict.extras["decoded"] == [[["increment(by=3)"]]]


def test_missing_result_is_a_response_mismatch() -> None:
    verdict = judge_multi_turn(case([["hello()"]]), [["[get()]"]], PROMPT)
    assert verdict.error_type == RESPONSE_MISMATCH
    details = verdict.extras["error"]["details"]
    assert details["missing_items"] == ["hello"]
    assert details["model_response (including all previous turns)"] == ['{"value": 0}']
    assert details["ground_truth_response (only the current turn)"] == ["hello"]


def test_results_of_earlier_turns_count() -> None:
    truth = [["increment(by=1)"], ["get()"]]
    raw = prompt_steps(["[increment(by=1), get()]"], ["[hello()]"])
    assert judge_multi_turn(case(truth), raw, PROMPT).valid


def test_each_model_result_matches_one_expected_result() -> None:
    truth = [["hello()", "hello()"]]
    assert judge_multi_turn(case(truth), [["[hello()]"]], PROMPT).error_type == RESPONSE_MISMATCH
    assert judge_multi_turn(case(truth), [["[hello()]", "[hello()]"]], PROMPT).valid


def test_calls_in_an_empty_ground_truth_turn_still_change_state() -> None:
    truth: list[list[str]] = [[], ["get()"]]
    verdict = judge_multi_turn(case(truth), prompt_steps(["[increment()]"], ["[get()]"]), PROMPT)
    assert verdict.error_type == STATE_MISMATCH
    assert judge_multi_turn(case(truth), prompt_steps([], ["[get()]"]), PROMPT).valid


def test_every_case_gets_fresh_instances() -> None:
    scenario = case([["increment(by=1)"]])
    for _ in range(3):
        assert judge_multi_turn(scenario, [["[increment(by=1)]"]], PROMPT).valid
    assert Counter.loaded == [({}, False)] * 6  # model and ground truth, each time


def test_scenarios_are_deep_copies_and_long_context_follows_the_id() -> None:
    config = {"Counter": {"value": 5, "nested": {"k": [1]}}}
    scenario = case([["get()"]], config, test_id="multi_turn_long_context_4")
    assert judge_multi_turn(scenario, [["[get()]"]], PROMPT).valid
    assert [flag for _, flag in Counter.loaded] == [True, True]
    assert Counter.loaded[0][0] == config["Counter"]
    assert Counter.loaded[0][0] is not config["Counter"]
    assert config == {"Counter": {"value": 5, "nested": {"k": [1]}}}
    assert is_long_context("multi_turn_composite_1")
    assert not is_long_context("multi_turn_base_1")


def test_stateless_class_gets_no_scenario() -> None:
    scenario = case([["double(2)"]], {"MathAPI": {"x": 1}}, ("Counter", "MathAPI"))
    assert judge_multi_turn(scenario, [["[double(x=2)]"]], PROMPT).valid


def test_broken_environment_is_recorded_not_raised() -> None:
    verdict = judge_multi_turn(case([["get()"]], classes=("Broken",)), [["[get()]"]], PROMPT)
    assert verdict.error_type == "fcbench:checker_crash"


def test_details_can_be_skipped() -> None:
    verdict = judge_multi_turn(
        case([["increment(by=2)"]]), [["[increment(by=3)]"]], PROMPT, details=False
    )
    assert verdict.error_type == STATE_MISMATCH
    assert set(verdict.extras["error"]) == {"error_message", "error_type"}


def test_real_math_api(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(CLASSES, "MathAPI", "fcbench.envs.multi_turn.math_api:MathAPI")
    scenario = case([["add(a=1, b=2)"], ["mean(numbers=[1, 2, 3])"]], classes=("MathAPI",))
    raw = [[[{"add": '{"a": 1, "b": 2}'}]], [[{"mean": '{"numbers": [1, 2, 3]}'}]]]
    assert judge_multi_turn(scenario, raw, FC).valid
    wrong = [[[{"add": '{"a": 1, "b": 3}'}]], [[{"mean": '{"numbers": [1, 2, 3]}'}]]]
    assert judge_multi_turn(scenario, wrong, FC).error_type == RESPONSE_MISMATCH


def test_failure_records_have_the_official_multi_turn_shape() -> None:
    from fcbench.check.kinds.multi_turn import multi_turn_record as failure_record
    from fcbench.core import categories

    category = categories.get("multi_turn_base")
    scenario = case([["increment(by=2)"]])
    raw = [["[increment(by=3)]"]]
    record = failure_record(
        "m", category, scenario, raw, judge_multi_turn(scenario, raw, PROMPT), inference_log=[1]
    )
    assert list(record) == [
        "id", "model_name", "test_category", "valid", "error", "prompt",
        "model_result_raw", "model_result_decoded", "possible_answer", "inference_log",
    ]  # fmt: skip
    assert list(record["error"]) == [
        "error_message", "error_type", "details", "execution_result"
    ]  # fmt: skip
    assert record["prompt"] == {
        "id": "multi_turn_base_0",
        "question": [],
        "initial_config": {},
        "involved_classes": ["Counter"],
    }  # the function docs are left out, like upstream
    assert record["model_result_decoded"] == [[["increment(by=3)"]]]
    assert record["inference_log"] == [1]

    terminated = failure_record("m", category, scenario, [], judge_multi_turn(scenario, [], PROMPT))
    assert list(terminated) == [
        "id", "model_name", "test_category", "valid", "error", "prompt",
        "model_result", "possible_answer", "inference_log",
    ]  # fmt: skip
    assert terminated["error"]["error_type"] == FORCE_TERMINATED
    assert terminated["inference_log"] == ""


def _truth_steps(case: TestCase) -> list[list[str]]:
    """The ground truth as a prompt-mode model answers it: one step per turn."""
    return [["[" + ", ".join(calls) + "]"] if calls else [] for calls in case.possible_answer]


def test_hostile_calls_in_a_result_file_are_judged_fast_and_the_rest_unchanged(
    fetched_home: Path, tmp_path: Path
) -> None:
    """The doubling tree (official: 76 s, 6 GB, MemoryError, no score file) and the precision
    and power bombs (291 s, 5.4 GB) among ground-truth answers: judged in seconds, the score
    file written, the bombed file-system case a state mismatch, and the math bombs, whose
    results never matter, leave their case valid, as the official evaluator would."""
    from fcbench.dataset.load import load_category
    from fcbench.evaluation import evaluate
    from hostile.environments import doubling_tree

    cases = load_category("multi_turn_base")
    with_fs = next(c for c in cases if "GorillaFileSystem" in c.extras["involved_classes"])
    with_math = next(c for c in cases if "MathAPI" in c.extras["involved_classes"])
    others = [c for c in cases if c not in (with_fs, with_math)][:4]
    answers = {c.id: _truth_steps(c) for c in [with_fs, with_math, *others]}
    answers[with_fs.id][0].insert(0, "[" + ", ".join(doubling_tree(22)) + "]")
    answers[with_math.id][0].insert(0, "[square_root(number=2, precision=999999999), "
                                       "power(base=2, exponent=999999999)]")
    folder = tmp_path / "results" / "my-model"
    (folder / "multi_turn").mkdir(parents=True)
    (folder / "model.json").write_text(json.dumps({"mode": "prompt"}))
    lines = [json.dumps({"id": i, "result": r}) for i, r in answers.items()]
    result_file = folder / "multi_turn" / "BFCL_v4_multi_turn_base_result.json"
    result_file.write_text("\n".join(lines) + "\n")
    started = time.monotonic()
    report = evaluate(tmp_path / "results", score_dir=tmp_path / "scores", workers=1)
    assert time.monotonic() - started < 30  # most of it loading the category
    verdicts = {c.id: c.verdict for c in report.models["my-model"].categories[
        "multi_turn_base"].cases}
    assert not verdicts[with_fs.id].valid
    assert verdicts[with_fs.id].error_type == "multi_turn:instance_state_mismatch"
    assert all(v.valid for i, v in verdicts.items() if i != with_fs.id), verdicts
    score_file = tmp_path / "scores" / "my-model" / "multi_turn" / \
        "BFCL_v4_multi_turn_base_score.json"
    assert [json.loads(line)["id"] for line in score_file.read_text().splitlines()[1:]] == [
        with_fs.id]
