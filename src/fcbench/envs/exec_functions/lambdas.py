"""`estimate_derivative` receives a Python lambda as text; this turns it into a function
without `eval`.

The original evaluated the text with Python's `eval` inside its own body. fcbench parses it
and interprets the tree: numbers, the lambda's parameters, arithmetic and comparison-free
expressions, `math.<name>` constants and functions and a few numeric builtins. That covers
every lambda in the data and in real model outputs; anything else (names, attributes
other than math's, subscripts, comprehensions...) raises, where the original might have run
arbitrary code. Text that is not a lambda is evaluated the same way with the function's own
arguments (`x`, `function`) in scope, so `"x**2"` gives a number and calling it then fails
with the original's TypeError.
"""

from __future__ import annotations

import ast
import math
import operator
from collections.abc import Callable, Mapping
from typing import Any

_BINARY: dict[type[ast.operator], Callable[[Any, Any], Any]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
    ast.Pow: operator.pow,
}
_UNARY: dict[type[ast.unaryop], Callable[[Any], Any]] = {
    ast.USub: operator.neg,
    ast.UAdd: operator.pos,
}
_BUILTINS: dict[str, Any] = {
    "abs": abs,
    "pow": pow,
    "round": round,
    "min": min,
    "max": max,
    "float": float,
    "int": int,
}
_MATH = {name: getattr(math, name) for name in dir(math) if not name.startswith("_")}
MAX_SOURCE = 10_000


class LambdaError(ValueError):
    """The text is not something fcbench will interpret (the original would have tried)."""


def compile_lambda(source: Any, scope: Mapping[str, Any]) -> Callable[..., Any]:
    """The function `source` denotes; `scope` holds the names visible to non-lambda text."""
    if not isinstance(source, str):
        raise TypeError("eval() arg 1 must be a string, bytes or code object")
    if len(source) > MAX_SOURCE:
        raise LambdaError("function text too long")
    try:
        body = ast.parse(source.strip(), mode="eval").body
    except SyntaxError as exc:
        raise SyntaxError(f"invalid syntax in function text: {exc.msg}") from None
    if isinstance(body, ast.Lambda):
        return _lambda(body)
    value = _evaluate(body, dict(scope))
    if not callable(value):
        raise TypeError(f"'{type(value).__name__}' object is not callable")
    result: Callable[..., Any] = value
    return result


def _lambda(node: ast.Lambda) -> Callable[..., Any]:
    arguments = node.args
    if arguments.vararg or arguments.kwarg or arguments.kwonlyargs or arguments.defaults:
        raise LambdaError("only plain positional lambda parameters are supported")
    names = [a.arg for a in [*arguments.posonlyargs, *arguments.args]]

    def function(*values: Any) -> Any:
        if len(values) != len(names):
            raise TypeError(
                f"<lambda>() takes {len(names)} positional arguments but {len(values)} were given"
            )
        return _evaluate(node.body, dict(zip(names, values, strict=True)))

    return function


def _evaluate(node: ast.expr, names: dict[str, Any]) -> Any:
    """Interpret one expression node (arithmetic, math names, whitelisted calls)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float, complex)):
        return node.value
    if isinstance(node, ast.Name):
        return _name(node.id, names)
    if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
        return _BINARY[type(node.op)](_evaluate(node.left, names), _evaluate(node.right, names))
    if isinstance(node, ast.UnaryOp) and type(node.op) in _UNARY:
        return _UNARY[type(node.op)](_evaluate(node.operand, names))
    if isinstance(node, ast.Attribute):
        return _math_attribute(node)
    if isinstance(node, ast.Call) and not node.keywords:
        function = _evaluate(node.func, names)
        if not callable(function):
            raise TypeError(f"'{type(function).__name__}' object is not callable")
        return function(*[_evaluate(arg, names) for arg in node.args])
    raise LambdaError(f"{type(node).__name__} is not supported in a function text")


def _name(name: str, names: dict[str, Any]) -> Any:
    if name in names:
        return names[name]
    if name in _BUILTINS:
        return _BUILTINS[name]
    raise NameError(f"name {name!r} is not defined")


def _math_attribute(node: ast.Attribute) -> Any:
    if isinstance(node.value, ast.Name) and node.value.id == "math" and node.attr in _MATH:
        return _MATH[node.attr]
    raise LambdaError("only math.<name> attributes are supported")
