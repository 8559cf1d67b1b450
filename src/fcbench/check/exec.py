"""Executable checking (exec_simple, exec_multiple, exec_parallel, exec_parallel_multiple,
rest) as the 2024-era official evaluator did it (spec §5), on fcbench's safe sandbox.

Per case: decode the answer into call strings (`decode_execute`), check the output shape and
the call count, then run calls and compare results:

* expected results come from running the case's ground-truth calls (once per run, shared by
  every model) and, as upstream stored them in a JSON file before comparing, they go through
  a JSON round trip (tuples become lists, dict keys strings);
* `exact_match` compares with `==`, `real_time_match` accepts numbers within ±20%,
  `structural_match` compares types, dict key sets and list lengths;
* multiple/parallel cases match model calls to ground-truth calls greedily, unordered;
* `rest` runs the one `requests.get` call and compares the response's status and JSON shape
  with the stored sample response.

A case whose ground truth, or one of whose model calls, needs a web service the backend
cannot reach is *skipped*: its verdict carries `extras["skipped"]` (the reason) and
`error_type == SKIPPED`; evaluation counts it apart, neither passed nor failed.
"""

from __future__ import annotations

import json
from typing import Any

from fcbench._json import int_digits
from fcbench.check.exec_runner import (
    ExecRunner,
    Unanswerable,
    close_runners,
    limits_for,
    shared_runner,
    skip_if_unavailable,
)
from fcbench.check.exec_sandbox import Outcome
from fcbench.core.categories import Category, Checker
from fcbench.core.model import TestCase, Verdict
from fcbench.decode.encoding import Encoding
from fcbench.decode.errors import DecodeError
from fcbench.decode.execute import decode_execute
from fcbench.envs.exec_functions import REST_NAME
from fcbench.envs.exec_functions.backends import HttpResponse

SKIPPED = "fcbench:skipped"
CHECKER_CRASH = "fcbench:checker_crash"
REAL_TIME_TOLERANCE = 0.2
__all__ = [
    "CHECKER_CRASH",
    "SKIPPED",
    "ExecRunner",
    "Unanswerable",
    "check_result",
    "close_runners",
    "is_skipped",
    "judge_exec",
    "limits_for",
    "rest_verdict",
    "shared_runner",
]
WRONG_FORMAT_MESSAGE = (
    "Did not output in the specified format. Note: the model_result is wrapped in a string "
    "to ensure json serializability."
)


# --------------------------------------------------------------------------- entry point


def judge_exec(
    case: TestCase, category: Category, raw: Any, encoding: Encoding, runner: ExecRunner
) -> Verdict:
    """The verdict on one executable-category answer; never raises."""
    try:
        calls = decode_execute(raw, encoding)
    except DecodeError as exc:
        return Verdict.fail("executable_decoder:decoder_failed", _decode_message(exc))
    except Exception as exc:  # a decoder bug must not lose the run
        return Verdict.fail(
            "executable_decoder:decoder_failed", f"Failed to decode executable. {exc}"
        )
    try:
        if category.checker == Checker.REST:
            verdict = _judge_rest(case, calls, runner)
        else:
            verdict = _judge_calls(case, category, calls, runner)
    except Unanswerable as skip:
        return Verdict.fail(SKIPPED, str(skip), skipped=str(skip), decoded=calls)
    except Exception as exc:  # a checker bug must not lose the run
        return Verdict.fail(
            CHECKER_CRASH,
            f"The checker could not judge this case ({type(exc).__name__}: {exc}).",
            decoded=calls,
        )
    if verdict.valid:
        return verdict
    return Verdict(False, verdict.error_type, verdict.errors, {"decoded": calls, **verdict.extras})


def _decode_message(exc: DecodeError) -> str:
    text = str(exc)
    prefix = "Failed to decode for execution. "
    return "Failed to decode executable. " + (
        text[len(prefix) :] if text.startswith(prefix) else text
    )


def is_skipped(verdict: Verdict) -> bool:
    return "skipped" in verdict.extras


# --------------------------------------------------------------------------- exec_* cases


