"""LFM2.x's output decoders (upstream PR #1341, `lfm2.py LFM2Handler`; not in bfcl-eval
2026.3.23).

LFM2.x writes calls as a Python list between `<|tool_call_start|>` and `<|tool_call_end|>`.
The handler reads every such block (`extract_tool_calls`): each block's list is parsed as
Python source, and each element that is a call with a plain or dotted name becomes
`{name, arguments}` from its keyword arguments only; argument values are literals, lists,
tuples, dicts, negated numbers, or bare names taken as their own text (`order=ascending`).
A block that does not parse, or an element with anything else in it, is skipped. When the
text holds no readable call the default decoders run, and any failure of theirs decodes to
no call at all (`[]`) instead of an error.

The block is found without the handler's regex (`decode.spans`'s rule: no rescanning): from
each start marker, optional whitespace and `[`, up to the first end marker preceded by `]`
and optional whitespace after that `[`. Source text is parsed with `ast`, never run.
"""

from __future__ import annotations

import ast
from bisect import bisect_right
from typing import Any

from fcbench.core.categories import Language
from fcbench.decode.families import FamilyDecoder

START, END = "<|tool_call_start|>", "<|tool_call_end|>"


def blocks(text: str) -> list[str]:
    """The inside of each `<|tool_call_start|>[...]<|tool_call_end|>` block, as the
    handler's `findall` returns them (non-overlapping, leftmost first)."""
    found: list[str] = []
    ends = _closings(text)
    at = text.find(START)
    while at != -1:
        bracket = _skip_spaces(text, at + len(START))
        if not text.startswith("[", bracket):
            at = text.find(START, at + 1)
            continue
        index = bisect_right(ends, (bracket, len(text)))
        if index == len(ends):  # no block closes after this one: none after a later one
            break
        close, end = ends[index]
        found.append(text[bracket + 1:close])
        at = text.find(START, end + len(END))
    return found


def _closings(text: str) -> list[tuple[int, int]]:
    """(where its `]` is, where the end marker is) of every end marker preceded by `]` and
    optional whitespace, in order: the places a block can close. Found once, so that each
    start marker looks its closing up instead of rescanning the rest of the text (the
    handler's lazy regex does, quadratic in unclosed blocks: 2 MB of `<|tool_call_start|>[`
    took 55 s)."""
    closings: list[tuple[int, int]] = []
    end = text.find(END)
    while end != -1:
        close = end
        while close > 0 and text[close - 1].isspace():
            close -= 1
        if close > 0 and text[close - 1] == "]":
            closings.append((close - 1, end))
        end = text.find(END, end + 1)
    return closings


def _skip_spaces(text: str, position: int) -> int:
    while position < len(text) and text[position].isspace():
        position += 1
    return position


def value(node: ast.AST) -> Any:
    """The handler's `_eval_node`: the literal subset it accepts (ValueError otherwise)."""
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.List):
        return [value(item) for item in node.elts]
    if isinstance(node, ast.Tuple):
        return tuple(value(item) for item in node.elts)
    if isinstance(node, ast.Dict):
        if any(key is None for key in node.keys):  # `**spread`: not a node it knows
            raise ValueError("unsupported dict unpacking")
        return {value(k): value(v) for k, v in zip(node.keys, node.values, strict=True)
                if k is not None}
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return -value(node.operand)
    raise ValueError(f"unsupported node {type(node).__name__}")


def function_name(node: ast.AST) -> str:
    """A plain or dotted name (ValueError otherwise)."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return function_name(node.value) + "." + node.attr
    raise ValueError(f"invalid function name {type(node).__name__}")


def extract_tool_calls(text: Any) -> list[tuple[str, dict[Any, Any]]]:
    """(name, keyword arguments) of every readable call in every block; [] when none."""
    if not text:
        return []
    if not isinstance(text, str):
        raise TypeError("expected string or bytes-like object")
    calls: list[tuple[str, dict[Any, Any]]] = []
    for inner in blocks(text):
        try:
            elements = ast.parse(f"x = [{inner}]").body[0].value.elts  # type: ignore[attr-defined]
        except (Exception, RecursionError):
            continue
        for element in elements:
            if not isinstance(element, ast.Call):
                continue
            try:
                name = function_name(element.func)
                arguments = {kw.arg: value(kw.value) for kw in element.keywords}
            except (Exception, RecursionError):
                continue
            calls.append((name, arguments))
    return calls


def lfm2_ast(result: Any, language: Language) -> Any:
    calls = extract_tool_calls(result)
    if calls:
        return [{name: arguments} for name, arguments in calls]
    from fcbench.decode.families.default import default_ast

    try:
        return default_ast(result, language)
    except Exception:
        return []


def lfm2_execute(result: Any) -> list[str]:
    from fcbench.decode.families.common import call_string

    calls = extract_tool_calls(result)
    if calls:
        return [call_string(name, arguments, ", ") for name, arguments in calls]
    from fcbench.decode.families.default import default_execute

    try:
        return default_execute(result)
    except Exception:
        return []


LFM2 = FamilyDecoder(lfm2_ast, lfm2_execute)
