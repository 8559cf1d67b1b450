"""Every type rule of the AST checker, pinned without the corpus: accept and reject, per
language, with the error type the official checker records (spec §3.5).

Each row is one parameter of one call, judged through `check_function`, the checker's own
entry point for a call, so that a rule broken anywhere on the way (the type tables, the
Java/JavaScript converters, the variable escape hatch, the comparators) changes a verdict or an
error type here. The conformance corpus stays as the second net.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fcbench.check.ast.checker import Setting, check_function
from fcbench.core.categories import Language
from fcbench.core.model import Call

PYTHON = Setting(Language.PYTHON)
JAVA = Setting(Language.JAVA)
JAVASCRIPT = Setting(Language.JAVASCRIPT)

OK = None
"""Expected error type of an accepted value."""


def judged(setting: Setting, declared: str, value: Any, acceptable: list[Any],
           items: str | None = None) -> str | None:
    """The error type of a call `f(p=value)` whose doc declares `p` as `declared` (None when
    the call passes)."""
    details: dict[str, Any] = {"type": declared}
    if items is not None:
        details["items"] = {"type": items}
    doc = {"name": "f", "parameters": {"type": "dict", "properties": {"p": details},
                                        "required": ["p"]}}
    verdict = check_function(doc, Call("f", {"p": value}), {"f": {"p": acceptable}}, setting)
    return None if verdict.valid else verdict.error_type


# -- Python ---------------------------------------------------------------------------------

PYTHON_RULES = [
    # (declared, items, value, acceptable, error type)
    ("string", None, "Paris", ["Paris"], OK),
    ("string", None, 5, ["5"], "type_error:simple"),
    ("integer", None, 5, [5], OK),
    ("integer", None, True, [1], "type_error:simple"),  # bool is not int
    ("integer", None, 5.0, [5], "type_error:simple"),  # no float -> int
    ("integer", None, "5", [5], "type_error:simple"),
    ("integer", None, 6, [5], "value_error:others"),
    ("float", None, 2.5, [2.5], OK),
    ("float", None, 2, [2.0], OK),  # int -> float promotion, top level only
    ("float", None, 3, [2.0], "value_error:others"),
    ("float", None, True, [1.0], "type_error:simple"),  # bool is not promoted
    ("float", None, "2.5", [2.5], "type_error:simple"),
    ("boolean", None, True, [True], OK),
    ("boolean", None, 1, [True], "type_error:simple"),
    ("boolean", None, "true", [True], "type_error:simple"),
    ("array", "integer", [1, 2], [[1, 2]], OK),
    ("array", "integer", [2, 1], [[1, 2]], "value_error:list/tuple"),  # order matters
    ("array", "integer", (1, 2), [[1, 2]], "type_error:simple"),  # only `tuple` takes tuples
    ("array", "integer", [1, "2"], [[1, 2]], "type_error:nested"),
    ("array", "float", [1, 2], [[1.0, 2.0]], "type_error:nested"),  # no promotion inside
    ("array", "string", ["New York"], [["new york"]], OK),  # elements normalised
    ("tuple", "integer", (1, 2), [[1, 2]], OK),  # a tuple is compared as a list
    ("tuple", "integer", [1, 2], [[1, 2]], OK),
    ("dict", None, {"a": 1}, [{"a": [1]}], OK),
    ("dict", None, {"a": 2}, [{"a": [1]}], "value_error:dict_value"),
    ("dict", None, {"b": 1}, [{"a": [1]}], "value_error:dict_key"),
    ("dict", None, [1], [{"a": [1]}], "type_error:simple"),
    ("any", None, "x", ["x"], OK),
    ("any", None, 1, ["1"], "type_error:simple"),  # `any` is checked as a string
    # The ground truth names a variable (its type differs from the declared one): a value of
    # the variable's type is accepted and compared by plain equality.
    ("integer", None, "n", ["n"], OK),
    ("integer", None, "N", ["n"], "value_error:others"),  # no string normalising then
    ("integer", None, 1.5, ["n"], "type_error:simple"),
]


@pytest.mark.parametrize(("declared", "items", "value", "acceptable", "error"), PYTHON_RULES)
def test_python_type_rules(declared: str, items: str | None, value: Any,
                           acceptable: list[Any], error: str | None) -> None:
    assert judged(PYTHON, declared, value, acceptable, items) == error


@given(st.integers())
def test_python_integer_accepts_every_int_and_rejects_its_float(n: int) -> None:
    assert judged(PYTHON, "integer", n, [n]) is None
    assert judged(PYTHON, "integer", float(n), [n]) == "type_error:simple"


@given(st.floats(allow_nan=False, allow_infinity=False))
def test_python_float_accepts_its_own_value_and_rejects_its_text(x: float) -> None:
    assert judged(PYTHON, "float", x, [x]) is None
    assert judged(PYTHON, "float", str(x), [x]) == "type_error:simple"


# -- Java ----------------------------------------------------------------------------------

JAVA_RULES = [
    # Every Java value is source text; a value that is not a string is a Java type error.
    ("integer", None, 5, [5], "type_error:java"),
    ("integer", None, "5", [5], OK),
    ("integer", None, "-5", [-5], OK),
    ("integer", None, "5L", [5], "type_error:simple"),
    ("integer", None, "five", [5], "type_error:simple"),
    ("byte", None, "7", [7], OK),
    ("short", None, "7", [7], OK),
    ("short", None, "7.0", [7], "type_error:simple"),
    ("long", None, "5000L", [5000], OK),
    ("long", None, "5000l", [5000], OK),
    ("long", None, "5000", [5000], "type_error:simple"),  # [quirk] the suffix is required
    ("long", None, "abc", [5000], "type_error:simple"),
    ("long", None, '"5000"', [5000], "type_error:simple"),
    ("long", None, "5001L", [5000], "value_error:others"),
    ("float", None, "1.5f", [1.5], OK),
    ("float", None, "1.5", [1.5], "type_error:simple"),  # [quirk] the suffix is required
    ("double", None, "1.5", [1.5], OK),
    ("double", None, "1e3", [1000.0], OK),
    ("double", None, "1.5d", [1.5], "type_error:simple"),
    ("boolean", None, "true", [True], OK),
    ("boolean", None, "false", [False], OK),
    ("boolean", None, "True", [True], "type_error:simple"),
    ("boolean", None, "1", [True], "type_error:simple"),
    ("char", None, "'a'", ["'a'"], OK),  # [quirk] char text stays as written
    ("String", None, "hello", ["hello"], OK),
    ("String", None, "Hello World", ["helloworld"], OK),  # normalised like Python strings
    ("String", None, "hi", ["hello"], "value_error:string"),
    ("any", None, "x", ["x"], OK),
    ("Array", "integer", "new int[]{1, 2}", [[1, 2]], OK),
    ("Array", "integer", "new int[]{1, x}", [[1, 2]], "type_error:nested"),
    ("Array", "integer", "{1, 2}", [[1, 2]], "type_error:simple"),
    ("ArrayList", "String", 'new ArrayList<>(Arrays.asList("a", "b"))', [["a", "b"]], OK),
    ("ArrayList", "integer", "new ArrayList<>()", [[]], OK),
    ("HashMap", None, 'new HashMap<String, String>() {{ put("k", "v"); }}', [{"k": ["v"]}], OK),
    ("HashMap", None, 'new HashMap<String, String>() {{ put("k", "w"); }}', [{"k": ["v"]}],
     "value_error:dict_value"),
    ("HashMap", None, "k=v", [{"k": ["v"]}], "type_error:simple"),
    # A variable name in the ground truth: the text is compared as it is.
    ("long", None, "timeout", ["timeout"], OK),
    ("long", None, "other", ["timeout"], "value_error:others"),
    ("boolean", None, "flag", ["flag"], OK),
]


@pytest.mark.parametrize(("declared", "items", "value", "acceptable", "error"), JAVA_RULES)
def test_java_type_rules(declared: str, items: str | None, value: Any,
                         acceptable: list[Any], error: str | None) -> None:
    assert judged(JAVA, declared, value, acceptable, items) == error


@given(st.integers(-(2**63), 2**63 - 1))
def test_java_long_takes_only_suffixed_whole_numbers(n: int) -> None:
    assert judged(JAVA, "long", f"{n}L", [n]) is None
    assert judged(JAVA, "long", str(n), [n]) == "type_error:simple"
    assert judged(JAVA, "long", f'"{n}"', [n]) == "type_error:simple"


@given(st.integers(-(2**31), 2**31 - 1))
def test_java_integer_takes_plain_whole_numbers(n: int) -> None:
    assert judged(JAVA, "integer", str(n), [n]) is None
    assert judged(JAVA, "integer", f"{n}L", [n]) == "type_error:simple"


@given(st.text(st.characters(exclude_categories=("Nd",)), min_size=1))
def test_java_whole_number_types_reject_text_without_digits(text: str) -> None:
    for declared in ("byte", "short", "integer", "long"):
        assert judged(JAVA, declared, text, [1]) == "type_error:simple"


# -- JavaScript ----------------------------------------------------------------------------

JAVASCRIPT_RULES = [
    ("integer", None, 5, [5], "type_error:js"),
    ("integer", None, "5", [5], OK),
    ("integer", None, "5.0", [5], "type_error:simple"),
    ("float", None, "1.5", [1.5], OK),
    ("float", None, "2", [2.0], OK),
    ("float", None, "1e3", [1000.0], "type_error:simple"),  # [quirk] no exponent
    ("Bigint", None, "12n", [12], OK),
    ("Bigint", None, "12", [12], "type_error:simple"),
    ("Boolean", None, "true", [True], OK),
    ("Boolean", None, "TRUE", [True], "type_error:simple"),
    ("String", None, "'abc'", ["abc"], OK),  # one pair of quotes dropped
    ("String", None, '"abc"', ["abc"], OK),
    ("String", None, "'abc\"", ["abc"], "value_error:string"),  # mismatched quotes kept
    ("array", "integer", "[1, 2]", [[1, 2]], OK),
    ("array", "integer", "[1, 'a']", [[1, 2]], "type_error:nested"),
    ("array", "String", "['a', 'b']", [["a", "b"]], OK),
    ("array", "integer", "1, 2", [[1, 2]], "type_error:simple"),
    ("dict", None, "{a: 1}", [{"a": [1]}], OK),
    ("dict", None, "{a: 2}", [{"a": [1]}], "value_error:dict_value"),
    ("dict", None, "a: 1", [{"a": [1]}], "type_error:simple"),
    ("any", None, "x", ["x"], OK),
    ("integer", None, "count", ["count"], OK),  # a variable in the ground truth
]


@pytest.mark.parametrize(("declared", "items", "value", "acceptable", "error"), JAVASCRIPT_RULES)
def test_javascript_type_rules(declared: str, items: str | None, value: Any,
                               acceptable: list[Any], error: str | None) -> None:
    assert judged(JAVASCRIPT, declared, value, acceptable, items) == error


@given(st.integers())
def test_javascript_integer_and_bigint_take_their_own_literals(n: int) -> None:
    assert judged(JAVASCRIPT, "integer", str(n), [n]) is None
    assert judged(JAVASCRIPT, "Bigint", f"{n}n", [n]) is None
    assert judged(JAVASCRIPT, "Bigint", str(n), [n]) == "type_error:simple"
