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

from fcbench import corrections
from fcbench.check.ast import defaults, values
from fcbench.check.ast.types import PYTHON_NESTED, PYTHON_TYPES, answer_type, check_type
from fcbench.core.categories import Checker, Language
from fcbench.core.model import Call, Verdict

NESTED_CONVERSION = ("Array", "ArrayList", "array")
LENIENT = "lenient_defaults"
"""A pass's extra under `--corrections lenient-defaults`: the parameters accepted only
because they were given their documented default (`check.ast.defaults`)."""


@dataclass(frozen=True)
class Setting:
    """What the checker needs to know about how the answers were produced."""

    language: Language = Language.PYTHON
    underscore_names: bool = False
    """FC APIs forbid dots in tool names, so `a.b` was sent (and answered) as `a_b`."""


def check_calls(
    checker: str,
    functions: list[dict[str, Any]],
    calls: list[Call],
    possible_answer: list[dict[str, Any]],
    setting: Setting,
) -> Verdict:
    """The verdict on one case's decoded calls."""
    return CaseChecker(checker, functions, possible_answer, setting).check(calls)


class CaseChecker:
    """One case's possible answer, prepared once and then used on the calls of many models.

    Preparing a check (the expected name, each parameter's types, the normalised acceptable
    strings) costs about as much as the check itself, and `fcbench evaluate` checks each case
    for every model. Everything is prepared lazily, at the point where the official checker
    first reads it, so a defective function doc fails exactly the answers it fails upstream.
    """

    def __init__(
        self,
        checker: str,
        functions: list[dict[str, Any]],
        possible_answer: list[dict[str, Any]],
        setting: Setting,
    ) -> None:
        self.checker = checker
        self.functions = functions
        self.possible_answer = possible_answer
        self.setting = setting
        self._expected: dict[int, ExpectedCall] = {}

    def check(self, calls: list[Call]) -> Verdict:
        if self.checker == Checker.AST_PARALLEL:
            return self._check_parallel(calls)
        if self.checker == Checker.AST_MULTIPLE:
            if len(calls) != len(self.possible_answer):
                return Verdict.fail(
                    "multiple_function_checker:wrong_count", "Wrong number of functions."
                )
            return self._expect(0).check(calls[0])
        if len(calls) != 1:
            return Verdict.fail("simple_function_checker:wrong_count", "Wrong number of functions.")
        return self._expect(0).check(calls[0])

    def _expect(self, index: int) -> ExpectedCall:
        """The prepared expected call at `index` of the possible answer.

        The simple checker takes the case's first doc; the others look the doc up by name.
        """
        prepared = self._expected.get(index)
        if prepared is None:
            expected = self.possible_answer[index]
            if self.checker == Checker.AST_SIMPLE:
                doc = self.functions[0]
            else:
                doc = find_doc(self.functions, next(iter(expected)))
            prepared = self._expected[index] = ExpectedCall(doc, expected, self.setting)
        return prepared

    def _check_parallel(self, calls: list[Call]) -> Verdict:
        """[quirk] Greedy first-fit: each expected call claims the first unclaimed call that
        passes."""
        if len(calls) != len(self.possible_answer):
            return Verdict.fail(
                "parallel_function_checker_no_order:wrong_count", "Wrong number of functions."
            )
        claimed: set[int] = set()
        lenient: list[str] = []
        for expected_index in range(len(self.possible_answer)):
            expected = self._expect(expected_index)
            tried: list[Any] = []
            for index, call in enumerate(calls):
                if index in claimed:
                    continue
                verdict = expected.check(call)
                if verdict.valid:
                    claimed.add(index)
                    lenient.extend(verdict.extras.get(LENIENT, ()))
                    break
                tried.append(_tried_item(index, verdict, call, expected.expected))
            else:
                unclaimed = [i for i in range(len(calls)) if i not in claimed]
                return Verdict.fail(
                    "parallel_function_checker_no_order:cannot_find_match",
                    f"Could not find a matching function among index {unclaimed} of model "
                    f"output for index {expected_index} of possible answers.",
                    *tried,
                )
        return Verdict.ok(**{LENIENT: lenient}) if lenient else Verdict.ok()


