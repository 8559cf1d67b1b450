"""The multi-turn checker (spec §6.4): replay the model's calls and the ground truth's calls
on separate environment instances, turn by turn, and compare states and results.

A case passes when, after every turn whose ground truth is not empty, (1) every involved
instance of the model has the same public attributes as the ground truth's, and (2) each
ground-truth result of that turn appears among the model's results of all turns so far
(as a multiset). Steps that do not decode, or decode to nothing, are ignored: chatting is
not an error. Calls run on fresh instances for every case (the official evaluator keeps
them in process globals, which can leak state between evaluations; spec §6.4).
"""

from __future__ import annotations

import contextlib
import importlib
from typing import Any

from fcbench.core.model import TestCase, Verdict
from fcbench.decode.encoding import Encoding
from fcbench.decode.errors import DecodeError
from fcbench.decode.execute import decode_execute, is_empty_execution
from fcbench.envs.budget import BUDGET_ERROR_TYPE, CASE_SECONDS, CaseOverBudget, case_budget
from fcbench.envs.multi_turn import CLASSES
from fcbench.envs.scenario import (
    Scenario,
    environment_class,
    json_safe,
    public_state,
)

__all__ = [
    "EMPTY_TURN",
    "FORCE_TERMINATED",
    "INFERENCE_ERROR",
    "RESPONSE_MISMATCH",
    "STATE_MISMATCH",
    "judge_multi_turn",
]

INFERENCE_ERROR = "multi_turn:inference_error"
FORCE_TERMINATED = "multi_turn:force_terminated"
EMPTY_TURN = "multi_turn:empty_turn_model_response"
STATE_MISMATCH = "multi_turn:instance_state_mismatch"
RESPONSE_MISMATCH = "multi_turn:execution_response_mismatch"
CHECKER_CRASH = "fcbench:checker_crash"

PRE_CHECK_ERRORS = frozenset({INFERENCE_ERROR, FORCE_TERMINATED})
"""Failures decided before decoding; their score-file records show `model_result`."""

DEFAULT_MODEL_NAME = "fcbench"


def preload() -> None:
    """Import the environment classes (and what they import on first use) now: called
    before evaluation forks its workers, so that they share the modules instead of each
    importing them again."""
    for name in CLASSES:
        with contextlib.suppress(Exception):  # a broken class fails its cases later
            environment_class(name)
    with contextlib.suppress(ImportError):
        importlib.import_module("mpmath")  # MathAPI.logarithm's, imported on first call


def judge_multi_turn(
    case: TestCase,
    raw: Any,
    encoding: Encoding,
    model_name: str = DEFAULT_MODEL_NAME,
    details: bool = True,
    release: str | None = None,
    seconds: float = CASE_SECONDS,
) -> Verdict:
    """The verdict on one multi-turn answer; never raises.

    `model_name` only names the instances (it can show in call arguments, see
    `dispatch`); `details=False` skips the state snapshots that only score files show;
    `release` is the dataset release the environments load their filler tables from.
    The replay runs under the case budget (`envs.budget.case_budget`: `seconds` of wall
    clock and a memory cap): past it the case fails with `BUDGET_ERROR_TYPE` and the run
    goes on, where the official evaluator would run for minutes and then stop.
    """
    truth: list[list[str]] = case.possible_answer
    if type(raw) is not list:
        message = "Error during inference phase. Model did not output a list of model responses."
        return _pre_check_failure(INFERENCE_ERROR, message)
    if len(raw) != len(truth):
        return _pre_check_failure(
            FORCE_TERMINATED,
            "Model was force-terminated during inference phase. The length of the model "
            f"result turns ({len(raw)}) does not match the length of the ground truth turns "
            f"({len(truth)}).",
        )
    try:
        with case_budget(seconds):
            decoded = [decode_turn(turn, encoding) for turn in raw]
            return _Replay(case, model_name, details, release).run(decoded, truth)
    except (CaseOverBudget, MemoryError) as exc:
        reason = str(exc) if isinstance(exc, CaseOverBudget) else "it ran out of memory"
        return _budget_failure(f"The replay of this case was stopped: {reason}.")
    except Exception as exc:  # an environment bug must not lose the run
        return Verdict.fail(
            CHECKER_CRASH,
            f"The checker could not judge this case ({type(exc).__name__}: {exc}); "
            "the official evaluator stops on such a case.",
        )


