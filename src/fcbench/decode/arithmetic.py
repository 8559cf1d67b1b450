"""Safe evaluation of the arithmetic that models write inside call arguments.

The official decoder evaluates a binary operation such as `3*2` or `1/6` found in an argument
by handing its source to Python's `eval`. fcbench never evaluates model text: it walks the
parsed expression itself, allowing literals, containers and arithmetic operators only, and
refusing anything that could run code or exhaust memory. Results equal Python's for every
accepted expression; names and calls raise `UnsafeExpression`, which the decoder reports as
a decoding failure (as the official `eval` does for an unknown name).
"""

from __future__ import annotations

import ast
import operator
from collections.abc import Callable
from typing import Any

MAX_EXPONENT = 10_000
MAX_SEQUENCE = 1_000_000
MAX_INT_BITS = 100_000


class UnsafeExpression(ValueError):
    """The expression is not pure literal arithmetic, or is too large to compute."""


_BINARY: dict[type[ast.operator], Callable[[Any, Any], Any]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
    ast.Pow: operator.pow,
    ast.BitAnd: operator.and_,
    ast.BitOr: operator.or_,
    ast.BitXor: operator.xor,
    ast.LShift: operator.lshift,
    ast.RShift: operator.rshift,
}

_UNARY: dict[type[ast.unaryop], Callable[[Any], Any]] = {
    ast.USub: operator.neg,
    ast.UAdd: operator.pos,
    ast.Not: operator.not_,
    ast.Invert: operator.invert,
}


def evaluate(node: ast.expr) -> Any:
    """The value of a literal arithmetic expression, computed without `eval`."""
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
        items = [evaluate(e) for e in node.elts]
        return {ast.List: list, ast.Tuple: tuple, ast.Set: set}[type(node)](items)
    if isinstance(node, ast.Dict):
        if any(k is None for k in node.keys):
            raise UnsafeExpression("dict unpacking is not a literal")
        return {evaluate(k): evaluate(v) for k, v in zip(node.keys, node.values, strict=True)}  # type: ignore[arg-type]
    if isinstance(node, ast.UnaryOp):
        return _UNARY[type(node.op)](evaluate(node.operand))
    if isinstance(node, ast.BinOp):
        op = _BINARY.get(type(node.op))
        if op is None:
            raise UnsafeExpression(f"operator {type(node.op).__name__} is not allowed")
        left, right = evaluate(node.left), evaluate(node.right)
        _guard(node.op, left, right)
        return op(left, right)
    if isinstance(node, ast.Name):
        raise UnsafeExpression(f"name {node.id!r} is not defined")
    raise UnsafeExpression(f"{type(node).__name__} is not literal arithmetic")


def _guard(op: ast.operator, left: Any, right: Any) -> None:
    """Refuse operations whose result would be huge (`10**10**10`, `'a'*10**9`)."""
    if isinstance(op, ast.Pow) and _is_int(left) and _is_int(right):
        if abs(right) > MAX_EXPONENT and abs(left) > 1:
            raise UnsafeExpression("exponent too large")
        if right > 0 and abs(left) > 1 and right * abs(left).bit_length() > MAX_INT_BITS:
            raise UnsafeExpression("result too large")
    if isinstance(op, ast.Mod) and isinstance(left, (str, bytes)):
        raise UnsafeExpression("string formatting is not arithmetic")
    if isinstance(op, ast.LShift) and _is_int(right) and right > MAX_INT_BITS:
        raise UnsafeExpression("shift too large")
    if isinstance(op, ast.Mult):
        for seq, count in ((left, right), (right, left)):
            if _is_sequence(seq) and _is_int(count) and len(seq) * count > MAX_SEQUENCE:
                raise UnsafeExpression("sequence too large")
        bits = abs(left).bit_length() + abs(right).bit_length() if _is_ints(left, right) else 0
        if bits > MAX_INT_BITS:
            raise UnsafeExpression("result too large")


def _is_int(value: Any) -> bool:
    return isinstance(value, int)


def _is_ints(*values: Any) -> bool:
    return all(isinstance(v, int) for v in values)


def _is_sequence(value: Any) -> bool:
    return isinstance(value, (str, bytes, list, tuple))
