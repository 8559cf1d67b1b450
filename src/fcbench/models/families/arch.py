"""Arch-Agent (`arch.py ArchHandler`): Qwen-style ChatML with `<tools>` docs after the system
text (Arch's default sentence when the case has none). The handler stores the calls it found
as `[{name: arguments}]` (text only when there were none) and keeps them in the history,
rendered back as `<tool_call>` blocks."""

from __future__ import annotations

import json
from typing import Any

from fcbench.decode.families.common import literal_eval
from fcbench.decode.families.tagged import TOOL_CALL_BLOCK
from fcbench.decode.spans import tagged_bodies
from fcbench.models.families.base import Doc, Family, Message, Parsed, own_system_prompt
from fcbench.models.families.qwen import IM_END, IM_START, tool_response
from fcbench.models.families.qwen_fc import tools_block

DEFAULT_SYSTEM = (
    "You are a helpful assistant designed to assist with the user query by making one or "
    "more function calls if needed."
)


def _system(messages: list[Message], functions: list[Doc]) -> str:
    system = messages[0]["content"] if messages[0]["role"] == "system" else DEFAULT_SYSTEM
    if not functions:
        return f"{IM_START}system\n{system}{IM_END}\n"
    return f"{IM_START}system\n{system}\n\n{tools_block(functions)}{IM_END}\n"


def _calls(message: Message) -> str:
    out = ""
    for call in message["tool_calls"]:
        if "function" in call:
            call = call["function"]
        name, args = call.get("name", ""), call.get("arguments", {})
        out += f'\n<tool_call>\n{{"name": "{name}", "arguments": {json.dumps(args)}}}\n</tool_call>'
    return out


def render(messages: list[Message], functions: list[Doc]) -> str:
    out = _system(messages, functions)
    for index, message in enumerate(messages):
        role, content = message["role"], message["content"]
        calls = message.get("tool_calls", [])
        if role == "user" or (role == "system" and index != 0) or (
            role == "assistant" and not calls
        ):
            out += f"{IM_START}{role}\n{content}{IM_END}\n"
        elif role == "assistant":
            out += f"{IM_START}{role}" + (f"\n{content}" if content else "")
            out += _calls(message) + f"{IM_END}\n"
        elif role == "tool":
            out += tool_response(messages, index)
    return out + f"{IM_START}assistant\n"


def _extract(text: str) -> list[Any]:
    """Every `<tool_call>` block: its JSON, or its raw text when that is not JSON."""
    found: list[Any] = []
    for body in tagged_bodies(text, *TOOL_CALL_BLOCK):
        try:
            found.append(json.loads(body))
        except ValueError:
            found.append(body)
    return found


def parse(text: str) -> Parsed:
    calls = _extract(text)
    if not calls:
        return Parsed(text, {"role": "assistant", "content": text})
    stored = []
    for call in calls:
        item = literal_eval(call) if type(call) is str else call  # the handler's eval
        stored.append({item["name"]: item["arguments"]})
    return Parsed(stored, {"role": "assistant", "content": None, "tool_calls": calls})


FAMILY = Family("arch", "arch.py ArchHandler", render, own_system_prompt, parse, fc=True)
