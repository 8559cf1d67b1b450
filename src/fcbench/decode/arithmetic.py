"""Safe evaluation of the arithmetic that models write inside call arguments.

The official decoder evaluates a binary operation such as `3*2` or `1/6` found in an argument
by handing its source to Python's `eval`. fcbench never evaluates model text: it walks the
parsed expression itself, allowing literals, containers and arithmetic operators only, and
refusing anything that could run code or exhaust memory. Results equal Python's for every
accepted expression; names and calls raise `UnsafeExpression`, which the decoder reports as
a decoding failure (as the official `eval` does for an unknown name).

Every value is evaluated with its size (`decode.budget`: elements through nesting and shared
repetition, characters, integer bytes), and every computed value is charged to the decoding's
`Budget` before it is built, so `[[[0]*1000]*1000]*1000` or a chain of `+` is refused
(`OverBudget`) at once instead of computing gigabytes.
"""

from __future__ import annotations

import ast
import operator
from collections.abc import Callable
from typing import Any

from fcbench.decode.budget import MAX_EXPONENT, MAX_INT_BITS, Budget, OverBudget


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

_SYMBOLS: dict[type[ast.operator], str] = {
    ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//", ast.Mod: "%",
    ast.Pow: "**", ast.BitAnd: "&", ast.BitOr: "|", ast.BitXor: "^", ast.LShift: "<<",
    ast.RShift: ">>",
}
"""How an operator is written (for the reason of a refusal)."""

_UNARY: dict[type[ast.unaryop], Callable[[Any], Any]] = {
    ast.USub: operator.neg,
    ast.UAdd: operator.pos,
    ast.Not: operator.not_,
    ast.Invert: operator.invert,
}


def evaluate(node: ast.expr, budget: Budget | None = None) -> Any:
    """The value of a literal arithmetic expression, computed without `eval`.

    `budget` is the decoding's (shared by every expression of one answer); a fresh one when
    the expression is decoded on its own."""
    return _evaluate(node, budget if budget is not None else Budget())[0]


def _evaluate(node: ast.expr, budget: Budget) -> tuple[Any, int]:
    """(value, size): the size is what `budget` counts, computed alongside the value."""
    if isinstance(node, ast.Constant):
        return node.value, size_of(node.value)
    if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
        items, size = _items(node.elts, budget)
        return {ast.List: list, ast.Tuple: tuple, ast.Set: set}[type(node)](items), size
    if isinstance(node, ast.Dict):
        if any(k is None for k in node.keys):
            raise UnsafeExpression("dict unpacking is not a literal")
        return _dict(node, budget)
    if isinstance(node, ast.UnaryOp):
        value, size = _evaluate(node.operand, budget)
        return _UNARY[type(node.op)](value), size
    if isinstance(node, ast.BinOp):
        return _binary(node, budget)
    if isinstance(node, ast.Name):
        raise UnsafeExpression(f"name {node.id!r} is not defined")
    raise UnsafeExpression(f"{type(node).__name__} is not literal arithmetic")


def _items(nodes: list[ast.expr], budget: Budget) -> tuple[list[Any], int]:
    """A container's items and its size (one for itself, plus its items')."""
    items, size = [], 1
    for element in nodes:
        item, item_size = _evaluate(element, budget)
        items.append(item)
        size += item_size
    return items, size


def _dict(node: ast.Dict, budget: Budget) -> tuple[dict[Any, Any], int]:
    """Key, value, key, value...: Python's order (it decides which error is met first)."""
    result: dict[Any, Any] = {}
    size = 1
    for key_node, value_node in zip(node.keys, node.values, strict=True):
        key, key_size = _evaluate(key_node, budget)  # type: ignore[arg-type]  # no `**`
        value, value_size = _evaluate(value_node, budget)
        result[key] = value
        size += key_size + value_size
    return result, size


def _binary(node: ast.BinOp, budget: Budget) -> tuple[Any, int]:
    """One operation: refused when unsafe, charged before it is computed."""
    op = _BINARY.get(type(node.op))
    if op is None:
        raise UnsafeExpression(f"operator {type(node.op).__name__} is not allowed")
    left, left_size = _evaluate(node.left, budget)
    right, right_size = _evaluate(node.right, budget)
    _guard(node.op, left, right)
    size = _result_size(node.op, left, left_size, right, right_size)
    budget.charge(size, f"`{_SYMBOLS.get(type(node.op), '?')}`")
    result = op(left, right)
    return result, size if not _is_int(result) else size_of(result)


def _result_size(op: ast.operator, left: Any, left_size: int, right: Any, right_size: int) -> int:
    """An upper bound of the result's size, known before computing it.

    Repetition multiplies the repeated value's size (shared items count every time: whoever
    reads the result sees them all); integer results are bounded by `_guard`; every other
    operation builds at most its operands' sizes."""
    if isinstance(op, ast.Mult):
        for seq, seq_size, count in ((left, left_size, right), (right, right_size, left)):
            if _is_sequence(seq) and _is_int(count):
                return 1 + max(seq_size - 1, 0) * max(int(count), 0)
    if _is_ints(left, right):
        return 1 + _int_bits(op, left, right) // 8
    return left_size + right_size


def _int_bits(op: ast.operator, left: int, right: int) -> int:
    """An upper bound of the bits of an integer operation's result (`_guard` bounds these)."""
    left_bits, right_bits = abs(left).bit_length(), abs(right).bit_length()
    if isinstance(op, ast.Mult):
        return left_bits + right_bits
    if isinstance(op, ast.Pow):
        return right * left_bits if right > 0 and left_bits > 1 else 1
    if isinstance(op, ast.LShift):
        return left_bits + max(right, 0)
    return max(left_bits, right_bits) + 1


def size_of(value: Any) -> int:
    """The budget's size of a literal: one per value, plus characters of a string or bytes,
    plus the bytes of an integer (containers are sized as they are evaluated)."""
    if isinstance(value, (str, bytes)):
        return 1 + len(value)
    if isinstance(value, int):
        return 1 + value.bit_length() // 8
    return 1


def _guard(op: ast.operator, left: Any, right: Any) -> None:
    """Refuse operations whose result would be huge (`10**10**10`, `'a'*10**9`)."""
    if isinstance(op, ast.Pow) and _is_int(left) and _is_int(right):
        if abs(right) > MAX_EXPONENT and abs(left) > 1:
            raise OverBudget("exponent too large (decoding budget)")
        if right > 0 and abs(left) > 1 and right * abs(left).bit_length() > MAX_INT_BITS:
            raise OverBudget("result too large (decoding budget)")
    if isinstance(op, ast.Mod) and isinstance(left, (str, bytes)):
        raise UnsafeExpression("string formatting is not arithmetic")
    if isinstance(op, ast.LShift) and _is_int(right) and right > MAX_INT_BITS:
        raise OverBudget("shift too large (decoding budget)")
    int_product = isinstance(op, ast.Mult) and _is_ints(left, right)
    if int_product and abs(left).bit_length() + abs(right).bit_length() > MAX_INT_BITS:
        raise OverBudget("result too large (decoding budget)")


def _is_int(value: Any) -> bool:
    return isinstance(value, int)


def _is_ints(*values: Any) -> bool:
    return all(isinstance(v, int) for v in values)


def _is_sequence(value: Any) -> bool:
    return isinstance(value, (str, bytes, list, tuple))