def _judge_calls(
    case: TestCase, category: Category, calls: list[str], runner: ExecRunner
) -> Verdict:
    if not _is_call_strings(calls):
        return Verdict.fail("executable_decoder:wrong_output_format", WRONG_FORMAT_MESSAGE)
    ground_truth: list[str] = list(case.possible_answer or [])
    kinds: list[str] = list(case.extras.get("execution_result_type", []))
    if category.checker == Checker.EXEC_SIMPLE:
        if len(calls) != 1:
            return Verdict.fail("simple_exec_checker:wrong_count", "Wrong number of functions.")
    elif len(calls) != len(ground_truth):
        return Verdict.fail(
            "value_error:exec_result_count",
            f"Wrong number of functions provided. Expected {len(ground_truth)}, "
            f"but got {len(calls)}.",
        )
    expected = _expected_results(ground_truth, runner)
    outcomes = runner.run(calls)
    skip_if_unavailable(outcomes, "a model call")
    kinds = match_kinds(kinds, len(expected))
    if category.checker == Checker.EXEC_SIMPLE:
        return check_result(calls[0], outcomes[0], expected[0], kinds[0])
    return _match_unordered(calls, outcomes, expected, kinds)


def match_kinds(kinds: list[str], count: int) -> list[str]:
    """One comparison kind per ground-truth call. Upstream reads them by the call's index, so
    extra kinds are ignored (exec_parallel_multiple_30 lists three for two calls); a missing
    one, where upstream would crash, is compared exactly."""
    return [kinds[i] if i < len(kinds) else "exact_match" for i in range(count)]


def _is_call_strings(calls: Any) -> bool:
    return type(calls) is list and len(calls) > 0 and all(type(c) is str for c in calls)


def _expected_results(ground_truth: list[str], runner: ExecRunner) -> list[Any]:
    outcomes = runner.run(ground_truth)
    skip_if_unavailable(outcomes, "the ground truth")
    expected = []
    for call, outcome in zip(ground_truth, outcomes, strict=True):
        if not outcome.ok:
            raise Unanswerable(f"the ground truth call {call} failed to run: {outcome.message}")
        expected.append(as_stored(outcome.value))
    return expected


def as_stored(value: Any) -> Any:
    """The value after the JSON file round trip upstream's expected results went through."""
    try:
        with int_digits():
            return json.loads(json.dumps(value))
    except (TypeError, ValueError):
        return value


def check_result(
    call: str, outcome: Outcome, expected: Any, kind: str, sanity: bool = False
) -> Verdict:
    """One call against one expected result (upstream `executable_checker_simple`); in the
    API sanity check (`sanity`) a dict result only needs as many keys as the expected one."""
    if not outcome.ok:
        return Verdict.fail(
            "executable_checker:execution_error",
            f"Error in execution: {call!r}. Error: {outcome.message}",
        )
    output = list(outcome.value) if isinstance(outcome.value, tuple) else outcome.value
    if kind == "exact_match":
        if output != expected:
            return _wrong(
                "executable_checker:wrong_result",
                f"Wrong execution result for {call!r}. Expected: {expected}, but got: {output}.",
                output,
            )
        return Verdict.ok()
    if kind == "real_time_match":
        return _real_time(call, output, expected)
    return _structural(call, output, expected, sanity)


def _wrong(error_type: str, message: str, output: Any) -> Verdict:
    return Verdict.fail(error_type, message, model_executed_output=output)


def _real_time(call: str, output: Any, expected: Any) -> Verdict:
    numbers = (int, float)
    if type(expected) in numbers and type(output) in numbers:
        low = expected * (1 - REAL_TIME_TOLERANCE)
        high = expected * (1 + REAL_TIME_TOLERANCE)
        if low <= output <= high:
            return Verdict.ok()
        note = f"{REAL_TIME_TOLERANCE * 100}% difference allowed."
    else:
        note = "Type needs to be float or int for real time match criteria."
    return _wrong(
        "executable_checker:wrong_result_real_time",
        f"Wrong execution result for {call!r}. Expected: {expected}, but got: {output}. {note}",
        output,
    )


def _structural(call: str, output: Any, expected: Any, sanity: bool = False) -> Verdict:
    """Same type; dicts with the same keys (the same number of keys in the sanity check,
    whose recorded answers may hold timestamps as keys); lists of the same length."""
    prefix = f"Wrong execution result pattern for {call!r}."
    if type(output) is not type(expected):
        return _wrong(
            "executable_checker:wrong_result_type",
            f"Wrong execution result type for {call!r}. Expected type: {type(expected)}, "
            f"but got: {type(output)}.",
            output,
        )
    if isinstance(output, dict) and sanity:
        if len(output) == len(expected):
            return Verdict.ok()
        return _wrong(
            "executable_checker:wrong_result_type:dict_length",
            f"{prefix} Expect type Dict, but wrong number of elements in the output. "
            f"Expected length: {len(expected)}, but got: {len(output)}.",
            output,
        )
    if isinstance(output, dict):
        for key in expected:
            if key not in output:
                return _wrong(
                    "executable_checker:wrong_result_type:dict_key_not_found",
                    f"{prefix} Expect type Dict, but key {key!r} not found in the model output.",
                    output,
                )
        for key in output:
            if key not in expected:
                return _wrong(
                    "executable_checker:wrong_result_type:dict_extra_key",
                    f"{prefix} Expect type Dict, but key {key!r} not expected in the model output.",
                    output,
                )
    if isinstance(output, list) and len(output) != len(expected):
        return _wrong(
            "executable_checker:wrong_result_type:list_length",
            f"{prefix} Expect type list, but wrong number of elements in the output. "
            f"Expected length: {len(expected)}, but got: {len(output)}.",
            output,
        )
    return Verdict.ok()


