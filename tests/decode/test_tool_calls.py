from __future__ import annotations

import pytest

from fcbench.core.model import Call
from fcbench.decode.errors import DECODER_FAILED, WRONG_OUTPUT_FORMAT, DecodeError
from fcbench.decode.tool_calls import ArgsEncoding, decode_tool_calls


def test_json_string_arguments() -> None:
    result = [{"f": '{"a": 1}'}, {"g": "{}"}]
    assert decode_tool_calls(result) == [Call("f", {"a": 1}), Call("g", {})]


def test_text_answer_fails_under_json_string_but_empty_text_is_no_call() -> None:
    with pytest.raises(DecodeError) as info:
        decode_tool_calls("I don't know")
    assert info.value.error_type == DECODER_FAILED
    assert decode_tool_calls("") == []


def test_bad_json_arguments_fail() -> None:
    with pytest.raises(DecodeError):
        decode_tool_calls([{"f": "{not json"}])


def test_non_object_arguments_are_wrong_format() -> None:
    with pytest.raises(DecodeError) as info:
        decode_tool_calls([{"f": "[1, 2]"}])
    assert info.value.error_type == WRONG_OUTPUT_FORMAT


def test_object_encoding_passes_items_through() -> None:
    assert decode_tool_calls([{"f": {"a": 1}}], ArgsEncoding.OBJECT) == [Call("f", {"a": 1})]
    with pytest.raises(DecodeError) as info:
        decode_tool_calls("plain text", ArgsEncoding.OBJECT)
    assert info.value.error_type == WRONG_OUTPUT_FORMAT


@pytest.mark.parametrize("result", [None, 5, [{}], [["f"]], [{"f": 5}]])
def test_malformed_results_fail_cleanly(result: object) -> None:
    with pytest.raises(DecodeError):
        decode_tool_calls(result)
