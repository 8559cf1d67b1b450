"""The AST checker: decoded calls against a case's possible answer (spec §3.1-3.4).

`check_calls` routes by the category's checker kind: simple (exactly one call), multiple
(exactly one call, to the expected function) and parallel (order-free greedy matching). Each
call is judged by `check_function`, which applies the official checks in the official order:
name, required parameters, each supplied parameter (type then value), omitted parameters.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from fcbench.check.ast import values
from fcbench.check.ast.types import PYTHON_NESTED, PYTHON_TYPES, check_type
from fcbench.dataset.categories import Checker, Language
from fcbench.dataset.model import Call, Verdict

NESTED_CONVERSION = ("Array", "ArrayList", "array")


@dataclass(frozen=True)
class Setting:
    """What the checker needs to know about how the answers were produced."""

    language: Language = Language.PYTHON
    underscore_names: bool = False
    """FC APIs forbid dots in tool names, so `a.b` was sent (and answered) as `a_b`."""


def check_calls(
    checker: Checker,
    functions: list[dict[str, Any]],
    calls: list[Call],
    possible_answer: list[dict[str, Any]],
    setting: Setting,
) -> Verdict:
    """The verdict on one case's decoded calls."""
    if checker is Checker.AST_PARALLEL:
        return _check_parallel(functions, calls, possible_answer, setting)
    if checker is Checker.AST_MULTIPLE:
        if len(calls) != len(possible_answer):
            return Verdict.fail(
                "multiple_function_checker:wrong_count", "Wrong number of functions."
            )
        expected = possible_answer[0]
        doc = find_doc(functions, next(iter(expected)))
        return check_function(doc, calls[0], expected, setting)
    if len(calls) != 1:
        return Verdict.fail("simple_function_checker:wrong_count", "Wrong number of functions.")
    return check_function(functions[0], calls[0], possible_answer[0], setting)


def find_doc(functions: list[dict[str, Any]], name: str) -> dict[str, Any]:
    """The doc with exactly this name (the official lookup; a missing doc is a data defect)."""
    for doc in functions:
        if doc["name"] == name:
            return doc
    raise LookupError(f"no function doc named {name!r} in the case")


def _check_parallel(
    functions: list[dict[str, Any]],
    calls: list[Call],
    possible_answer: list[dict[str, Any]],
    setting: Setting,
) -> Verdict:
    """[quirk] Greedy first-fit: each expected call claims the first unclaimed call that passes."""
    if len(calls) != len(possible_answer):
        return Verdict.fail(
            "parallel_function_checker_no_order:wrong_count", "Wrong number of functions."
        )
    claimed: set[int] = set()
    for expected_index, expected in enumerate(possible_answer):
        doc = find_doc(functions, next(iter(expected)))
        tried: list[Any] = []
        for index, call in enumerate(calls):
            if index in claimed:
                continue
            verdict = check_function(doc, call, expected, setting)
            if verdict.valid:
                claimed.add(index)
                break
            tried.append(
                {
                    f"Model Result Index {index}": {
                        "sub_error": verdict.errors,
                        "sub_error_type": verdict.error_type,
                        "model_output_item": call.as_official(),
                        "possible_answer_item": expected,
                    }
                }
            )
        else:
            unclaimed = [i for i in range(len(calls)) if i not in claimed]
            return Verdict.fail(
                "parallel_function_checker_no_order:cannot_find_match",
                f"Could not find a matching function among index {unclaimed} of model output "
                f"for index {expected_index} of possible answers.",
                *tried,
            )
    return Verdict.ok()


def expected_name(doc_name: str, setting: Setting) -> str:
    if "." in doc_name and setting.underscore_names:
        return doc_name.replace(".", "_")
    return doc_name