def _match_unordered(
    calls: list[str], outcomes: list[Outcome], expected: list[Any], kinds: list[str]
) -> Verdict:
    """Greedy matching: each expected result, in order, takes the first unclaimed model call
    that passes; no backtracking (upstream `executable_checker_parallel_no_order`)."""
    claimed: set[int] = set()
    for i, (want, kind) in enumerate(zip(expected, kinds, strict=True)):
        errors: list[Any] = []
        for index, (call, outcome) in enumerate(zip(calls, outcomes, strict=True)):
            if index in claimed:
                continue
            verdict = check_result(call, outcome, want, kind)
            if verdict.valid:
                claimed.add(index)
                break
            errors.append({f"Model Result Index {index}": _sub_error(verdict)})
        else:
            open_indices = [k for k in range(len(calls)) if k not in claimed]
            errors.insert(
                0,
                f"Could not find a matching function among index {open_indices} of model "
                f"output for index {i} of possible answers.",
            )
            return Verdict(False, "executable_checker:cannot_find_match", errors)
    return Verdict.ok()


def _sub_error(verdict: Verdict) -> dict[str, Any]:
    return {
        "sub_error": verdict.errors,
        "sub_error_type": verdict.error_type,
        "model_executed_output": verdict.extras.get("model_executed_output"),
    }


# --------------------------------------------------------------------------- rest


def _judge_rest(case: TestCase, calls: list[str], runner: ExecRunner) -> Verdict:
    if not (type(calls) is list and len(calls) == 1 and type(calls[0]) is str):
        return Verdict.fail("executable_decoder:rest_wrong_output_format", WRONG_FORMAT_MESSAGE)
    return rest_verdict(calls[0], case.possible_answer, runner)


def rest_verdict(call: str, sample: Any, runner: ExecRunner) -> Verdict:
    """One REST request against a stored sample response (JSON text): status 200 and the
    same JSON shape (upstream `executable_checker_rest`); raises Unanswerable when unanswerable."""
    call = call.replace("requests_get", REST_NAME)
    (outcome,) = runner.run([call])
    skip_if_unavailable([outcome], "the request")
    if not outcome.ok:
        return Verdict.fail(
            "executable_checker_rest:execution_error", f"Execution failed. {outcome.message}"
        )
    response = outcome.value
    if not isinstance(response, HttpResponse):
        return Verdict.fail(
            "executable_checker_rest:cannot_get_status_code",
            "Cannot get status code of the response. Error: the call returned no response",
        )
    if response.status_code != 200:
        return Verdict.fail(
            "executable_checker_rest:wrong_status_code",
            f"Execution result status code is not 200, got {response.status_code}",
        )
    try:
        return _rest_shape(json.loads(sample), response)
    except Exception as exc:
        return Verdict.fail(
            "executable_checker_rest:response_format_error",
            "Error in execution and type checking. Status code: "
            f"{response.status_code}. Error: {exc}",
        )


def _rest_shape(sample: Any, response: HttpResponse) -> Verdict:
    """Dict: same key set; list: same length and per-item key sets (upstream order)."""
    body = response.json()
    if isinstance(sample, dict):
        if not isinstance(body, dict):
            return _rest_type("dictionary", body)
        if set(sample) == set(body):
            return Verdict.ok()
        return Verdict.fail("executable_checker_rest:wrong_key", "Key inconsistency")
    if isinstance(sample, list):
        if not isinstance(body, list):
            return _rest_type("list", body)
        if len(sample) != len(body):
            return Verdict.fail(
                "value_error:exec_result_rest_count", "Response list length inconsistency."
            )
        for want, got in zip(sample, body, strict=True):
            if set(want.keys()) != set(got.keys()):
                return Verdict.fail("executable_checker_rest:wrong_key", "Key inconsistency")
        return Verdict.ok()
    return _rest_type("dict or list", body)


def _rest_type(expected: str, body: Any) -> Verdict:
    return Verdict.fail(
        "executable_checker_rest:wrong_type", f"Expected {expected}, but got {type(body)}"
    )
