"""Phi-4-mini with tools (`phi_fc.py PhiFCHandler`): the docs as JSON lines between `<|tool|>`
and `<|/tool|>` in the system turn; the handler stores the calls it reads from
`<|tool_call|>[...]<|/tool_call|>` as `[{name: arguments}]` (the text when there are none)
and keeps the raw text in the history."""

from __future__ import annotations

import contextlib
import json
from typing import Any

from fcbench.decode.families.common import literal_eval
from fcbench.decode.spans import tagged_bodies
from fcbench.models.families.base import Doc, Family, Message, Parsed, own_system_prompt

_OPENING, _CLOSING = "<|tool_call|>", "<|/tool_call|>"


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


def open_body(text: str) -> list[str]:
    """What the handler's fallback `re.findall(r"<\\|tool_call\\|>(.*?)(?:<\\|/tool_call\\|>)?$",
    text, re.DOTALL)` returns, found without rescanning the text from every tag (quadratic):
    from the first tag to the earliest end the optional closing tag and `$` allow (`$` also
    holds before a final newline); the match takes the text to its end, so there is no other."""
    opened = text.find(_OPENING)
    if opened < 0:
        return []
    start = opened + len(_OPENING)
    ends = [len(text)]
    ends += [len(text) - len(tail) for tail in ("\n", _CLOSING, _CLOSING + "\n")
             if text.endswith(tail)]
    return [text[start:min(end for end in ends if end >= start)]]


def parse(text: str) -> Parsed:
    matches = tagged_bodies(text, _OPENING, _CLOSING) or open_body(text)
    return Parsed(stored(text, read_calls(matches)), {"role": "assistant", "content": text})


FAMILY = Family("phi-fc", "phi_fc.py PhiFCHandler", render, own_system_prompt, parse, fc=True)
