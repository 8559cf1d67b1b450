"""Pieces the family decoders share: the official call-string renderings and a literal
evaluator standing in for the handlers' `eval`.

The official handlers render execution strings in two spellings, `name(a=1,b='x')` (no space,
`convert_to_function_call` and most handlers) and `name(a=1, b='x')` (a few); which one a
handler uses decides what multi-turn executes, so both exist here under their own names.
"""

from __future__ import annotations

import ast
import builtins
from collections.abc import Callable
from typing import Any

from fcbench.decode.arithmetic import UnsafeExpression, evaluate
from fcbench.decode.families import FamilyDecoder


def call_string(name: Any, arguments: Any, separator: str = ",") -> str:
    """`name(k1=repr(v1)<sep>k2=repr(v2))`; raises where `arguments.items()` would."""
    if not isinstance(arguments, dict):
        raise AttributeError(f"'{type(arguments).__name__}' object has no attribute 'items'")
    return f"{name}({separator.join(f'{k}={v!r}' for k, v in arguments.items())})"


def paired(calls: Callable[[Any], list[tuple[Any, Any]]], separator: str = ",") -> FamilyDecoder:
    """The decoders of a family whose handler reads (name, arguments) pairs out of a result:
    `decode_ast` gives `[{name: arguments}]`, `decode_execute` the call strings."""
    return FamilyDecoder(
        lambda result, _language: [{name: args} for name, args in calls(result)],
        lambda result: [call_string(name, args, separator) for name, args in calls(result)],
    )


def convert_to_function_call(calls: Any) -> list[str]:
    """The official `convert_to_function_call`: `[{name: args}]` (a lone dict allowed,
    JSON-string arguments decoded) -> call strings without spaces; the FC mode's renderer."""
    from fcbench.decode.execute import fc_json_string_calls

    return fc_json_string_calls(calls)


def literal_eval(text: Any) -> Any:
    """The value Python's `eval(text)` has when `text` is a literal expression (containers,
    numbers, strings, True/False/None, arithmetic); names and calls raise, as `eval` does
    for unknown names. Model text is parsed, never run."""
    if not isinstance(text, str):
        raise TypeError("eval() arg 1 must be a string, bytes or code object")
    # eval drops leading spaces and tabs, and names its source "<string>" in errors
    tree = ast.parse(text.lstrip(" \t"), filename="<string>", mode="eval")
    try:
        return evaluate(tree.body)
    except UnsafeExpression:
        name = first_name(tree.body)
        if name is None or name in dir(builtins):
            raise
        raise NameError(f"name '{name}' is not defined") from None


def first_name(node: ast.AST) -> str | None:
    """The first name Python would look up evaluating `node` (what `eval` fails on)."""
    if isinstance(node, ast.Name):
        return node.id
    children: list[ast.AST]
    if isinstance(node, ast.Dict):  # evaluated key, value, key, value...
        children = [n for pair in zip(node.keys, node.values, strict=True) for n in pair if n]
    else:
        children = list(ast.iter_child_nodes(node))
    for child in children:
        found = first_name(child)
        if found is not None:
            return found
    return None


def require_list_of_dicts(result: Any) -> list[dict[Any, Any]]:
    """The handlers' guard: anything but a list of dicts is "not a list of function calls"."""
    if type(result) is not list or any(type(item) is not dict for item in result):
        raise ValueError(f"Model did not return a list of function calls: {result}")
    return result
