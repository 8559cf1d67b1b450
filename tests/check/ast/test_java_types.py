"""Java value conversion; expected values were checked against the official converter."""

from __future__ import annotations

import re
import time
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fcbench.check.ast import java_types
from fcbench.check.ast.java_types import (
    JAVA_TYPE_TO_PYTHON,
    NESTED_CONVERSION_TYPES,
    convert_java_value,
)


def same(actual: Any, expected: Any) -> bool:
    """Equal and of the same types, so that 1, 1.0 and True are told apart."""
    return repr(actual) == repr(expected)


@pytest.mark.parametrize(
    ("text", "java_type", "expected"),
    [
        ("12", "integer", 12),
        ("-7", "byte", -7),
        ("1.0", "integer", "1.0"),
        ("12\n", "short", 12),  # `$` also matches before a final newline
        ("12", "long", "12"),  # long needs its suffix
        ("12L", "long", 12),
        ("-3l", "long", -3),
        ("1.5", "float", "1.5"),  # float needs its suffix
        ("1.5f", "float", 1.5),
        ("2e3F", "float", 2000.0),
        ("1.5", "double", 1.5),
        ("1e-2", "double", 0.01),
        ("1.5d", "double", "1.5d"),
        (".5", "double", ".5"),
        ("true", "boolean", True),
        ("false", "boolean", False),
        ("TRUE", "boolean", "TRUE"),
        ("'a'", "char", "'a'"),  # the char pattern never matches
        ("a", "char", "a"),
        ('"hi"', "String", '"hi"'),
        ("x", "any", "x"),
    ],
)
def test_scalars(text: str, java_type: str, expected: Any) -> None:
    assert same(convert_java_value(text, java_type), expected)


@pytest.mark.parametrize(
    ("text", "element_type", "expected"),
    [
        ("new int[]{1, 2, 3}", "integer", [1, 2, 3]),
        ('new String[]{"a", "b"}', "String", ['"a"', '"b"']),  # quotes kept
        ("new long[]{1L, 2, 3L}", "long", [1, "2", 3]),
        ("new int[] { }", "integer", []),
        ("new int[]{{1,2},{3,4}}", "integer", ["{1", 2]),  # lazy match up to the first `}`
        ("foo(new int[]{1})", "integer", [1]),  # searched anywhere in the text
        ("new int[]{}", "Set", []),  # no element, so no conversion error
        (
            'new Object[]{1, "abc", true, 2L, 1.5f, 2.5, x}',
            None,
            [1, "abc", True, 2, 1.5, 2.5, "x"],
        ),
        ("{1, 2}", "integer", "{1, 2}"),
    ],
)
def test_array(text: str, element_type: str | None, expected: Any) -> None:
    assert same(convert_java_value(text, "Array", element_type), expected)


@pytest.mark.parametrize(
    ("text", "element_type", "expected"),
    [
        ('new ArrayList<>(Arrays.asList("a", "b"))', "String", ["a", "b"]),
        ("new ArrayList<Character>() {{ add('a'); add('b'); }}", "char", ["a", "b"]),
        ('new ArrayList<String>() {{\n add("x");\n add("y");\n}}', "String", ["x", "y"]),
        ("new ArrayList<>(Arrays.asList(x, y))", "String", ["", ""]),  # cut blindly
        ("new ArrayList<Long>(Arrays.asList(101, 102L))", "long", ["101", 102]),
        ("new ArrayList<Integer>(Arrays.asList(1, 2))", "integer", [1, 2]),
        ('new ArrayList<>(Arrays.asList(1, "a", true))', None, [1, "a", True]),
        ("new ArrayList<>()", "String", []),
        ("new ArrayList<List<String>>()", "String", "new ArrayList<List<String>>()"),
        ("Arrays.asList(1, 2)", "integer", "Arrays.asList(1, 2)"),
    ],
)
def test_arraylist(text: str, element_type: str | None, expected: Any) -> None:
    assert same(convert_java_value(text, "ArrayList", element_type), expected)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            'new HashMap<String, Object>() {{ put("a", 1); put("b", 2L); put("c", 1.5f); '
            'put("d", "x"); put("e", true); put("f", y); }}',
            {"a": 1, "b": 2, "c": 1.5, "d": "x", "e": True, "f": "y"},
        ),
        ("new HashMap<String,Integer>()", {}),
        ("new HashMap<>() {{ }}", {}),
        ("new HashMap<>() {{ put(k, 1); }}", {}),  # only quoted keys are read
        ('{"a": 1}', '{"a": 1}'),
    ],
)
def test_hashmap(text: str, expected: Any) -> None:
    assert same(convert_java_value(text, "HashMap"), expected)


@pytest.mark.parametrize("java_type", ["Set", "Hashtable", "Queue", "Stack"])
def test_collections_without_conversion_raise_not_implemented(java_type: str) -> None:
    with pytest.raises(NotImplementedError):
        convert_java_value("x", java_type)