def _tried_item(index: int, verdict: Verdict, call: Call, expected: dict[str, Any]) -> Any:
    """How a failed pairing is reported in the official parallel checker's error list."""
    return {
        f"Model Result Index {index}": {
            "sub_error": verdict.errors,
            "sub_error_type": verdict.error_type,
            "model_output_item": call.as_official(),
            "possible_answer_item": expected,
        }
    }


def find_doc(functions: list[dict[str, Any]], name: str) -> dict[str, Any]:
    """The doc with exactly this name (the official lookup; a missing doc is a data defect)."""
    for doc in functions:
        if doc["name"] == name:
            return doc
    raise LookupError(f"no function doc named {name!r} in the case")


def expected_name(doc_name: str, setting: Setting) -> str:
    if "." in doc_name and setting.underscore_names:
        return doc_name.replace(".", "_")
    return doc_name


def check_function(
    doc: dict[str, Any], call: Call, expected: dict[str, Any], setting: Setting
) -> Verdict:
    """One model call against one expected call, in the official order of checks."""
    return ExpectedCall(doc, expected, setting).check(call)


class ExpectedCall:
    """One expected call of a possible answer with its doc, ready to judge model calls.

    The checks run in the official order: name, required parameters, each supplied
    parameter (type then value), omitted parameters.
    """

    def __init__(self, doc: dict[str, Any], expected: dict[str, Any], setting: Setting) -> None:
        self.expected = expected
        self.acceptable_by_param: dict[str, Any] = next(iter(expected.values()))
        self.parameters: dict[str, Any] = doc["parameters"]
        self.properties: dict[str, Any] = self.parameters["properties"]
        self.name = expected_name(doc["name"], setting)
        self.setting = setting
        self._python_rules: dict[str, PythonParam] = {}

    def check(self, call: Call) -> Verdict:
        if call.name != self.name:
            return Verdict.fail(
                "simple_function_checker:wrong_func_name",
                f"Function name {self.name!r} not found in model output.",
            )
        args = call.args
        for param in self.parameters["required"]:
            if param not in args:
                return Verdict.fail(
                    "simple_function_checker:missing_required",
                    f"Missing required parameter: {param!r}.",
                )
        acceptable_by_param = self.acceptable_by_param
        lenient: list[str] = []
        for param, value in args.items():
            if param not in self.properties or param not in acceptable_by_param:
                return Verdict.fail(
                    "simple_function_checker:unexpected_param",
                    f"Unexpected parameter: {param!r}.",
                )
            verdict = self._check_param(param, value)
            if not verdict.valid:
                if not self._is_default(param, value):
                    return verdict
                lenient.append(param)
        for param, acceptable in acceptable_by_param.items():
            if param not in args and "" not in acceptable:
                return Verdict.fail(
                    "simple_function_checker:missing_optional",
                    f"Optional parameter {param!r} not provided and not marked as optional.",
                )
        return Verdict.ok(**{LENIENT: lenient}) if lenient else Verdict.ok()

    def _is_default(self, param: str, value: Any) -> bool:
        """Under `lenient-defaults` only: the failed parameter is optional, omittable and
        given exactly its documented default (`check.ast.defaults`)."""
        if not corrections.enabled(corrections.LENIENT_DEFAULTS.id):
            return False
        details = self.properties[param]
        if not defaults.applies(param, self.parameters["required"], details,
                                self.acceptable_by_param[param]):
            return False
        declared: str = details["type"]
        default = details["default"]
        if self.setting.language is Language.PYTHON:
            return defaults.same(defaults.python_value(value, declared),
                                 defaults.python_value(default, declared))
        converted = _convert(param, value, details, self.setting)
        if isinstance(converted, Verdict):
            return False
        table, convert, _ = _language_rules(self.setting.language)
        element = details.get("items", {}).get("type") if declared in NESTED_CONVERSION else None
        read = (lambda text: convert(text, declared, element)) if element else (
            lambda text: convert(text, declared))
        try:  # a default the converter refuses (Bigint text it cannot parse) is no match
            written = defaults.source_default(default, table[declared], read)
        except ValueError:
            return False
        return defaults.same(converted[0], written)

    def _check_param(self, param: str, value: Any) -> Verdict:
        if self.setting.language is not Language.PYTHON:
            acceptable = self.acceptable_by_param[param]
            return _check_param(param, value, self.properties[param], acceptable, self.setting)
        rule = self._python_rules.get(param)
        if rule is None:
            details = self.properties[param]
            rule = PythonParam(details, self.acceptable_by_param[param])
            self._python_rules[param] = rule
        return rule.check(param, value)


