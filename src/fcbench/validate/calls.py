"""Function docs, and single-turn possible answers checked against them, for `validate`.

The rules are the AST checker's (spec §2.2, §3.4-3.5), read the other way round: instead of
asking whether a model's call fits the answer, they ask whether a call that follows the doc
*can* fit it. Types are looked up in the same Gorilla type tables the checker uses
(`check.ast.types`, `java_types`, `js_types`), with the possible-answer conventions: `""`
marks a parameter that may be omitted, and a string for a non-string parameter names a
variable the model is expected to pass verbatim (so it is not a type error, unless it is
really a literal such as `"5"`, which only a model that ignores the doc would write).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from fcbench.check.ast.java_types import JAVA_TYPE_TO_PYTHON
from fcbench.check.ast.js_types import JS_TYPE_TO_PYTHON
from fcbench.check.ast.types import PYTHON_NESTED, PYTHON_TYPES
from fcbench.check.ast.values import standardize
from fcbench.core.categories import Category, Checker, Language
from fcbench.validate.findings import Place, Recorder

__all__ = ["Docs", "check_docs", "check_expected_calls", "type_table"]

_TABLES: Mapping[Language, Mapping[str, type]] = {
    Language.PYTHON: PYTHON_TYPES,
    Language.JAVA: JAVA_TYPE_TO_PYTHON,
    Language.JAVASCRIPT: JS_TYPE_TO_PYTHON,
}
_NESTED: Mapping[Language, frozenset[str]] = {
    Language.PYTHON: frozenset(PYTHON_NESTED),
    Language.JAVA: frozenset({"Array", "ArrayList"}),
    Language.JAVASCRIPT: frozenset({"array"}),
}
"""Types whose `items.type` the checker reads (a doc without it cannot be checked)."""

_KIND = {str: "string", int: "number", float: "number", bool: "boolean", list: "array",
         dict: "object", set: "array"}
_LITERAL = re.compile(r"^\s*(-?\d+(\.\d*)?([eE][+-]?\d+)?|true|false|True|False)\s*$")


def type_table(language: Language) -> Mapping[str, type]:
    return _TABLES[language]


def _kind(value: Any) -> str:
    """JSON's kinds of value (int and float are one kind: 5 and 5.0 are the same number)."""
    if value is None:
        return "null"
    return _KIND.get(type(value), type(value).__name__)


# --------------------------------------------------------------------------- docs


Docs = dict[str, dict[str, Any] | None]
"""A case's docs by name (the first of a repeated name); None for a doc too broken to check
answers against (its defects are already reported)."""


def check_docs(functions: Any, language: Language, place: Place, rec: Recorder) -> Docs:
    """Each doc's shape; returns the docs by name."""
    if not isinstance(functions, list):
        rec.error("schema", place, "`function` is not a list of function docs")
        return {}
    docs: Docs = {}
    for index, doc in enumerate(functions):
        if not isinstance(doc, dict) or not isinstance(doc.get("name"), str):
            rec.error("schema", place, f"function doc {index} has no name")
            continue
        name = doc["name"]
        if name in docs:
            rec.warning("duplicate-function", place, f"two function docs are named {name!r}")
            continue
        docs[name] = doc if _check_doc(doc, language, place, rec) else None
    return docs


def _check_doc(doc: dict[str, Any], language: Language, place: Place, rec: Recorder) -> bool:
    """Whether the doc is sound enough to check answers against."""
    name = doc["name"]
    if not isinstance(doc.get("description"), str):
        rec.warning("doc-description", place, f"function {name!r} has no description")
    params = doc.get("parameters")
    if not isinstance(params, dict) or not isinstance(params.get("properties"), dict):
        rec.error("schema", place, f"function {name!r} has no `parameters.properties` object")
        return False
    required = params.get("required")
    if not isinstance(required, list) or not all(isinstance(r, str) for r in required):
        rec.error("schema", place, f"function {name!r}: `parameters.required` is not a list "
                  "of names (the checker reads it)")
        return False
    for param in required:
        if param not in params["properties"]:
            rec.error("doc-required-unknown", place,
                      f"function {name!r} requires {param!r}, which it does not describe")
    sound = True
    for param, prop in params["properties"].items():
        sound &= _check_property(f"{name}.{param}", prop, language, place, rec)
    return sound


