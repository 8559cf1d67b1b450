"""Client-side parsers for tool calls written as text."""

from __future__ import annotations

import json

import pytest

from fcbench.decode.tool_call_formats import parse_text_calls


def args(result: list[dict[str, str]] | None) -> list[tuple[str, object]]:
    assert result is not None
    return [(name, json.loads(a)) for item in result for name, a in item.items()]


def test_hermes() -> None:
    text = (
        'Sure.\n<tool_call>\n{"name": "f", "arguments": {"a": 1}}\n</tool_call>\n'
        '<tool_call>{"name": "g", "arguments": {"b": "x"}}</tool_call>'
    )
    assert args(parse_text_calls("hermes", text)) == [("f", {"a": 1}), ("g", {"b": "x"})]
    assert parse_text_calls("hermes", "no calls here") is None
    unclosed = '<tool_call>{"name": "f", "arguments": {}}'
    assert args(parse_text_calls("hermes", unclosed)) == [("f", {})]


def test_llama3() -> None:
    one = '<|python_tag|>{"name": "f", "parameters": {"a": 1}}'
    assert args(parse_text_calls("llama3", one)) == [("f", {"a": 1})]
    many = '{"name": "f", "parameters": {}}; {"name": "g", "parameters": {"b": 2}}'
    assert args(parse_text_calls("llama3", many)) == [("f", {}), ("g", {"b": 2})]
    assert parse_text_calls("llama3", "I cannot help.") is None


def test_mistral() -> None:
    old = '[TOOL_CALLS] [{"name": "f", "arguments": {"a": 1}}]'
    assert args(parse_text_calls("mistral", old)) == [("f", {"a": 1})]
    new = '[TOOL_CALLS]f[ARGS]{"a": 1}[TOOL_CALLS]g[ARGS]{}'
    assert args(parse_text_calls("mistral", new)) == [("f", {"a": 1}), ("g", {})]
    assert parse_text_calls("mistral", "plain") is None


def test_python_list() -> None:
    text = "[math.hypot(x=3, y=4), g(s='a')]"
    assert args(parse_text_calls("python", text)) == [("math.hypot", {"x": 3, "y": 4}),
                                                      ("g", {"s": "a"})]
    assert parse_text_calls("python", "I would call f") is None


def test_unknown_format() -> None:
    with pytest.raises(ValueError, match="unknown output format"):
        parse_text_calls("nope", "")