def test_unknown_types_raise_value_error() -> None:
    with pytest.raises(ValueError):
        convert_java_value("x", "Foo")
    with pytest.raises(ValueError):
        convert_java_value("x", "array")  # a nested type of the checker, not a Java type
    with pytest.raises(ValueError):
        convert_java_value("new ArrayList<>(Arrays.asList(1, 2))", "ArrayList", "Foo")
    with pytest.raises(NotImplementedError):
        convert_java_value("new int[]{1}", "Array", "Set")


def test_type_table_matches_the_official_one() -> None:
    assert JAVA_TYPE_TO_PYTHON["long"] is int
    assert JAVA_TYPE_TO_PYTHON["double"] is float
    assert JAVA_TYPE_TO_PYTHON["Set"] is set
    assert JAVA_TYPE_TO_PYTHON["Hashtable"] is dict
    assert JAVA_TYPE_TO_PYTHON["Queue"] is list
    assert JAVA_TYPE_TO_PYTHON["any"] is str
    assert len(JAVA_TYPE_TO_PYTHON) == 17
    assert frozenset({"Array", "ArrayList", "array"}) == NESTED_CONVERSION_TYPES


# The official collection patterns, kept here as oracles for the linear finders only.
ARRAY = re.compile(r"new\s+\w+\[\]\s*\{(.*?)\}")
AS_LIST = re.compile(r"new\s+ArrayList<\w*>\(Arrays\.asList\((.+?)\)\)")
ADDS = re.compile(r"new\s+ArrayList<\w*>\(\)\s*\{\{\s*(.+?)\s*\}\}", re.DOTALL)
ADD_CALL = re.compile(r"add\((.+?)\)")
PUTS = re.compile(r"new\s+HashMap<.*?>\s*\(\)\s*\{\s*\{?\s*(.*?)\s*\}?\s*\}", re.DOTALL)
PUT_CALL = re.compile(r"put\(\"(.*?)\",\s*(.*?)\)")
HASHMAP_EMPTY = re.compile(r"new\s+HashMap<.*?>\s*\(\)")


def group(pattern: re.Pattern[str], text: str) -> str | None:
    found = pattern.search(text)
    return None if found is None else found.group(1)


def pieces(*parts: str) -> st.SearchStrategy[str]:
    """Text glued from the pieces the patterns care about, in any order and number."""
    return st.lists(st.sampled_from(parts), max_size=14).map("".join)


JAVA_PIECES = pieces(
    "new ", "new\n", "int[]", "String[] ", "{", "}", "{{", "}}", " ", "\n", "\t", "\u3000",
    "ArrayList<>", "ArrayList<Integer>", "(", ")", "()", "))", "Arrays.asList(", "add(", "1",
    '"a"', ",", ", ", "HashMap<", "String, Integer", ">", 'put("', '",', ";", "x",
)


FILLER = pieces(" ", "\n", "\t", "{", "}", "(", ")", ",", '"', "1", "x", 'put("', '",', "add(",
                ">", "}}", "))")
HEADS = st.sampled_from([
    "new int[]{", "new  String[] {", "new ArrayList<>(Arrays.asList(", "new ArrayList<Integer>()",
    "new ArrayList<>() {{", "new HashMap<>()", "new HashMap<String, Integer>() {", "new\nHashMap<",
])
JAVA_VALUES = st.lists(st.one_of(HEADS, FILLER), max_size=6).map("".join)
"""Collection openings with random text between them: what the patterns backtrack over."""


@settings(max_examples=4000, deadline=None)
@given(st.one_of(JAVA_PIECES, JAVA_VALUES))
def test_the_linear_finders_give_the_official_patterns_groups(text: str) -> None:
    assert java_types._array_body(text) == group(ARRAY, text)
    assert java_types._as_list_body(text) == group(AS_LIST, text)
    assert java_types._double_brace_body(text) == group(ADDS, text)
    assert java_types._calls(text, "add(") == ADD_CALL.findall(text)
    assert java_types._hashmap_body(text) == group(PUTS, text)
    assert java_types._puts(text) == PUT_CALL.findall(text)
    assert java_types._empty_hashmap(text) == (HASHMAP_EMPTY.search(text) is not None)


@pytest.mark.parametrize(
    ("prefix", "java_type"),
    [
        ("new ArrayList<>() {{", "ArrayList"),
        ("new ArrayList<>() {{ add(", "ArrayList"),
        ("new ArrayList<>(Arrays.asList(", "ArrayList"),
        ("new int[]{", "Array"),
        ('new HashMap<>() {{ put("a", ', "HashMap"),
        ("new HashMap<", "HashMap"),
    ],
)
def test_repeated_openings_convert_in_linear_time(prefix: str, java_type: str) -> None:
    """20,000 repeats of an opening that is never closed (the official patterns: minutes)."""
    started = time.perf_counter()
    java_types.convert_java_value(prefix * 20_000, java_type, "integer")
    assert time.perf_counter() - started < 2.0