def _check_property(
    path: str, prop: Any, language: Language, place: Place, rec: Recorder
) -> bool:
    if not isinstance(prop, dict) or not isinstance(prop.get("type"), str):
        rec.error("schema", place, f"parameter {path!r} has no type")
        return False
    declared = prop["type"]
    if not isinstance(prop.get("description"), str):
        rec.warning("doc-description", place, f"parameter {path!r} has no description")
    if declared not in _TABLES[language]:
        rec.error("unknown-type", place,
                  f"parameter {path!r} has type {declared!r}, unknown to the {language.value} "
                  "type table")
        return False
    if "enum" in prop and not isinstance(prop["enum"], list):
        rec.error("schema", place, f"parameter {path!r}: `enum` is not a list")
        return False
    if declared in _NESTED[language]:
        items = prop.get("items")
        if not isinstance(items, dict) or items.get("type") not in _TABLES[language]:
            rec.error("missing-items", place,
                      f"parameter {path!r} is a {declared} without a known `items.type`")
            return False
    return True


# --------------------------------------------------------------------------- answers


def check_expected_calls(
    ground_truth: Any,
    docs: Docs,
    functions: list[Any],
    category: Category,
    place: Place,
    rec: Recorder,
) -> None:
    """A single-turn possible answer against the case's docs."""
    if not isinstance(ground_truth, list) or not ground_truth:
        rec.error("schema", place, "`ground_truth` is not a non-empty list of expected calls")
        return
    single = category.checker in (Checker.AST_SIMPLE, Checker.AST_MULTIPLE)
    if single and len(ground_truth) != 1:
        rec.error("call-count", place,
                  f"{len(ground_truth)} expected calls; the {category.checker} checker "
                  "compares exactly one")
    for index, expected in enumerate(ground_truth):
        if (
            not isinstance(expected, dict)
            or len(expected) != 1
            or not isinstance(next(iter(expected.values())), dict)
        ):
            rec.error("schema", place,
                      f"expected call {index} is not one {{function: {{parameter: [values]}}}}")
            continue
        name, acceptable = next(iter(expected.items()))
        doc = _doc_for(name, docs, functions, category, place, rec)
        if doc is not None:
            params = doc["parameters"]
            _check_params(name, acceptable, params["properties"], params["required"],
                          category.language, place, rec)


def _doc_for(
    name: str,
    docs: Docs,
    functions: list[Any],
    category: Category,
    place: Place,
    rec: Recorder,
) -> dict[str, Any] | None:
    """The doc the checker will use: the first one for simple, else the one named."""
    if category.checker == Checker.AST_SIMPLE and functions:
        first = functions[0]
        first_name = first.get("name") if isinstance(first, dict) else None
        if first_name != name:
            rec.error("unknown-function", place,
                      f"the answer calls {name!r}, but the simple checker compares with the "
                      f"first doc, {first_name!r}")
            return None
    if name not in docs:
        rec.error("unknown-function", place, f"the answer calls {name!r}, which no doc describes")
        return None
    return docs[name]  # None for a broken doc: reported with the question


def _check_params(
    path: str,
    acceptable_by_param: dict[str, Any],
    properties: dict[str, Any],
    required: list[Any],
    language: Language,
    place: Place,
    rec: Recorder,
) -> None:
    """Parameter names, required ones, then each parameter's acceptable values."""
    for param in required:
        if param not in acceptable_by_param:
            rec.error("missing-required", place,
                      f"required parameter {path}.{param} is absent from the answer (so a call "
                      "that gives it is rejected)")
        elif acceptable_by_param[param] == [""]:
            rec.error("missing-required", place,
                      f"the answer requires {path}.{param} to be omitted, but the doc requires "
                      "it (no call can pass)")
        elif isinstance(acceptable_by_param[param], list) and "" in acceptable_by_param[param]:
            rec.warning("optional-required", place,
                        f"the answer lets {path}.{param} be omitted, but it is required")
    for param, acceptable in acceptable_by_param.items():
        where = f"{path}.{param}"
        if param not in properties:
            if isinstance(acceptable, list) and "" in acceptable:
                rec.warning("unknown-param", place,
                            f"the answer gives {where}, which the doc lacks (omitting it passes)")
            else:
                rec.error("unknown-param", place,
                          f"the answer gives {where}, which the doc lacks (so no call can pass)")
            continue
        if not isinstance(acceptable, list):
            rec.error("schema", place,
                      f"acceptable values of {where} are not a list: {acceptable!r}")
            continue
        if not acceptable:
            rec.error("no-acceptable-value", place,
                      f"{where} has no acceptable value at all (no call can pass)")
            continue
        prop = properties[param]
        if isinstance(prop, dict) and prop.get("type") in _TABLES[language]:
            _check_acceptable(where, acceptable, prop, language, place, rec)


