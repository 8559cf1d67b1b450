"""Ministral-8B with tools (`mistral_fc.py MistralFCHandler`): `[AVAILABLE_TOOLS]` before the
last user message, `[INST]...[/INST]` turns (the system text joins the last message when
that message is a user's), calls kept as `[TOOL_CALLS][...]` with a 9-character id per call
and results as `[TOOL_RESULTS]{"content", "call_id"}`.

The handler draws the ids at random; `new_call_id` is the one place they come from.
"""

from __future__ import annotations

import json
import random
import string
from typing import Any

from fcbench.models.families.base import Doc, Family, Message, Parsed, own_system_prompt

_ID_CHARS = string.ascii_letters + string.digits


def new_call_id() -> str:
    """A call id as Mistral's template wants it: 9 letters or digits."""
    return "".join(random.choices(_ID_CHARS, k=9))


def tools_text(functions: list[Doc]) -> str:
    """`[AVAILABLE_TOOLS][...]` with string values written unescaped, as the template does."""
    docs = []
    for doc in functions:
        fields = ", ".join(
            f'"{key}": "{value}"' if isinstance(value, str) else f'"{key}": {json.dumps(value)}'
            for key, value in doc.items() if key != "return"
        )
        docs.append('{"type": "function", "function": {' + fields + "}}")
    return "[AVAILABLE_TOOLS][" + ", ".join(docs) + "][/AVAILABLE_TOOLS]"


def render(messages: list[Message], functions: list[Doc]) -> str:
    system = None
    if messages[0]["role"] == "system":
        system, messages = messages[0]["content"], messages[1:]
    users = [m for m in messages if m["role"] == "user"]
    out = "<s>"
    for index, message in enumerate(messages):
        role = message["role"]
        if role == "user":
            if functions and message == users[-1]:
                out += tools_text(functions)
            if index == len(messages) - 1 and system:
                out += f"[INST]{system}\n\n{message['content']}[/INST]"
            else:
                out += f"[INST]{message['content']}[/INST]"
        elif role == "assistant":
            out += f"{message['content']}</s>"
        elif role == "tool":
            result = {"content": message["content"], "call_id": message["tool_call_id"]}
            out += f"[TOOL_RESULTS]{json.dumps(result)}[/TOOL_RESULTS]"
    return out


def parse(text: str) -> Parsed:
    try:
        calls: Any = json.loads(text)
    except json.JSONDecodeError:
        return Parsed(text, {"role": "assistant", "content": text})
    ids = []
    for call in calls:
        call["id"] = new_call_id()
        ids.append(call["id"])
    history = f"[TOOL_CALLS]{json.dumps(calls)}"
    stored = [{call["name"]: call["arguments"]} for call in calls]
    return Parsed(stored, {"role": "assistant", "content": history}, tool_call_ids=ids)


def id_results(calls: list[str], results: list[str], tool_call_ids: list[str]) -> list[Message]:
    return [{"role": "tool", "tool_call_id": call_id, "content": result}
            for result, call_id in zip(results, tool_call_ids, strict=False)]


FAMILY = Family("mistral-fc", "mistral_fc.py MistralFCHandler", render, own_system_prompt, parse,
                id_results)
