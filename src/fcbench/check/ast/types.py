"""The AST checker's type rule (spec §3.5), with the ground truth's "variable" escape hatch.

Types are compared exactly (`type(v) is T`: bool is not int, int is not float). When the
first non-empty acceptable value has another type than the declared one, the ground truth
names a variable; a model value of that other type is then accepted and compared by plain
equality. Nested element types are checked one level deep only.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

PYTHON_TYPES: dict[str, type] = {
    "string": str,
    "integer": int,
    "float": float,
    "boolean": bool,
    "array": list,
    "tuple": list,
    "dict": dict,
    "any": str,
}

PYTHON_NESTED = ("array", "tuple")


@dataclass
class TypeCheck:
    valid: bool
    is_variable: bool = False
    error_type: str = "type_error:simple"
    errors: list[str] = field(default_factory=list)


_PLAIN = TypeCheck(True, False)
_VARIABLE = TypeCheck(True, True)


def answer_type(acceptable: list[Any]) -> type | None:
    """The type of the first acceptable value that is not `""` (the omission marker)."""
    for answer in acceptable:
        if answer != "":
            return type(answer)
    return None


def check_type(
    param: str,
    value: Any,
    acceptable: list[Any],
    declared: str,
    expected: type,
    nested: type | None,
) -> TypeCheck:
    """Decide whether `value` has the declared type, or the ground truth's variable type."""
    variable_type = answer_type(acceptable)
    is_variable = variable_type is not None and variable_type != expected
    result = TypeCheck(True)
    if type(value) == expected:  # noqa: E721 - exact type equality is the official rule
        if nested is None or _elements_match(param, value, acceptable, nested):
            return _VARIABLE if is_variable else _PLAIN
        result = TypeCheck(
            False,
            error_type="type_error:nested",
            errors=[
                f"Nested type checking failed for parameter {param!r}. Expected outer type "
                f"{declared} with inner type {nested}. Parameter value: {value!r}."
            ],
        )
    if variable_type is not None and type(value) == variable_type:  # noqa: E721
        result.is_variable = True
        return result
    result.valid = False
    result.error_type = "type_error:simple"
    result.errors.append(
        f"Incorrect type for parameter {param!r}. Expected type {declared}, "
        f"got {type(value).__name__}. Parameter value: {value!r}."
    )
    return result


def _elements_match(param: str, value: Any, acceptable: list[Any], nested: type) -> bool:
    """True when some acceptable item admits every element's type.

    [quirk] An acceptable item that is not a list (such as `""`) admits anything.
    """
    for item in acceptable:
        if type(item) is not list:
            return True
        if all(
            check_type(param, element, item, str(nested), nested, None).valid for element in value
        ):
            return True
    return False
