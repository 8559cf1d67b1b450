"""Phi-4-mini with tools (`phi_fc.py PhiFCHandler`): the docs as JSON lines between `<|tool|>`
and `<|/tool|>` in the system turn; the handler stores the calls it reads from
`<|tool_call|>[...]<|/tool_call|>` as `[{name: arguments}]` (the text when there are none)
and keeps the raw text in the history."""

from __future__ import annotations

import contextlib
import json
import re
from typing import Any

from fcbench.decode.families.common import literal_eval
from fcbench.models.families.base import Doc, Family, Message, Parsed, own_system_prompt

_CLOSED = re.compile(r"<\|tool_call\|>(.*?)<\|/tool_call\|>", re.DOTALL)
_OPEN = re.compile(r"<\|tool_call\|>(.*?)(?:<\|/tool_call\|>)?$", re.DOTALL)


def render(messages: list[Message], functions: list[Doc]) -> str:
    system = "You are a helpful assistant with some tools."
    if messages[0]["role"] == "system":
        system, messages = messages[0]["content"], messages[1:]
    tools = "".join(json.dumps(doc) + "\n" for doc in functions)
    out = f"<|system|>{system}<|tool|>{tools}<|/tool|><|end|>"
    out += "".join(f"<|{m['role']}|>{m['content']}<|end|>" for m in messages)
    return out + "<|assistant|>"


def read_calls(matches: list[str]) -> list[Any]:
    """Each match as a JSON list (brackets added when missing); strings inside evaluated as
    Python literals (the handler's `eval`); unreadable matches kept as text."""
    found: list[Any] = []
    for match in matches:
        if not match.startswith("[") and not match.endswith("]"):
            match = "[" + match + "]"
        value: Any = match
        with contextlib.suppress(ValueError):
            value = json.loads(match)
        if type(value) is list:
            found.extend(literal_eval(item) if type(item) is str else item for item in value)
        else:
            found.append(value)
    return found


def is_call_list(calls: Any) -> bool:
    """Only `{"name", "arguments"}` pairs count as calls (not docs the model echoed)."""
    return type(calls) is list and all(
        type(c) is dict and "name" in c and "arguments" in c and len(c) == 2 for c in calls
    )


def stored(text: str, calls: list[Any]) -> Any:
    if is_call_list(calls) and calls:
        return [{call["name"]: call["arguments"]} for call in calls]
    return text


def parse(text: str) -> Parsed:
    matches = _CLOSED.findall(text) or _OPEN.findall(text)
    return Parsed(stored(text, read_calls(matches)), {"role": "assistant", "content": text})


FAMILY = Family("phi-fc", "phi_fc.py PhiFCHandler", render, own_system_prompt, parse, fc=True)
