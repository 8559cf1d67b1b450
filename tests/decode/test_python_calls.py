from __future__ import annotations

import pytest

from fcbench.core.model import Call
from fcbench.decode.errors import DECODER_FAILED, WRONG_OUTPUT_FORMAT, DecodeError
from fcbench.decode.python_calls import ReturnFormat, bracketed, decode_prompt


def one(text: str) -> Call:
    calls = decode_prompt(text)
    assert len(calls) == 1
    return calls[0]


def test_bracketed_list_of_calls() -> None:
    calls = decode_prompt('[f(a=1, b="x"), math.hypot(x=3)]')
    assert calls == [Call("f", {"a": 1, "b": "x"}), Call("math.hypot", {"x": 3})]


def test_missing_brackets_are_added() -> None:
    assert bracketed("f(a=1), g(b=2)") == "[f(a=1), g(b=2)]"
    assert [c.name for c in decode_prompt("f(a=1), g(b=2)")] == ["f", "g"]


def test_plain_code_fence_is_stripped_but_tagged_fence_fails() -> None:
    assert one("```\n[f(a=1)]\n```") == Call("f", {"a": 1})
    with pytest.raises(DecodeError) as info:
        decode_prompt("```python\n[f(a=1)]\n```")
    assert info.value.error_type == DECODER_FAILED


def test_positional_arguments_are_dropped() -> None:
    assert one("[f(1, 2, c=3)]") == Call("f", {"c": 3})


def test_unary_operator_always_negates() -> None:
    assert one("[f(a=-5, b=+5, c=-2.5)]").args == {"a": -5, "b": -5, "c": -2.5}


def test_unary_on_a_name_fails() -> None:
    with pytest.raises(DecodeError):
        decode_prompt("[f(a=-x)]")


def test_arithmetic_is_computed_without_eval() -> None:
    assert one("[f(a=3*2, b=1/4, c=2**10, d='a'+'b')]").args == {
        "a": 6,
        "b": 0.25,
        "c": 1024,
        "d": "ab",
    }


@pytest.mark.parametrize(
    "text",
    [
        "[f(a=10**10**10)]",
        "[f(a='x'*10**9)]",
        "[f(a=x+1)]",
        "[f(a=__import__('os').system('true')+1)]",
    ],
)
def test_unsafe_or_unknown_arithmetic_fails_to_decode(text: str) -> None:
    with pytest.raises(DecodeError):
        decode_prompt(text)


def test_names_nested_calls_and_subscripts() -> None:
    args = one("[f(a=my_var, b=g(x=1), c=h(2), d=arr[0], e=True, f=None, g=...)]").args
    assert args == {
        "a": "my_var",
        "b": {"g": {"x": 1}},
        "c": "h(2)",
        "d": "arr[0]",
        "e": True,
        "f": None,
        "g": "...",
    }


def test_tuples_stay_tuples_and_dicts_recurse() -> None:
    assert one("[f(a=(1, 2), b={'k': [1, {'z': 2}]})]").args == {
        "a": (1, 2),
        "b": {"k": [1, {"z": 2}]},
    }


def test_element_that_is_not_a_call_fails() -> None:
    with pytest.raises(DecodeError):
        decode_prompt("[f(a=1), 2]")


def test_text_and_lambdas_fail() -> None:
    for text in ["I cannot help with that.", "[f(a=lambda x: x)]", "[f(a={1, 2})]"]:
        with pytest.raises(DecodeError):
            decode_prompt(text)


def test_empty_list_decodes_to_no_calls() -> None:
    assert decode_prompt("[]") == []


def test_tool_call_tag() -> None:
    calls = decode_prompt("<TOOLCALL>[f(a=1)]</TOOLCALL>", tool_call_tag=True)
    assert calls == [Call("f", {"a": 1})]
    with pytest.raises(DecodeError):
        decode_prompt("[f(a=1)]", tool_call_tag=True)


def test_json_format() -> None:
    text = 'Sure: [{"function": "f", "parameters": {"a": 1}}]'
    assert decode_prompt(text, ReturnFormat.JSON) == [Call("f", {"a": 1})]
    assert decode_prompt("[not json]", ReturnFormat.JSON) == []


def test_json_format_with_non_dict_parameters_is_wrong_format() -> None:
    with pytest.raises(DecodeError) as info:
        decode_prompt('[{"function": "f", "parameters": 5}]', ReturnFormat.JSON)
    assert info.value.error_type == WRONG_OUTPUT_FORMAT


def test_verbose_and_concise_xml() -> None:
    verbose = (
        '<functions><function name="f"><params><param name="a" value="1" type="integer"/>'
        '<param name="b" value="[1, 2]" type="array"/><param name="c" value="x"/>'
        "</params></function></functions>"
    )
    assert decode_prompt(verbose, ReturnFormat.VERBOSE_XML) == [
        Call("f", {"a": 1, "b": [1, 2], "c": "x"})
    ]
    concise = (
        '<functions><function name="g"><param name="t" type="boolean">True</param>'
        '<param name="x" type="float"> 2.5 </param></function></functions>'
    )
    assert decode_prompt(concise, ReturnFormat.CONCISE_XML) == [Call("g", {"t": True, "x": 2.5})]
    with pytest.raises(DecodeError):
        decode_prompt("[f(a=1)]", ReturnFormat.CONCISE_XML)


def test_non_string_input_fails_cleanly() -> None:
    with pytest.raises(DecodeError):
        decode_prompt(["not", "text"])  # type: ignore[arg-type]
