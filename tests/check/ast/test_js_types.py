"""JavaScript value conversion; expected values were checked against the official converter."""

from __future__ import annotations

import re
import time
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fcbench.check.ast import js_types
from fcbench.check.ast.js_types import JS_TYPE_TO_PYTHON, convert_js_value


def same(actual: Any, expected: Any) -> bool:
    """Equal and of the same types, so that 1, 1.0 and True are told apart."""
    return repr(actual) == repr(expected)


@pytest.mark.parametrize(
    ("text", "js_type", "expected"),
    [
        ("'abc'", "String", "abc"),
        ('"abc"', "String", "abc"),
        ("abc", "String", "abc"),
        ("'abc\"", "String", "'abc\""),  # mismatched quotes stay
        ('"', "String", ""),  # one quote both starts and ends the text
        ("12", "integer", 12),
        ("12.0", "integer", "12.0"),
        ("1.5", "float", 1.5),
        ("1", "float", 1.0),
        ("1e3", "float", "1e3"),  # no exponent
        ("12n", "Bigint", 12),
        ("12", "Bigint", "12"),
        ("true", "Boolean", True),
        ("True", "Boolean", "True"),
        ("x", "any", "x"),
    ],
)
def test_scalars(text: str, js_type: str, expected: Any) -> None:
    assert same(convert_js_value(text, js_type), expected)


def test_bigint_with_a_final_newline_raises_like_the_official() -> None:
    with pytest.raises(ValueError):
        convert_js_value("12n\n", "Bigint")


@pytest.mark.parametrize(
    ("text", "element_type", "expected"),
    [
        ("[1, 2, 3]", "integer", [1, 2, 3]),
        ("['a', \"b\"]", "String", ["a", "b"]),
        ("[]", "integer", []),
        ("[ ]", None, []),
        ("  [1]  ", "integer", [1]),
        ("new Array(1, 2)", "integer", [1, 2]),
        ("[1, 'two', true, 1.5, x]", None, [1, "two", True, 1.5, "x"]),
        ("[[1, 2], [3, 4]]", "integer", [[1, 2], [3, 4]]),  # rows ignore the element type
        ("new Array([1, 2], [3, 4])", None, [[1, 2], [3, 4]]),
        ("[1, [2, 3]]", "integer", [1, "[2", 3]),  # split on every comma
        ("['a,b']", "String", ["'a", "b'"]),
        ("['1', 2]", "integer", ["'1'", 2]),
        ("[1n, 2]", "Bigint", [1, "2"]),
        ("[1, 2]", "Foo", "[1, 2]"),  # any error inside gives the text back
        ("x = [1]", "integer", "x = [1]"),
    ],
)
def test_array(text: str, element_type: str | None, expected: Any) -> None:
    assert same(convert_js_value(text, "array", element_type), expected)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("{}", {}),
        ("{ }", {}),
        (
            "{'a': 1, \"b\": 'x', c: true, d: [1, 2], e: {f: 1}}",
            {"a": 1, "b": "x", "c": True, "d": [1, 2], "e": "{f: 1"},  # lazy match to first `}`
        ),
        ("{a: 1, b: 'x, y'}", {"a": 1, "b": "x, y"}),
        ('{"k": v, "m": [1, 2]}', {"k": "v", "m": [1, 2]}),
        ("{\n a: 1\n}", "{\n a: 1\n}"),  # does not span lines
        ("[1]", "[1]"),
    ],
)
def test_dict(text: str, expected: Any) -> None:
    assert same(convert_js_value(text, "dict"), expected)


def test_unknown_types_raise_value_error() -> None:
    with pytest.raises(ValueError):
        convert_js_value("x", "string")


def test_type_table_matches_the_official_one() -> None:
    assert {
        "String": str,
        "integer": int,
        "float": float,
        "Bigint": int,
        "Boolean": bool,
        "dict": dict,
        "array": list,
        "any": str,
    } == JS_TYPE_TO_PYTHON


def test_a_grid_that_almost_matches_is_read_in_linear_time() -> None:
    """The official two-dimensional array pattern backtracks exponentially on rows that end
    without a closing row (`[[],[],...,x]`: 18 rows 0.6 s, 26 rows minutes); fcbench finds
    the same match in one pass (`decode.spans.grid_end`)."""
    import time

    started = time.perf_counter()
    for rows in (30, 5000):
        text = "[" + "[]," * rows + "x]"
        assert convert_js_value(text, "array") == ["["]  # no grid: the flat `[[]` row
    assert time.perf_counter() - started < 2.0


# The official object-member pattern, kept here as the oracle of `_members` only.
OBJECT_PAIR = re.compile(r"([^:]+):\s*(.*?)(?:,\s*(?=[^,]+:)|$)")
OBJECT_BODIES = st.lists(
    st.sampled_from([":", ",", " ", "\t", "\u3000", "a", "'k'", "1", "[", "]", ": ", ", "]),
    max_size=20,
).map("".join)
"""One-line object bodies over the characters the member pattern cares about."""


# 1,000 examples: five injected faults of `_members` (no space given back, a start on a colon
# kept, value spaces kept, any comma ending a value, spaces after a comma kept) were each found
# within 140 examples in every one of five seeds (2 to 140).
@settings(max_examples=1000, deadline=None)
@given(OBJECT_BODIES)
def test_members_are_the_official_patterns_pairs(body: str) -> None:
    assert js_types._members(body) == OBJECT_PAIR.findall(body)


@pytest.mark.parametrize("body", ["a" * 60_000, ",a" * 30_000, "a:b," * 30_000])
def test_long_object_bodies_convert_in_linear_time(body: str) -> None:
    """60,000 characters without a colon took the official pattern 96 s."""
    started = time.perf_counter()
    convert_js_value("{" + body + "}", "dict")
    assert time.perf_counter() - started < 2.0