def check_function(
    doc: dict[str, Any], call: Call, expected: dict[str, Any], setting: Setting
) -> Verdict:
    """One model call against one expected call, in the official order of checks."""
    acceptable_by_param: dict[str, Any] = next(iter(expected.values()))
    properties: dict[str, Any] = doc["parameters"]["properties"]
    name = expected_name(doc["name"], setting)
    if call.name != name:
        return Verdict.fail(
            "simple_function_checker:wrong_func_name",
            f"Function name {name!r} not found in model output.",
        )
    for param in doc["parameters"]["required"]:
        if param not in call.args:
            return Verdict.fail(
                "simple_function_checker:missing_required",
                f"Missing required parameter: {param!r}.",
            )
    for param, value in call.args.items():
        if param not in properties or param not in acceptable_by_param:
            return Verdict.fail(
                "simple_function_checker:unexpected_param", f"Unexpected parameter: {param!r}."
            )
        verdict = _check_param(param, value, properties[param], acceptable_by_param[param], setting)
        if not verdict.valid:
            return verdict
    for param, acceptable in acceptable_by_param.items():
        if param not in call.args and "" not in acceptable:
            return Verdict.fail(
                "simple_function_checker:missing_optional",
                f"Optional parameter {param!r} not provided and not marked as optional.",
            )
    return Verdict.ok()


def _check_param(
    param: str, value: Any, details: dict[str, Any], acceptable: list[Any], setting: Setting
) -> Verdict:
    declared: str = details["type"]
    converted = _convert(param, value, details, setting)
    if isinstance(converted, Verdict):
        return converted
    value, expected, nested = converted
    if declared == "tuple" and type(value) is tuple:
        value = list(value)  # the ground truth went through JSON, which has no tuples
    if setting.language is Language.PYTHON and declared == "float" and type(value) is int:
        value = float(value)  # Python's int -> float promotion, top level only
    typed = check_type(param, value, acceptable, declared, expected, nested)
    if not typed.valid:
        return Verdict.fail(typed.error_type, *typed.errors)
    if not typed.is_variable:
        if expected is dict:
            return values.check_dict(param, value, acceptable)
        if expected is list and nested is dict:
            return values.check_list_of_dicts(param, value, acceptable)
        if expected is str:
            return values.check_string(param, value, acceptable)
        if expected is list:
            return values.check_list(param, value, acceptable)
    if value not in acceptable:
        return Verdict.fail(
            "value_error:others",
            f"Invalid value for parameter {param!r}: {value!r}. Expected one of {acceptable}.",
        )
    return Verdict.ok()


def _convert(
    param: str, value: Any, details: dict[str, Any], setting: Setting
) -> tuple[Any, type, type | None] | Verdict:
    """Language pre-processing: (value, expected Python type, element type) or a failure.

    Java and JavaScript answers are source text; their converters turn it into values.
    """
    declared: str = details["type"]
    if setting.language is Language.PYTHON:
        nested = PYTHON_TYPES[details["items"]["type"]] if declared in PYTHON_NESTED else None
        return value, PYTHON_TYPES[declared], nested
    table, convert, error_type = _language_rules(setting.language)
    expected = table[declared]
    if type(value) is not str:
        return Verdict.fail(
            error_type,
            f"Incorrect type for parameter {param!r}. Expected type String, "
            f"got {type(value).__name__}. Parameter value: {value!r}.",
        )
    if declared in NESTED_CONVERSION:
        element = details["items"]["type"]
        return convert(value, declared, element), expected, table[element]
    return convert(value, declared), expected, None


def _language_rules(language: Language) -> tuple[dict[str, type], Callable[..., Any], str]:
    """(type table, source-text converter, type error) for Java or JavaScript.

    Imported on first use: Python-only evaluations never load the converters.
    """
    if language is Language.JAVA:
        from fcbench.check.ast import java_types

        return java_types.JAVA_TYPE_TO_PYTHON, java_types.convert_java_value, "type_error:java"
    from fcbench.check.ast import js_types

    return js_types.JS_TYPE_TO_PYTHON, js_types.convert_js_value, "type_error:js"