def decode_turn(turn: Any, encoding: Encoding) -> list[list[str]]:
    """The turn's steps that decode to at least one call (the others are dropped)."""
    steps = []
    for step in turn:
        try:
            calls = decode_execute(step, encoding)
        except DecodeError:
            continue
        if not is_empty_execution(calls):
            steps.append(calls)
    return steps


def _budget_failure(message: str) -> Verdict:
    error = {"error_message": message, "error_type": BUDGET_ERROR_TYPE}
    return Verdict.fail(BUDGET_ERROR_TYPE, message, error=error)


def _pre_check_failure(error_type: str, message: str) -> Verdict:
    error = {"error_message": [message], "error_type": error_type}
    return Verdict.fail(error_type, message, error=error)


class _Replay:
    """The turn loop of one case."""

    def __init__(
        self, case: TestCase, model_name: str, details: bool, release: str | None
    ) -> None:
        self.model = Scenario(case, f"{model_name}_eval", release)
        self.truth = Scenario(case, f"{model_name}_ground_truth_eval", release)
        self.details = details
        self.decoded: list[list[list[str]]] = []
        self.executions: list[dict[str, Any]] = []
        self.model_results: list[str] = []

    def run(self, decoded: list[list[list[str]]], truth: list[list[str]]) -> Verdict:
        self.decoded = decoded
        for index, truth_calls in enumerate(truth):
            steps = decoded[index]
            step_results = [self.model.execute(step) for step in steps]
            truth_results = self.truth.execute(truth_calls)
            for results in step_results:
                self.model_results.extend(results)
            self.executions.append({"model": step_results, "ground_truth": truth_results})
            if not truth_calls:
                continue  # nothing is expected; the model's calls still changed its state
            if not steps:
                extra = {"details": {"execution_result": self.executions}}
                return self._fail(
                    EMPTY_TURN, f"Model response list is empty for turn {index}", extra
                )
            verdict = self._check_state() or self._check_results(truth_results, index)
            if verdict is not None:
                return verdict
        return Verdict.ok()

    def _check_state(self) -> Verdict | None:
        for class_name, truth_instance in self.truth.instances.items():
            model_instance = self.model.instances[class_name]
            differences = state_differences(model_instance, truth_instance)
            if differences:
                extra = {
                    "details": {
                        "differences": differences,
                        "model_instance_state": public_state(model_instance),
                        "ground_truth_instance_state": public_state(truth_instance),
                    },
                    "execution_result": self.executions,
                }
                return self._fail(
                    STATE_MISMATCH,
                    f"Model instance for {class_name} does not match the state with ground "
                    "truth instance.",
                    extra,
                )
        return None

    def _check_results(self, truth_results: list[str], index: int) -> Verdict | None:
        missing = missing_results(truth_results, self.model_results)
        if not missing:
            return None
        return self._fail(
            RESPONSE_MISMATCH,
            "Model response execution results so far does not contain all the ground truth "
            f"response execution results for turn {index}.",
            {
                "details": {
                    "missing_items": missing,
                    "model_response (including all previous turns)": self.model_results,
                    "ground_truth_response (only the current turn)": truth_results,
                }
            },
        )

    def _fail(self, error_type: str, message: str, extra: dict[str, Any]) -> Verdict:
        """The official error dict; its details (JSON-safe snapshots) only when asked for."""
        error: dict[str, Any] = {"error_message": message, "error_type": error_type}
        if self.details:
            error.update(json_safe(extra))
        return Verdict.fail(error_type, message, error=error, decoded=self.decoded)


def state_differences(model: object, truth: object) -> dict[str, Any]:
    """Attributes (the ground truth's public ones) whose values differ (`!=`)."""
    if type(model) is not type(truth):
        raise TypeError("Objects are not of the same type.")
    truth_state = public_state(truth)
    if truth_state == {name: getattr(model, name) for name in truth_state}:
        return {}  # the usual case, decided by one dict comparison
    differences = {}
    for name in vars(truth):
        if name.startswith("_"):
            continue
        model_value, truth_value = getattr(model, name), getattr(truth, name)
        if model_value != truth_value:
            differences[name] = {"model": model_value, "ground_truth": truth_value}
    return differences


def missing_results(expected: list[str], produced: list[str]) -> list[str]:
    """The expected items not matched, each produced item matching at most one."""
    available = list(produced)
    missing = []
    for item in expected:
        try:
            available.remove(item)
        except ValueError:
            missing.append(item)
    return missing
