"""MiniCPM3-FC: a thought block, then the calls as Python statements in a fenced block
between `<|tool_call_start|>` and `<|tool_call_end|>`, then free text.

The handler's `fc2dict` splits the text at those markers, strips the fence (with `lstrip`,
so a leading run of the letters of "python" goes too) and parses the statements with Python's
`ast` (never run); each must be a call, resolved like the benchmark's own decoder. Anything
that fails leaves the text as the answer, which then fails the shape check.
"""

from __future__ import annotations

import ast
from typing import Any

from fcbench.core.categories import Language
from fcbench.decode.budget import Budget, OverBudget
from fcbench.decode.families import FamilyDecoder
from fcbench.decode.families.common import call_string
from fcbench.decode.python_calls import resolve_call

CALL_START, CALL_END = "<|tool_call_start|>", "<|tool_call_end|>"
THOUGHT_START, THOUGHT_END = "<|thought_start|>", "<|thought_end|>"


def fc2dict(sequence: Any) -> dict[str, Any]:
    """The handler's reading of one answer: `content` and, when calls parsed, `tool_calls`."""
    thought = ""
    if THOUGHT_END in sequence and THOUGHT_START in sequence:
        thought, sequence = sequence.rsplit(THOUGHT_END, 1)
        thought = thought.split(THOUGHT_START, 1)[1]
    if not (CALL_START in sequence and CALL_END in sequence):
        return {"content": sequence.strip(), "role": "assistant", "thought": thought}
    calls_text, content = sequence.rsplit(CALL_END, 1)
    calls_text = calls_text.split(CALL_START, 1)[1]
    try:
        calls = _statement_calls(calls_text)
    except OverBudget:
        raise  # recorded with its reason (the handler's `eval` would run out of memory)
    except (Exception, RecursionError):  # the handler's bare except
        return {"content": content.strip(), "role": "assistant", "thought": thought}
    return {"content": content.strip(), "tool_calls": calls, "role": "assistant"}


def _statement_calls(text: str) -> list[dict[str, Any]]:
    text = text.strip()
    if text.startswith("```"):
        text = text.lstrip("`").strip()
        if text.startswith("python"):
            text = text.lstrip("python").strip()
    if text.endswith("```"):
        text = text.rstrip("`").strip()
    calls = []
    budget = Budget()
    for statement in ast.parse(text).body:
        value = statement.value  # type: ignore[attr-defined]  # AttributeError: not a call
        if not isinstance(value, ast.Call):
            raise AssertionError("not a call")
        for name, args in resolve_call(value, budget).items():
            calls.append({"name": name, "arguments": args})
    return calls


def _tool_calls(result: Any) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    message = fc2dict(result)
    return message.get("tool_calls") or [], message


def minicpm_ast(result: Any, language: Language) -> Any:
    calls, message = _tool_calls(result)
    if calls:
        return [{call["name"]: call["arguments"]} for call in calls]
    return message["content"]


def minicpm_execute(result: Any) -> list[str]:
    calls, _ = _tool_calls(result)
    return [call_string(call["name"], call["arguments"], ", ") for call in calls]


MINICPM_FC = FamilyDecoder(minicpm_ast, minicpm_execute)
