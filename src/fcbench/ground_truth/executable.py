"""The ground-truth model's answers to the executable categories (exec_* and rest).

An exec case's ground truth is a list of call strings (`calc_binomial_probability(n=20, k=5,
p=0.6)`); a rest case's answer file holds only a sample response, so its call is the request
the release's sanity-check data gives for it (`extras["reference_call"]`, see
`dataset.exec_probes`). The answer is those calls, in FC mode as `{name: json arguments}`
(dots in names as underscores), in prompt mode as the bracketed call list.

Arguments are read with `ast`, never evaluated: literals as written, arithmetic between
literals (`p=1/6`, `500*500`) computed by the decoder's guarded evaluator, so that FC
arguments are plain JSON values. A positional argument gets its parameter's name from the
function doc: prompt-mode decoding drops positional arguments (spec §4.2), so the dataset's own
text `calculate_mean([1, 3, 4])` would decode to a call without arguments.
"""

from __future__ import annotations

import ast
import json
from typing import Any

from fcbench.core.model import TestCase
from fcbench.decode.arithmetic import UnsafeExpression, evaluate
from fcbench.decode.budget import OverBudget, check_raw
from fcbench.models.base import Mode
from fcbench.models.tools import fc_name

ExecCall = tuple[str, dict[str, Any]]


class GroundTruthCallError(ValueError):
    """A ground-truth call string that is not a plain call with literal arguments."""


def exec_answer(case: TestCase, mode: Mode) -> Any:
    """The stored result of the case's ground-truth calls, in `mode`."""
    calls = [read_call(text, case.functions) for text in ground_truth_calls(case)]
    if mode == "fc":
        return [{fc_name(name): json.dumps(args)} for name, args in calls]
    return "[" + ", ".join(render_call(name, args) for name, args in calls) + "]"


def ground_truth_calls(case: TestCase) -> list[str]:
    """The call strings that answer the case (a rest case: its reference request)."""
    if isinstance(case.possible_answer, list):
        return [str(call) for call in case.possible_answer]
    reference = case.extras.get("reference_call")
    if isinstance(reference, str):
        return [reference]
    raise GroundTruthCallError(f"{case.id}: no ground-truth call (the data lacks its probe)")


def read_call(text: str, functions: list[dict[str, Any]]) -> ExecCall:
    """`name(args)` -> (dotted name, keyword arguments with literal values).

    The call text comes from a data file, possibly a custom one: any text it cannot read (too
    long, too deep for the parser, arithmetic past the decoding budget) is a
    `GroundTruthCallError` naming it, never a traceback."""
    try:
        check_raw(text)
        node = ast.parse(text.strip(), mode="eval").body
    except SyntaxError as exc:
        raise GroundTruthCallError(f"not a call: {_shown(text)} ({exc.msg})") from None
    except (OverBudget, ValueError, RecursionError, MemoryError) as exc:
        # ValueError: a null character; RecursionError/MemoryError: the parser's nesting limit.
        raise GroundTruthCallError(f"not a call: {_shown(text)} ({_reason(exc)})") from None
    if not isinstance(node, ast.Call):
        raise GroundTruthCallError(f"not a call: {text!r}")
    name = ast.unparse(node.func)
    params = _parameter_names(name, functions)
    args: dict[str, Any] = {}
    try:
        for position, arg in enumerate(node.args):
            if position >= len(params):
                raise GroundTruthCallError(f"{text!r}: more positional arguments than parameters")
            args[params[position]] = evaluate(arg)
        for keyword in node.keywords:
            if keyword.arg is None:
                raise GroundTruthCallError(f"{text!r}: ** arguments")
            args[keyword.arg] = evaluate(keyword.value)
    except (UnsafeExpression, OverBudget, RecursionError) as exc:
        raise GroundTruthCallError(f"{_shown(text)}: {_reason(exc)}") from None
    return name, args


def _shown(text: str, limit: int = 200) -> str:
    """The call text as an error message quotes it: cut, so that one line stays one line."""
    return repr(text) if len(text) <= limit else repr(text[:limit]) + f"... ({len(text):,} chars)"


def _reason(exc: BaseException) -> str:
    return str(exc) or type(exc).__name__


def _parameter_names(name: str, functions: list[dict[str, Any]]) -> list[str]:
    for doc in functions:
        if doc.get("name") == name:
            properties = (doc.get("parameters") or {}).get("properties") or {}
            return [str(p) for p in properties]
    return []


def render_call(name: str, args: dict[str, Any]) -> str:
    """`name(k=<Python literal>, ...)`, as a prompt-mode model writes a call."""
    return f"{name}({', '.join(f'{key}={value!r}' for key, value in args.items())})"
