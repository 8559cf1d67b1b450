"""Granite 4 (`granite_4.py Granite4FCHandler`): Granite's role tokens around Qwen-style
`<tools>` docs and `<tool_call>` / `<tool_response>` blocks.

The tools text follows the case's system message (a blank line between) or stands alone;
without docs or a system message Granite's default system sentence is used. The stored
result is the raw completion; the history keeps the parsed calls.
"""

from __future__ import annotations

import json
from typing import Any

from fcbench.decode.families.tagged import extract_tool_calls
from fcbench.models.families.base import Doc, Family, Message, Parsed, own_system_prompt
from fcbench.models.families.qwen import tool_call_blocks, tool_response

START, END_ROLE, END = "<|start_of_role|>", "<|end_of_role|>", "<|end_of_text|>"
TOOLS_PREFIX = (
    "You are a helpful assistant with access to the following tools. You may call one or "
    "more tools to assist with the user query.\n\nYou are provided with function signatures "
    "within <tools></tools> XML tags:\n<tools>"
)
TOOLS_SUFFIX = (
    "\n</tools>\n\nFor each tool call, return a json object with function name and arguments "
    "within <tool_call></tool_call> XML tags:\n<tool_call>\n"
    '{"name": <function-name>, "arguments": <args-json-object>}\n</tool_call>. If a tool does '
    "not exist in the provided list of tools, notify the user that you do not have the "
    "ability to fulfill the request."
)
DEFAULT_SYSTEM = (
    "You are a helpful assistant. Please ensure responses are professional, accurate, and safe."
)


def _system(messages: list[Message], functions: list[Doc]) -> str:
    tools = ""
    if functions:
        tools = TOOLS_PREFIX + "".join("\n" + json.dumps(doc) for doc in functions) + TOOLS_SUFFIX
    if messages[0]["role"] == "system":
        text = str(messages[0]["content"])
        return text + "\n\n" + tools if tools else text
    return tools or DEFAULT_SYSTEM


def render(messages: list[Message], functions: list[Doc]) -> str:
    out = f"{START}system{END_ROLE}{_system(messages, functions)}{END}\n"
    first = 1 if messages[0]["role"] == "system" else 0
    for index in range(first, len(messages)):
        message = messages[index]
        role, content = message["role"], message["content"]
        if role == "user" or (role == "system" and index > 0):
            out += f"{START}{role}{END_ROLE}{content}{END}\n"
        elif role == "assistant":
            out += f"{START}{role}{END_ROLE}{content}"
            if "tool_calls" in message:
                out += tool_call_blocks(message, content)
            out += f"{END}\n"
        elif role == "tool":
            out += tool_response(messages, index, f"{START}user{END_ROLE}", f"{END}\n")
    return out + f"{START}assistant{END_ROLE}"


def parse(text: str) -> Parsed:
    calls = extract_tool_calls(text)
    message: dict[str, Any] = (
        {"role": "assistant", "content": "", "tool_calls": calls}
        if calls else {"role": "assistant", "content": text}
    )
    return Parsed(text, message)


FAMILY = Family("granite-4", "granite_4.py Granite4FCHandler", render, own_system_prompt, parse,
                fc=True)
