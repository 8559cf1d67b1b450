"""Prompt-mode JavaScript decoding; expected values were checked against the official decoder."""

from __future__ import annotations

import pytest

from fcbench.core.model import Call
from fcbench.decode.errors import DECODER_FAILED, WRONG_OUTPUT_FORMAT, DecodeError
from fcbench.decode.javascript import decode_javascript


def one(text: str) -> Call:
    calls = decode_javascript(text)
    assert len(calls) == 1
    return calls[0]


def failure(text: str) -> DecodeError:
    with pytest.raises(DecodeError) as info:
        decode_javascript(text)
    return info.value


def test_named_arguments_keep_source_text_minus_outer_quotes() -> None:
    assert one('[f(a=1, b="x")]') == Call("f", {"a": "1", "b": "x"})
    assert one("f(a='x')").args == {"a": "x"}
    assert one("f(a=`x`)").args == {"a": "`x`"}


def test_a_single_argument_call_decodes() -> None:
    assert one("f(a=1)") == Call("f", {"a": "1"})


def test_quotes_are_stripped_from_any_text_that_starts_and_ends_with_them() -> None:
    assert one('f(a="a" + "b")').args == {"a": 'a" + "b'}
    assert one('f(a="\'")').args == {"a": "'"}


def test_structured_values_stay_verbatim_with_their_spacing() -> None:
    assert one("f(a=[1, 2], b={x: 1}, c=g(b=1))").args == {
        "a": "[1, 2]",
        "b": "{x: 1}",
        "c": "g(b=1)",
    }


def test_comma_sequence_is_not_a_call() -> None:
    error = failure("f(a=1), g(b=2)")
    assert error.error_type == WRONG_OUTPUT_FORMAT
    assert error.decoded is None


def test_text_without_a_top_level_call_statement_is_wrong_format() -> None:
    for text in ("let y = f(a=1)", "", "new F(a=1)"):
        assert failure(text).error_type == WRONG_OUTPUT_FORMAT


def test_first_top_level_call_statement_wins() -> None:
    assert decode_javascript("f(a=1); g(b=2)") == [Call("f", {"a": "1"})]
    assert decode_javascript("x; f(a=1)") == [Call("f", {"a": "1"})]


def test_callee_is_read_as_text() -> None:
    assert one("obj.method(a=1)").name == "obj.method"
    assert one("f(a=1)(b=2)") == Call("f(a=1)", {"b": "2"})


def test_positional_identifier_and_true_go_under_none_other_literals_are_dropped() -> None:
    assert one("f(x, b=1)").args == {"None": "x", "b": "1"}
    assert one("f(true, b=1)").args == {"None": "true", "b": "1"}
    assert one("f(false, b=1)").args == {"b": "1"}
    assert one("f(1, b=1)").args == {"b": "1"}


def test_repeated_arguments_fail() -> None:
    assert failure("f(x, y)").error_type == DECODER_FAILED
    assert failure("f(a=1, a=2)").error_type == DECODER_FAILED


def test_syntax_errors_fail() -> None:
    assert failure("f(a=").error_type == DECODER_FAILED
    assert failure("f(a=\"x')").error_type == DECODER_FAILED


def test_non_ascii_text_is_read_correctly() -> None:
    assert one('f(a="é", b="xy")').args == {"a": "é", "b": "xy"}


def test_plain_fence_is_stripped_but_tagged_fence_fails() -> None:
    assert one("```\n[f(a=1)]\n```") == Call("f", {"a": "1"})
    assert failure("```javascript\n[f(a=1)]\n```").error_type == DECODER_FAILED


def test_tool_call_tag_body_is_decoded() -> None:
    text = "thinking <TOOLCALL>[f(a=1)]</TOOLCALL>"
    assert decode_javascript(text, tool_call_tag=True) == [Call("f", {"a": "1"})]
