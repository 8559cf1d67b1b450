"""Hand-made cases for each rule of the AST checker, in the official order of checks."""

from __future__ import annotations

from typing import Any

from fcbench.check.ast.checker import CaseChecker, Setting, check_calls, check_function
from fcbench.core.categories import Checker
from fcbench.core.model import Call

DOC: dict[str, Any] = {
    "name": "math.area",
    "parameters": {
        "type": "dict",
        "properties": {
            "base": {"type": "integer"},
            "height": {"type": "float"},
            "unit": {"type": "string"},
            "tags": {"type": "array", "items": {"type": "string"}},
            "opts": {"type": "dict"},
            "extra": {"type": "boolean"},
        },
        "required": ["base"],
    },
}
ANSWER = {
    "math.area": {
        "base": [10],
        "height": [5.0, ""],
        "unit": ["cm", ""],
        "tags": [["a", "b"], ""],
        "opts": [{"k": [1], "z": ["", 2]}, ""],
    }
}


def judge(args: dict[str, Any], name: str = "math.area", **setting: Any) -> tuple[bool, str | None]:
    verdict = check_function(DOC, Call(name, args), ANSWER, Setting(**setting))
    return verdict.valid, verdict.error_type


def test_exact_answer_passes() -> None:
    assert judge({"base": 10}) == (True, None)
    assert judge({"base": 10, "height": 5.0, "unit": "CM", "tags": ["A", "b"]}) == (True, None)


def test_wrong_name_and_underscore_names() -> None:
    assert judge({"base": 10}, "area") == (False, "simple_function_checker:wrong_func_name")
    assert judge({"base": 10}, "math_area", underscore_names=True) == (True, None)
    assert judge({"base": 10}, "math.area", underscore_names=True)[1] == (
        "simple_function_checker:wrong_func_name"
    )


def test_missing_required_then_unexpected() -> None:
    assert judge({}) == (False, "simple_function_checker:missing_required")
    assert judge({"base": 10, "extra": True}) == (False, "simple_function_checker:unexpected_param")
    assert judge({"base": 10, "nope": 1}) == (False, "simple_function_checker:unexpected_param")


def test_types_are_exact_but_int_promotes_to_float() -> None:
    assert judge({"base": 10.0}) == (False, "type_error:simple")
    assert judge({"base": True}) == (False, "type_error:simple")
    assert judge({"base": 10, "height": 5}) == (True, None)


def test_string_normalisation() -> None:
    assert judge({"base": 10, "unit": " c-m. "}) == (True, None)
    assert judge({"base": 10, "unit": "mm"}) == (False, "value_error:string")
    assert judge({"base": 10, "unit": ""}) == (True, None)  # [quirk] "" matches the marker


def test_lists_are_order_sensitive() -> None:
    assert judge({"base": 10, "tags": ["b", "a"]}) == (False, "value_error:list/tuple")
    # [quirk] the "" marker among the acceptable values skips the element type check
    assert judge({"base": 10, "tags": [1]}) == (False, "value_error:list/tuple")
    assert judge({"base": 10, "tags": "a"}) == (False, "type_error:simple")


def test_dicts() -> None:
    assert judge({"base": 10, "opts": {"k": 1}}) == (True, None)
    assert judge({"base": 10, "opts": {"k": 1, "z": 2}}) == (True, None)
    assert judge({"base": 10, "opts": {"k": 2}}) == (False, "value_error:dict_value")
    assert judge({"base": 10, "opts": {"q": 1}}) == (False, "value_error:dict_key")
    assert judge({"base": 10, "opts": {"z": 2}}) == (False, "value_error:dict_key")


def test_other_values_and_missing_optional() -> None:
    assert judge({"base": 11}) == (False, "value_error:others")
    answer = {"math.area": {"base": [10], "height": [5.0]}}
    verdict = check_function(DOC, Call("math.area", {"base": 10}), answer, Setting())
    assert verdict.error_type == "simple_function_checker:missing_optional"


def test_variable_name_in_ground_truth() -> None:
    answer = {"f": {"xs": ["my_list"]}}
    doc = {
        "name": "f",
        "parameters": {
            "properties": {"xs": {"type": "array", "items": {"type": "integer"}}},
            "required": ["xs"],
        },
    }
    assert check_function(doc, Call("f", {"xs": "my_list"}), answer, Setting()).valid
    assert not check_function(doc, Call("f", {"xs": "MY_LIST"}), answer, Setting()).valid


def test_nested_type_quirk_with_optional_marker() -> None:
    doc = {
        "name": "f",
        "parameters": {
            "properties": {"xs": {"type": "array", "items": {"type": "float"}}},
            "required": [],
        },
    }
    strict = {"f": {"xs": [[1.0, 2.5]]}}
    lenient = {"f": {"xs": [[1.0, 2.5], ""]}}
    call = Call("f", {"xs": [1, 2.5]})
    assert check_function(doc, call, strict, Setting()).error_type == "type_error:nested"
    assert check_function(doc, call, lenient, Setting()).valid


