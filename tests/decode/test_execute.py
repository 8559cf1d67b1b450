"""decode_execute: the call strings multi-turn replays. Every expectation below was checked
against the official `default_decode_execute_prompting`, `convert_to_function_call` and the
Gemini handler's FC rendering."""

from __future__ import annotations

from typing import Any

import pytest

from fcbench.decode.encoding import Encoding
from fcbench.decode.errors import DecodeError
from fcbench.decode.execute import decode_execute, is_empty_execution

PROMPT = Encoding()
JSON_STRING = Encoding("fc", "underscore", "json_string")
OBJECT = Encoding("fc", "underscore", "object")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("[cd(folder='a'), ls()]", ["cd(folder='a')", "ls()"]),
        ("cd(folder='a')", ["cd(folder='a')"]),
        ("```\n[f(a=1, b=[1,2], c={'x': 1})]\n```", ["f(a=1, b=[1, 2], c={'x': 1})"]),
        ("[f(a=-1.5, b=None, c=True)]", ["f(a=-1.5, b=None, c=True)"]),
        ("[f(a=(1,2))]", ["f(a=(1, 2))"]),
        ("[f(a=x)]", ["f(a='x')"]),
        ("[f(a=1+2)]", ["f(a=3)"]),
        ('[f(a="it\'s")]', ['f(a="it\'s")']),
        ("[a.b.c(x='y')]", ["a.b.c(x='y')"]),
        ("[]", []),
    ],
)
def test_prompt_mode_renders_with_repr(text: str, expected: list[str]) -> None:
    assert decode_execute(text, PROMPT) == expected


def test_prompt_mode_drops_positional_arguments() -> None:
    assert decode_execute("[f(1, b=2)]", PROMPT) == ["f(b=2)"]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # A nested call with keywords is decoded to {name: args} and rendered back as a call.
        ("[f(a=g(b=1))]", ["f(a=g(b=1))"]),
        # Without keywords the nested call stays source text, rendered as a string.
        ("[f(a=g(1))]", ["f(a='g(1)')"]),
        # A dict whose values are all dicts is taken for a call of its first key.
        ("[f(a={'x': {'y': 1}})]", ["f(a=x(y=1))"]),
        ("[f(a={'k': {}})]", ["f(a=k())"]),
        ("[f(a={'q': {'r': {'s': 2}}, 't': {}})]", ["f(a=q(r={'s': 2}))"]),
        # Otherwise a dict display with quoted keys; values inside lists are plain repr.
        ("[f(a={'k': [{'z': {}}], 'j': 2})]", ["f(a={'k': [{'z': {}}], 'j': 2})"]),
        ("[f(a={1: 'x'})]", ["f(a={'1': 'x'})"]),
    ],
)
def test_prompt_mode_nested_dict_rule(text: str, expected: list[str]) -> None:
    assert decode_execute(text, PROMPT) == expected


@pytest.mark.parametrize("text", ["[f(a={})]", "hello", "'[f(a=1)]'", "[f(a=lambda: 1)]"])
def test_prompt_mode_failures(text: str) -> None:
    """`{}` is the quirk: taken for a call with no name, it makes rendering fail."""
    with pytest.raises(DecodeError):
        decode_execute(text, PROMPT)


def test_prompt_mode_needs_text() -> None:
    with pytest.raises(DecodeError):
        decode_execute([{"f": "{}"}], PROMPT)


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ([{"ls": '{"a": true}'}], ["ls(a=True)"]),
        ({"cd": '{"folder": "x"}'}, ["cd(folder='x')"]),  # a lone dict is one call
        ([], []),
        ("", []),
        ([{"f": {"a": 1}}], ["f(a=1)"]),  # already-decoded arguments are accepted too
        ([{"f": '{"a": 1, "b": [1, {"c": null}]}'}], ["f(a=1,b=[1, {'c': None}])"]),
        ([{"f": "{}"}], ["f()"]),
        ([{"f": "{}", "g": '{"x": 1.0}'}], ["f()", "g(x=1.0)"]),
    ],
)
def test_fc_json_string(raw: Any, expected: list[str]) -> None:
    assert decode_execute(raw, JSON_STRING) == expected


@pytest.mark.parametrize(
    "raw", ["some text", [{"f": "[1]"}], [{"f": "not json"}], [1], [{"f": 3}], 7]
)
def test_fc_json_string_failures(raw: Any) -> None:
    with pytest.raises(DecodeError):
        decode_execute(raw, JSON_STRING)


def test_fc_object() -> None:
    assert decode_execute([{"f": {"a": 1, "b": "x"}}], OBJECT) == ["f(a=1,b='x')"]
    assert decode_execute([{"f": {}}], OBJECT) == ["f()"]
    assert decode_execute([], OBJECT) == []


@pytest.mark.parametrize("raw", [{"f": {"a": 1}}, "text", [{"f": '{"a": 1}'}]])
def test_fc_object_failures(raw: Any) -> None:
    """Gemini-style rendering neither wraps a lone dict nor decodes JSON strings."""
    with pytest.raises(DecodeError):
        decode_execute(raw, OBJECT)


def test_empty_execution() -> None:
    assert is_empty_execution([])
    assert is_empty_execution([""])
    assert not is_empty_execution(["", ""])
    assert not is_empty_execution(["ls()"])
