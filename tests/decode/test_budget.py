"""The decoding budget: where it refuses, what it counts, and that it is one per answer."""

from __future__ import annotations

import pytest

from fcbench.decode.budget import MAX_ELEMENTS, MAX_TEXT_CHARS, Budget, OverBudget, check_raw
from fcbench.decode.encoding import Encoding, decode_ast
from fcbench.decode.errors import DECODER_FAILED, DecodeError
from fcbench.decode.execute import decode_execute
from fcbench.decode.python_calls import decode_prompt


def args(text: str) -> dict[str, object]:
    (call,) = decode_prompt(text)
    return call.args


def test_an_answer_may_build_up_to_the_budget() -> None:
    assert len(args(f"[f(a=[0]*{MAX_ELEMENTS - 1})]")["a"]) == MAX_ELEMENTS - 1  # type: ignore[arg-type]
    assert args("[f(a='ab'*500000)]")["a"] == "ab" * 500000


@pytest.mark.parametrize("text", [
    f"[f(a=[0]*{MAX_ELEMENTS})]",
    "[f(a=[0]*1000000 + [0]*1000000)]",  # concatenation: both operands and the sum
    "[f(a=[[[0]*1000]*1000]*2)]",  # shared repetition counts every shared item
    "[f(a=('x'*1000)*2000)]",  # characters count
    "[f(a=[0]*1500000, b=[0]*600000)]",  # one budget for the whole answer
    "[f(a=[0]*1500000), g(b=[0]*600000)]",
])
def test_past_the_budget_decoding_fails_with_its_reason(text: str) -> None:
    with pytest.raises(OverBudget, match="decoding budget") as raised:
        decode_prompt(text)
    assert raised.value.error_type == DECODER_FAILED


def test_each_answer_has_its_own_budget() -> None:
    for _ in range(3):
        assert len(args("[f(a=[0]*1500000)]")["a"]) == 1500000  # type: ignore[arg-type]


def test_multi_turn_and_family_decoders_share_the_budget() -> None:
    with pytest.raises(OverBudget):
        decode_execute("[f(a=[[[0]*1000]*1000]*1000)]", Encoding())
    with pytest.raises(OverBudget):
        decode_ast("[[[0]*1000]*1000]*1000", Encoding(family="llama-3.1"))
    with pytest.raises(OverBudget):
        decode_ast("<|tool_call_start|>f(a=[0]*1500000, b=[0]*600000)<|tool_call_end|>",
                   Encoding(family="minicpm-fc"))


def test_budget_charges_and_refuses_what_is_not_left() -> None:
    budget = Budget(10)
    budget.charge(6, "x")
    budget.charge(4, "y")
    with pytest.raises(OverBudget, match="z would build more than the 10 elements"):
        budget.charge(1, "z")


def test_text_longer_than_the_budget_is_refused_before_parsing() -> None:
    check_raw("x" * MAX_TEXT_CHARS)
    with pytest.raises(OverBudget, match=f"{MAX_TEXT_CHARS + 1:,} characters"):
        check_raw("x" * (MAX_TEXT_CHARS + 1))
    with pytest.raises(OverBudget):
        decode_prompt("[f(a='" + "x" * MAX_TEXT_CHARS + "')]")
    with pytest.raises(OverBudget, match="at least"):
        decode_ast([{"f": '{"a": "' + "x" * MAX_TEXT_CHARS + '"}'}], Encoding("fc"))
    many_items = [{"f": "{}"}] * MAX_TEXT_CHARS
    with pytest.raises(OverBudget):
        check_raw(many_items)
    assert isinstance(OverBudget("m"), DecodeError)