def _check_acceptable(
    where: str,
    acceptable: list[Any],
    prop: dict[str, Any],
    language: Language,
    place: Place,
    rec: Recorder,
) -> None:
    """Each acceptable value against the doc. A value that contradicts it is an error when
    it leaves a call that follows the doc no way to pass (no other value fits and the
    parameter may not be omitted); beside an omission or values that fit, it is only dead
    (a warning). `null`, which stands for the default, is always only a warning."""
    problems: list[list[Problem]] = []
    for value in acceptable:
        if value is None:
            rec.warning("null-value", place,
                        f"{where} is declared {prop['type']}, but null is an acceptable value")
        elif value != "":
            problems.append(_value_problems(where, value, prop, language, place, rec))
    passable = "" in acceptable or any(not found for found in problems)
    for found in problems:
        for kind, message in found:
            if passable:
                rec.warning(kind, place, message + " (an omission or another value passes)")
            else:
                rec.error(kind, place, message)


Problem = tuple[str, str]
"""(kind, message) of one way a value contradicts its doc."""


def _value_problems(
    where: str, value: Any, prop: dict[str, Any], language: Language, place: Place,
    rec: Recorder, element: bool = False,
) -> list[Problem]:
    """How one acceptable value contradicts the doc: type, enum, elements; a dict value's
    keys are parameters of their own, checked (and recorded) as such.

    A parameter typed `any` takes any value, but the Java and JavaScript converters turn
    list elements typed `any` into strings (the type table's `str`), so there only strings
    can match."""
    declared: str = prop["type"]
    if declared == "any" and not (element and language is not Language.PYTHON):
        return []
    problem = _type_problem(where, value, declared, language)
    if problem is not None:
        return [problem]
    if isinstance(value, str) and _TABLES[language][declared] is not str:
        return []  # a variable name: compared as written, nothing more to check
    enum = prop.get("enum")
    if isinstance(enum, list) and not isinstance(value, (list, dict)):
        return _enum_problems(where, value, enum)
    expected = _TABLES[language][declared]
    items = prop.get("items")
    if expected is list and isinstance(items, dict) and items.get("type") in _TABLES[language]:
        return [found for item in value
                for found in _value_problems(f"{where}[]", item, items, language, place, rec,
                                             element=True)]
    if expected is dict:
        _check_dict_value(where, value, prop, language, place, rec)
    return []


def _type_problem(where: str, value: Any, declared: str, language: Language) -> Problem | None:
    """Whether the value's kind disagrees with the declared type (int and float agree, and
    a string for a non-string type is a variable name unless it is plainly a literal)."""
    expected = _TABLES[language][declared]
    kind = _kind(value)
    if kind == _KIND[expected]:
        if expected is int and isinstance(value, float) and not value.is_integer():
            return ("type-mismatch", f"{where} is declared {declared}, but an acceptable value "
                    f"is {value!r}")
        return None
    if kind == "string":
        if _LITERAL.match(value):
            return ("string-literal", f"{where} is declared {declared}, but an acceptable value "
                    f"is the string {value!r} (a literal, not a variable name)")
        return None
    return ("type-mismatch",
            f"{where} is declared {declared}, but an acceptable value is {kind} {value!r}")


def _enum_problems(where: str, value: Any, enum: list[Any]) -> list[Problem]:
    """The checker ignores `enum`, but compares strings normalised: so does this."""
    if isinstance(value, str):
        allowed = {standardize(e) for e in enum if isinstance(e, str)}
        if standardize(value) in allowed:
            return []
    elif value in enum:
        return []
    return [("enum-violation", f"{where}: acceptable value {value!r} is not in its enum {enum!r}")]


def _check_dict_value(
    where: str, value: dict[str, Any], prop: dict[str, Any], language: Language, place: Place,
    rec: Recorder,
) -> None:
    """A dict value maps each key to its acceptable values, like a call's parameters."""
    properties = prop.get("properties")
    if isinstance(properties, dict) and properties:
        required = prop.get("required")
        _check_params(where, value, properties, required if isinstance(required, list) else [],
                      language, place, rec)
        return
    for key, acceptable in value.items():
        if not isinstance(acceptable, list):
            rec.error("schema", place,
                      f"acceptable values of key {where}.{key} are not a list: {acceptable!r}")