def _doc(name: str) -> dict[str, Any]:
    return {
        "name": name,
        "parameters": {"properties": {"x": {"type": "integer"}}, "required": ["x"]},
    }


def test_parallel_greedy_matching_in_any_order() -> None:
    docs = [_doc("f"), _doc("g")]
    answer = [{"f": {"x": [1]}}, {"g": {"x": [2]}}, {"f": {"x": [3]}}]
    calls = [Call("f", {"x": 3}), Call("g", {"x": 2}), Call("f", {"x": 1})]
    assert check_calls(Checker.AST_PARALLEL, docs, calls, answer, Setting()).valid
    wrong = [Call("f", {"x": 1}), Call("g", {"x": 2}), Call("f", {"x": 4})]
    verdict = check_calls(Checker.AST_PARALLEL, docs, wrong, answer, Setting())
    assert verdict.error_type == "parallel_function_checker_no_order:cannot_find_match"
    assert verdict.errors[0].startswith(
        "Could not find a matching function among index [2] of model output for index 2"
    )
    short = check_calls(Checker.AST_PARALLEL, docs, calls[:2], answer, Setting())
    assert short.error_type == "parallel_function_checker_no_order:wrong_count"


def test_parallel_greedy_is_not_maximum_matching() -> None:
    """[quirk] The first expected call claims the first call that passes, even if a later
    expected call needed it."""
    doc = {"name": "f", "parameters": {"properties": {"x": {"type": "integer"}}, "required": []}}
    answer = [{"f": {"x": [1, ""]}}, {"f": {"x": [1]}}]
    calls = [Call("f", {"x": 1}), Call("f", {})]
    verdict = check_calls(Checker.AST_PARALLEL, [doc], calls, answer, Setting())
    assert verdict.error_type == "parallel_function_checker_no_order:cannot_find_match"


def test_simple_and_multiple_count_checks() -> None:
    docs = [_doc("f"), _doc("g")]
    answer = [{"g": {"x": [2]}}]
    two = [Call("g", {"x": 2}), Call("g", {"x": 2})]
    assert check_calls(Checker.AST_SIMPLE, docs, two, answer, Setting()).error_type == (
        "simple_function_checker:wrong_count"
    )
    assert check_calls(Checker.AST_MULTIPLE, docs, two, answer, Setting()).error_type == (
        "multiple_function_checker:wrong_count"
    )
    one = [Call("g", {"x": 2})]
    assert check_calls(Checker.AST_MULTIPLE, docs, one, answer, Setting()).valid
    other = [Call("f", {"x": 2})]
    assert check_calls(Checker.AST_MULTIPLE, docs, other, answer, Setting()).error_type == (
        "simple_function_checker:wrong_func_name"
    )


def test_one_prepared_case_checker_judges_many_answers_like_fresh_ones() -> None:
    docs = [DOC, {**DOC, "name": "math.other"}]
    answer = [ANSWER, {"math.other": ANSWER["math.area"]}]
    calls = [
        [Call("math.area", {"base": 10}), Call("math.other", {"base": 10, "unit": "cm"})],
        [Call("math.other", {"base": 10}), Call("math.area", {"base": 10})],
        [Call("math.area", {"base": 10, "unit": "mm"}), Call("math.other", {"base": 10})],
        [Call("math.area", {"base": "10"}), Call("math.other", {"base": 10})],
        [Call("math.area", {"base": 10})],
    ]
    prepared = CaseChecker(Checker.AST_PARALLEL, docs, answer, Setting())
    for answer_calls in calls * 2:  # twice: the second round uses only prepared rules
        fresh = check_calls(Checker.AST_PARALLEL, docs, answer_calls, answer, Setting())
        again = prepared.check(answer_calls)
        assert (again.valid, again.error_type, again.errors) == (
            fresh.valid,
            fresh.error_type,
            fresh.errors,
        )
    assert [prepared.check(c).valid for c in calls] == [True, True, False, False, False]


def test_a_defective_doc_fails_only_answers_that_reach_it() -> None:
    broken = {"name": "f", "parameters": {"properties": {"x": {"type": "no_such_type"}}}}
    prepared = CaseChecker(Checker.AST_SIMPLE, [broken], [{"f": {"x": [1]}}], Setting())
    assert prepared.check([Call("g", {"x": 1})]).error_type == (
        "simple_function_checker:wrong_func_name"
    )
    try:
        prepared.check([Call("f", {"x": 1})])  # "required" is missing: read after the name
    except KeyError as exc:
        assert exc.args == ("required",)
    else:
        raise AssertionError("a missing 'required' list must surface as in the official")
