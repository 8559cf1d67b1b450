"""The executable checker's rules (spec §5), with call outcomes supplied by a stub runner."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import pytest

from fcbench.check.exec import SKIPPED, ExecRunner, as_stored, is_skipped, judge_exec
from fcbench.check.exec_sandbox import Outcome
from fcbench.core import categories
from fcbench.core.model import TestCase, Verdict
from fcbench.decode.encoding import Encoding
from fcbench.envs.exec_functions.backends import HttpResponse

PROMPT = Encoding()
FC = Encoding("fc", "underscore", "json_string")


class StubRunner(ExecRunner):
    """Outcomes by call string; unknown calls are execution errors."""

    def __init__(self, outcomes: dict[str, Outcome]) -> None:
        super().__init__()
        self.outcomes = outcomes

    def run(self, calls: Sequence[str]) -> list[Outcome]:
        return [self.outcomes.get(c, Outcome.error(f"unknown call {c}")) for c in calls]


def ok(value: Any) -> Outcome:
    return Outcome("ok", value)


def _judge(
    category: str,
    truth: Any,
    kinds: list[str],
    raw: Any,
    outcomes: dict[str, Outcome],
    encoding: Encoding = PROMPT,
) -> Verdict:
    case = TestCase(f"{category}_0", category, [], [], truth, {"execution_result_type": kinds})
    return judge_exec(case, categories.get(category), raw, encoding, StubRunner(outcomes))


GT = "f(a=1)"


def test_exact_match_pass_and_wrong_result() -> None:
    assert _judge("exec_simple", [GT], ["exact_match"], "[f(a=1)]", {GT: ok(2.0)}).valid
    verdict = _judge(
        "exec_simple", [GT], ["exact_match"], "[f(a=2)]", {GT: ok(2.0), "f(a=2)": ok(3.0)}
    )
    assert verdict.error_type == "executable_checker:wrong_result"
    assert verdict.extras["model_executed_output"] == 3.0


def test_top_level_tuple_becomes_a_list_and_expected_goes_through_json() -> None:
    outcomes = {GT: ok((1.5, 2.5)), "f(a=2)": ok((1.5, 2.5))}
    assert _judge("exec_simple", [GT], ["exact_match"], "[f(a=2)]", outcomes).valid
    assert as_stored({1: (1, 2)}) == {"1": [1, 2]}
    assert as_stored(10**5000) == 10**5000


def test_decoder_and_count_errors() -> None:
    outcomes = {GT: ok(1)}
    assert _judge("exec_simple", [GT], ["exact_match"], "[f(a=", outcomes).error_type == (
        "executable_decoder:decoder_failed"
    )
    assert _judge("exec_simple", [GT], ["exact_match"], "[]", outcomes).error_type == (
        "executable_decoder:wrong_output_format"
    )
    verdict = _judge("exec_simple", [GT], ["exact_match"], "[f(a=1), f(a=1)]", outcomes)
    assert verdict.error_type == "simple_exec_checker:wrong_count"
    verdict = _judge("exec_parallel", [GT, GT], ["exact_match"] * 2, "[f(a=1)]", outcomes)
    assert verdict.error_type == "value_error:exec_result_count"
    text = _judge("exec_simple", [GT], ["exact_match"], "I cannot", outcomes, FC)
    assert text.error_type == "executable_decoder:decoder_failed"


def test_execution_error() -> None:
    verdict = _judge(
        "exec_simple", [GT], ["exact_match"], "[g(a=1)]", {GT: ok(1), "g(a=1)": Outcome.error("x")}
    )
    assert verdict.error_type == "executable_checker:execution_error"


@pytest.mark.parametrize(
    ("expected", "got", "valid"),
    [
        (100, 80, True),
        (100, 120, True),
        (100.0, 79.9, False),
        (100, 121, False),
        (100, "100", False),
        (50.0, 55, True),
    ],
)
def test_real_time_match_twenty_percent(expected: Any, got: Any, valid: bool) -> None:
    outcomes = {GT: ok(expected), "f(a=2)": ok(got)}
    verdict = _judge("exec_simple", [GT], ["real_time_match"], "[f(a=2)]", outcomes)
    assert verdict.valid is valid
    if not valid:
        assert verdict.error_type == "executable_checker:wrong_result_real_time"


@pytest.mark.parametrize(
    ("expected", "got", "error_type"),
    [
        ({"a": 1, "b": 2}, {"a": 9, "b": 0}, None),
        ({"a": 1, "b": 2}, {"a": 1}, "executable_checker:wrong_result_type:dict_key_not_found"),
        ({"a": 1}, {"a": 1, "c": 3}, "executable_checker:wrong_result_type:dict_extra_key"),
        ([1, 2], [3, 4], None),
        ([1, 2], [1], "executable_checker:wrong_result_type:list_length"),
        ([1, 2], {"a": 1}, "executable_checker:wrong_result_type"),
        (1.0, 7.5, None),
    ],
)
def test_structural_match(expected: Any, got: Any, error_type: str | None) -> None:
    outcomes = {GT: ok(expected), "f(a=2)": ok(got)}
    verdict = _judge("exec_simple", [GT], ["structural_match"], "[f(a=2)]", outcomes)
    assert verdict.error_type == error_type


def test_greedy_unordered_matching_without_backtracking() -> None:
    outcomes = {"g(a=1)": ok(1), "g(a=2)": ok(2), "h(a=1)": ok(1), "h(a=2)": ok(2)}
    truth, kinds = ["g(a=1)", "g(a=2)"], ["exact_match"] * 2
    assert _judge("exec_parallel", truth, kinds, "[h(a=2), h(a=1)]", outcomes).valid
    failed = _judge("exec_parallel", truth, kinds, "[h(a=2), h(a=2)]", outcomes)
    assert failed.error_type == "executable_checker:cannot_find_match"
    assert failed.errors[0].startswith("Could not find a matching function among index [0, 1]")
    # greedy: the first expected result grabs the first passing call, even when a later
    # assignment would have matched everything (real-time tolerance overlaps here)
    close = {"r(a=1)": ok(100), "r(a=2)": ok(110), "m(a=1)": ok(110), "m(a=2)": ok(100)}
    verdict = _judge(
        "exec_parallel",
        ["r(a=1)", "r(a=2)"],
        ["real_time_match", "exact_match"],
        "[m(a=1), m(a=2)]",
        close,
    )
    assert verdict.error_type == "executable_checker:cannot_find_match"


def test_unavailable_service_skips_the_case() -> None:
    unavailable = Outcome("unavailable", None, "needs the open-meteo web service")
    verdict = _judge("exec_simple", [GT], ["exact_match"], "[f(a=1)]", {GT: unavailable})
    assert not verdict.valid and is_skipped(verdict) and verdict.error_type == SKIPPED
    assert "open-meteo" in verdict.extras["skipped"]
    model_side = _judge(
        "exec_simple", [GT], ["exact_match"], "[w(a=1)]", {GT: ok(1), "w(a=1)": unavailable}
    )
    assert is_skipped(model_side)
    # decided before anything runs: a count error is a real failure even offline
    counted = _judge("exec_parallel", [GT, GT], ["exact_match"] * 2, "[f(a=1)]", {GT: unavailable})
    assert counted.error_type == "value_error:exec_result_count"


SAMPLE = json.dumps({"Zones": [], "Safezone": 1.0})
REST_CALL = "requests.get(url='https://x.y/z', params={'lat': 1})"


def _rest(raw: Any, outcome: Outcome, sample: str = SAMPLE, encoding: Encoding = PROMPT) -> Verdict:
    case = TestCase("rest_0", "rest", [], [], sample)
    return judge_exec(case, categories.get("rest"), raw, encoding, StubRunner({REST_CALL: outcome}))


def test_rest_response_shapes() -> None:
    raw = "[requests.get(url='https://x.y/z', params={'lat': 1})]"
    assert _rest(raw, ok(HttpResponse(200, '{"Zones": [1], "Safezone": 3}'))).valid
    assert _rest(raw, ok(HttpResponse(200, '{"Zones": []}'))).error_type == (
        "executable_checker_rest:wrong_key"
    )
    assert _rest(raw, ok(HttpResponse(200, "[]"))).error_type == (
        "executable_checker_rest:wrong_type"
    )
    assert _rest(raw, ok(HttpResponse(404, "{}"))).error_type == (
        "executable_checker_rest:wrong_status_code"
    )
    assert _rest(raw, ok(HttpResponse(200, "<html>"))).error_type == (
        "executable_checker_rest:response_format_error"
    )
    listed = json.dumps([{"a": 1}, {"b": 2}])
    assert _rest(raw, ok(HttpResponse(200, '[{"a": 0}, {"b": 0}]')), listed).valid
    assert _rest(raw, ok(HttpResponse(200, '[{"a": 0}]')), listed).error_type == (
        "value_error:exec_result_rest_count"
    )
    assert _rest(raw, Outcome.error("boom")).error_type == "executable_checker_rest:execution_error"
    assert is_skipped(_rest(raw, Outcome("unavailable", None, "offline")))


def test_rest_format_and_fc_underscore_name() -> None:
    two = "[requests.get(url='https://x.y/z'), requests.get(url='https://x.y/z')]"
    assert _rest(two, ok(None)).error_type == "executable_decoder:rest_wrong_output_format"
    fc_raw = [{"requests_get": json.dumps({"url": "https://x.y/z", "params": {"lat": 1}})}]
    fc_call = "requests.get(url='https://x.y/z',params={'lat': 1})"
    case = TestCase("rest_0", "rest", [], [], SAMPLE)
    runner = StubRunner({fc_call: ok(HttpResponse(200, '{"Zones": 1, "Safezone": 2}'))})
    assert judge_exec(case, categories.get("rest"), fc_raw, FC, runner).valid
