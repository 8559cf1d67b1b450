"""Families that answer with JSON call objects: xLAM-2 (Llama and Qwen based), BitAgent,
Hammer, ThinkAgent (`{"name", "arguments"}`) and Llama 3.1 (`{"name", "parameters"}`).

Each handler has its own fallbacks, reproduced as they are: xLAM reads a `;`-separated list
when the whole text is not JSON; Hammer drops every ```` ``` ```` and reads a failure as no
call; ThinkAgent reads only what follows `</think>` after turning every `'` into `"`, and its
`decode_execute` fails on any call (it builds strings, then asks them for `.items()`);
Llama 3.1 evaluates the text as a Python literal unless it holds a `;`.
"""

from __future__ import annotations

import json
from typing import Any

from fcbench.core.categories import Language
from fcbench.decode.families import FamilyDecoder
from fcbench.decode.families.common import call_string, literal_eval, paired


def _xlam_calls(result: Any) -> list[Any]:
    try:
        calls = json.loads(result)
        if not isinstance(calls, list):
            calls = [calls]
    except json.JSONDecodeError:
        calls = [json.loads(part.strip()) for part in result.split(";")]
    return calls


def _bitagent_calls(result: Any) -> list[Any]:
    calls = json.loads(result)
    return calls if isinstance(calls, list) else [calls]


def _named(calls: list[Any], key: str = "arguments") -> list[tuple[Any, Any]]:
    return [(call["name"], call[key]) for call in calls]






def _hammer_json(result: Any) -> Any:
    text = result.replace("```", "")
    try:
        return json.loads(text)
    except Exception:  # the handler's bare except: anything unreadable is "no call"
        return []


def hammer_ast(result: Any, language: Language) -> Any:
    return [{name: args} for name, args in _named(_iterate(_hammer_json(result)))]


def hammer_execute(result: Any) -> list[str]:
    value = _hammer_json(result)
    if isinstance(value, list):
        calls = value
    elif isinstance(value, dict):
        calls = value.get("tool_calls", [])
    else:
        calls = []
    if not isinstance(calls, list):
        calls = [calls]
    rendered = []
    for call in calls:
        if isinstance(call, dict):
            rendered.append(call_string(call.get("name", ""), call.get("arguments", {}), ", "))
    return rendered


def _iterate(value: Any) -> list[Any]:
    if isinstance(value, (list, tuple, str, dict)):
        return list(value)
    raise TypeError(f"'{type(value).__name__}' object is not iterable")


def _think_agent_calls(result: Any) -> list[Any]:
    text = result.strip().replace("'", '"')
    parts = text.split("</think>", 1)
    return _iterate(json.loads(parts[1].strip() if len(parts) > 1 else "[]"))


def think_agent_ast(result: Any, language: Language) -> Any:
    return [{name: args} for name, args in _named(_think_agent_calls(result))]


def think_agent_execute(result: Any) -> list[str]:
    strings = [f"{name}({args})" for name, args in _named(_think_agent_calls(result))]
    if strings:  # the handler iterates these strings' `.items()`
        raise AttributeError("'str' object has no attribute 'items'")
    return []


def _llama_calls(result: Any) -> list[Any]:
    text = result.replace("<|python_tag|>", "")
    if ";" in text:
        return [json.loads(part) for part in text.split(";")]
    calls = literal_eval(text)
    return [calls] if type(calls) is dict else _iterate(calls)




XLAM = paired(lambda result: _named(_xlam_calls(result)))
BITAGENT = paired(lambda result: _named(_bitagent_calls(result)))
HAMMER = FamilyDecoder(hammer_ast, hammer_execute)
THINK_AGENT = FamilyDecoder(think_agent_ast, think_agent_execute)
LLAMA_3_1 = paired(lambda result: _named(_llama_calls(result), "parameters"))
