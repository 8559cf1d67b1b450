"""The ground-truth model's executable answers: calls read without evaluation, positional
arguments named from the docs, arithmetic computed, both storage forms; chat replies."""

from __future__ import annotations

import json

import pytest

from fcbench.core.model import TestCase
from fcbench.decode.encoding import Encoding
from fcbench.decode.execute import decode_execute
from fcbench.ground_truth.backend import CHAT_REPLY, answer
from fcbench.ground_truth.executable import GroundTruthCallError, exec_answer, read_call

MEAN = {"name": "calculate_mean", "parameters": {"type": "dict", "properties": {
    "numbers": {"type": "array", "items": {"type": "float"}}}, "required": ["numbers"]}}


def test_read_call_names_positional_arguments_and_computes_arithmetic() -> None:
    assert read_call("calculate_mean([1,3,4])", [MEAN]) == ("calculate_mean",
                                                            {"numbers": [1, 3, 4]})
    assert read_call("f(p=1/6, area=500*500, xs=(1, -2))", []) == (
        "f", {"p": 1 / 6, "area": 250000, "xs": (1, -2)})
    assert read_call("requests.get(url='u', params={'a': 1})", [])[0] == "requests.get"


@pytest.mark.parametrize("text", [
    "f(x=open('/etc/passwd'))", "f(x=y)", "f(**kw)", "not a call(", "x + 1", "g(1)",
])
def test_read_call_refuses_what_is_not_a_literal_call(text: str) -> None:
    with pytest.raises(GroundTruthCallError):
        read_call(text, [])


def test_answers_decode_back_to_the_ground_truth_calls() -> None:
    case = TestCase("exec_parallel_multiple_0", "exec_parallel_multiple", [[]], [MEAN],
                    ["calculate_mean([1,3])", "convert(amount=2*3, unit='kg')"])
    fc = exec_answer(case, "fc")
    assert fc == [{"calculate_mean": json.dumps({"numbers": [1, 3]})},
                  {"convert": json.dumps({"amount": 6, "unit": "kg"})}]
    prompt = exec_answer(case, "prompt")
    assert prompt == "[calculate_mean(numbers=[1, 3]), convert(amount=6, unit='kg')]"
    assert decode_execute(prompt, Encoding()) == [
        "calculate_mean(numbers=[1, 3])", "convert(amount=6, unit='kg')"]
    assert decode_execute(fc, Encoding("fc", "underscore", "json_string")) == [
        "calculate_mean(numbers=[1, 3])", "convert(amount=6,unit='kg')"]


def test_rest_answer_is_the_reference_request_and_chat_is_text() -> None:
    call = "requests.get(url='https://x.test', headers={'X-RapidAPI-Key': 'YOUR-RAPID-API-KEY'})"
    rest = TestCase("rest_0", "rest", [[]], [], '{"a": 1}', {"reference_call": call})
    assert answer(rest, "fc") == [{"requests_get": json.dumps(
        {"url": "https://x.test", "headers": {"X-RapidAPI-Key": "YOUR-RAPID-API-KEY"}})}]
    assert answer(rest, "prompt") == f"[{call}]"
    with pytest.raises(GroundTruthCallError, match="rest_1: no ground-truth call"):
        answer(TestCase("rest_1", "rest", [[]], [], '{"a": 1}'), "fc")
    chat = TestCase("chatable_0", "chatable", [[]], [], None)
    assert answer(chat, "fc") == CHAT_REPLY == answer(chat, "prompt")


@pytest.mark.parametrize("text", [
    "f(x=[[[0]*1000]*1000]*1000)",  # past the decoding budget (OverBudget)
    "f(x=10**10**10)",
    "f(x=" + "[" * 50_000 + "]" * 50_000 + ")",  # past the parser's nesting limit
    "f(x='" + "a" * 200_000 + "')",  # past the text bound
    "f(x='\0')",
])
def test_read_call_refuses_hostile_call_text_with_its_own_error(text: str) -> None:
    """A custom exec dataset's call text is untrusted: refused in one line, never a crash."""
    with pytest.raises(GroundTruthCallError) as refused:
        read_call(text, [])
    assert "\n" not in str(refused.value)
    assert len(str(refused.value)) < 500
