"""The pieces family decoders share: call strings, and the literal evaluator that stands in
for the handlers' `eval` without running model text."""

from __future__ import annotations

from typing import Any

import pytest

from fcbench.decode.arithmetic import UnsafeExpression
from fcbench.decode.errors import DecodeError
from fcbench.decode.families.common import (
    call_string,
    convert_to_function_call,
    first_name,
    literal_eval,
)


@pytest.mark.parametrize(("text", "value"), [
    ('{"name": "f", "parameters": {"a": 1}}', {"name": "f", "parameters": {"a": 1}}),
    ("  [1, 2.5, 'x', None, True]", [1, 2.5, "x", None, True]),
    ("\n(1, 2)", (1, 2)),
    ("3 * 2 + 1", 7),
])
def test_literal_values_are_computed(text: str, value: Any) -> None:
    assert literal_eval(text) == value


@pytest.mark.parametrize(("text", "message"), [
    ('{"a": true}', "name 'true' is not defined"),
    ("[f(a=1)]", "name 'f' is not defined"),
    ("[math.hypot(x=1)]", "name 'math' is not defined"),
    ('{"k": [1, null], "z": nope}', "name 'null' is not defined"),
])
def test_unknown_names_fail_as_eval_fails(text: str, message: str) -> None:
    with pytest.raises(NameError, match=message):
        literal_eval(text)


def test_code_is_never_run(tmp_path: Any) -> None:
    marker = tmp_path / "ran"
    for text in (f"__import__('os').system('touch {marker}')", f"open('{marker}', 'w')",
                 "[x for x in ().__class__.__base__.__subclasses__()]", "(lambda: 1)()"):
        with pytest.raises((UnsafeExpression, NameError, SyntaxError)):
            literal_eval(text)
    assert not marker.exists()
    with pytest.raises(SyntaxError):
        literal_eval("import os")
    with pytest.raises(TypeError):
        literal_eval(["not text"])


def test_first_name_follows_evaluation_order() -> None:
    import ast

    assert first_name(ast.parse("{a: b, c: d}", mode="eval").body) == "a"
    assert first_name(ast.parse("f(x)(y)", mode="eval").body) == "f"
    assert first_name(ast.parse("[1, 2]", mode="eval").body) is None


def test_call_strings_in_both_spellings() -> None:
    assert call_string("f", {"a": 1, "b": "x"}) == "f(a=1,b='x')"
    assert call_string("f", {"a": 1, "b": "x"}, ", ") == "f(a=1, b='x')"
    with pytest.raises(AttributeError, match="'str' object has no attribute 'items'"):
        call_string("f", "a=1")


def test_convert_to_function_call_reads_json_arguments() -> None:
    assert convert_to_function_call({"f": '{"a": [1]}'}) == ["f(a=[1])"]
    assert convert_to_function_call([{"f": {}}, {"g": {"b": None}}]) == ["f()", "g(b=None)"]
    assert convert_to_function_call("") == []
    with pytest.raises(DecodeError, match="'str' object has no attribute 'items'"):
        convert_to_function_call("text")
    with pytest.raises(DecodeError, match="not iterable"):
        convert_to_function_call(5)