class PythonParam:
    """One parameter's rule for Python answers: declared type, the ground truth's variable
    type, and the acceptable values (strings normalised once)."""

    __slots__ = ("_strings", "acceptable", "declared", "expected", "is_variable", "nested")

    def __init__(self, details: dict[str, Any], acceptable: list[Any]) -> None:
        declared: str = details["type"]
        self.declared = declared
        self.nested = PYTHON_TYPES[details["items"]["type"]] if declared in PYTHON_NESTED else None
        self.expected = PYTHON_TYPES[declared]
        self.acceptable = acceptable
        variable_type = answer_type(acceptable)
        self.is_variable = variable_type is not None and variable_type != self.expected
        self._strings: frozenset[str] | None = None

    def check(self, param: str, value: Any) -> Verdict:
        declared, expected = self.declared, self.expected
        if declared == "tuple" and type(value) is tuple:
            value = list(value)  # the ground truth went through JSON, which has no tuples
        if declared == "float" and type(value) is int:
            value = float(value)  # Python's int -> float promotion, top level only
        if type(value) is expected and self.nested is None:
            is_variable = self.is_variable  # what check_type decides for this common case
        else:
            typed = check_type(param, value, self.acceptable, declared, expected, self.nested)
            if not typed.valid:
                return Verdict.fail(typed.error_type, *typed.errors)
            is_variable = typed.is_variable
        if not is_variable:
            if expected is str:
                if self._strings is None:
                    self._strings = values.standardized_strings(self.acceptable)
                return values.check_string(param, value, self.acceptable, self._strings)
            return _compare_structured(param, value, self.acceptable, expected, self.nested)
        return _compare_plain(param, value, self.acceptable)


def _check_param(
    param: str, value: Any, details: dict[str, Any], acceptable: list[Any], setting: Setting
) -> Verdict:
    """One parameter of a Java or JavaScript answer (source text converted first)."""
    declared: str = details["type"]
    converted = _convert(param, value, details, setting)
    if isinstance(converted, Verdict):
        return converted
    value, expected, nested = converted
    if declared == "tuple" and type(value) is tuple:
        value = list(value)
    typed = check_type(param, value, acceptable, declared, expected, nested)
    if not typed.valid:
        return Verdict.fail(typed.error_type, *typed.errors)
    if not typed.is_variable:
        if expected is str:
            return values.check_string(param, value, acceptable)
        return _compare_structured(param, value, acceptable, expected, nested)
    return _compare_plain(param, value, acceptable)


def _compare_structured(
    param: str, value: Any, acceptable: list[Any], expected: type, nested: type | None
) -> Verdict:
    """The value comparators for dicts, lists (of dicts); others compare plainly."""
    if expected is dict:
        return values.check_dict(param, value, acceptable)
    if expected is list and nested is dict:
        return values.check_list_of_dicts(param, value, acceptable)
    if expected is list:
        return values.check_list(param, value, acceptable)
    return _compare_plain(param, value, acceptable)


def _compare_plain(param: str, value: Any, acceptable: list[Any]) -> Verdict:
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
