"""Client-side parsers for tool calls written as text."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any
from unittest.mock import patch

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fcbench.decode import tool_call_formats
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


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=6),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=4), inner,
                                                                 max_size=4),
    max_leaves=12,
)


def _outcome(read: Callable[[], Any]) -> Any:
    try:
        return ("value", read())
    except json.JSONDecodeError:
        return "error"


@settings(max_examples=600, deadline=None)
@given(JSON_VALUES.map(json.dumps), st.integers(0, 40), st.text(" ,]}x1.e\"\\", max_size=4),
       st.integers(1, 9))
def test_json_value_at_reads_what_raw_decode_reads(
    value: str, cut: int, tail: str, window: int
) -> None:
    """With windows of a few characters (so that most reads need a larger one): values
    whole, cut short, followed by what could extend them (digits, an exponent, a quote)."""
    text = "[ARGS]" + value[: len(value) - cut if cut < len(value) else None] + tail
    expected = _outcome(lambda: json.JSONDecoder().raw_decode(text, 6)[0])
    with patch.object(tool_call_formats, "_WINDOW", window):
        assert _outcome(lambda: tool_call_formats.json_value_at(text, 6)) == expected


def test_mistral_named_calls_are_linear() -> None:
    """A failed read after each marker cost the text before it (its error counts lines):
    1 MB of `[TOOL_CALLS]f[ARGS]` took 19-35 s."""
    start = time.perf_counter()
    assert parse_text_calls("mistral", "[TOOL_CALLS]f[ARGS]" * 52_000) is None
    assert time.perf_counter() - start < 5.0
