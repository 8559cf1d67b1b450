"""Pelican1.0-VL (`pelican_vl_fc.py PelicanVLFCHandler`): ChatML with a Qwen-VL-style tools
system turn (its own wording), every message in its own turn, tool results wrapped one per
turn, calls rendered straight before the text. A system message after the first renders as
an empty turn, as in the handler."""

from __future__ import annotations

import json

from fcbench.models.families.base import Doc, Family, Message, own_system_prompt
from fcbench.models.families.qwen import IM_END, IM_START
from fcbench.models.families.qwen_fc import parse

TOOLS_INTRO = (
    "# Tools\n\nYou may call one or more function to assist with the user query."
    "\n\nYou are provided with function signatures within <tools></tools> XML tags:\n<tools>"
)
TOOLS_OUTRO = (
    "\n</tools>\n\nFor each function call, return a json object with functions name and "
    "arguments within <tool_call></tool_call> XML tags:\n<tool_call>\n"
    '{"name": <function-name>, "arguments": <args-json-object>}\n</tool_call>'
)
DEFAULT_SYSTEM = f"{IM_START}system\nYou are a helpful assistant.{IM_END}\n"


def _head(messages: list[Message], functions: list[Doc]) -> tuple[str, bool]:
    """The system turn(s), and whether the first message was used up by them."""
    has_system = bool(messages) and messages[0]["role"] == "system"
    if functions:
        system = messages[0]["content"] + "\n\n" if has_system else ""
        docs = "".join(f"\n{json.dumps(doc)}" for doc in functions)
        return f"{IM_START}system\n{system}{TOOLS_INTRO}{docs}{TOOLS_OUTRO}{IM_END}\n", has_system
    if has_system:
        return f"{IM_START}system\n{messages[0]['content']}{IM_END}\n", True
    return DEFAULT_SYSTEM, False


def _body(message: Message) -> str:
    role, content = message["role"], message["content"]
    if role == "tool":
        return f"<tool_response>\n{content}\n</tool_response>"
    if role == "assistant":
        out = ""
        for call in message.get("tool_calls", []) if "tool_calls" in message else []:
            function = call.get("function", call)
            args = function["arguments"]
            if isinstance(args, dict):
                args = json.dumps(args, ensure_ascii=False)
            name = function["name"]
            out += f'<tool_call>\n{{"name": "{name}", "arguments": {args}}}\n</tool_call>'
        return out + (content if content else "")
    if role == "user" and isinstance(content, str):
        return content
    return ""


def render(messages: list[Message], functions: list[Doc]) -> str:
    out, skip_first = _head(messages, functions)
    for index, message in enumerate(messages):
        if index == 0 and skip_first:
            continue
        out += f"{IM_START}{message['role']}\n{_body(message)}{IM_END}\n"
    return out + f"{IM_START}assistant\n"


FAMILY = Family("pelican-fc", "pelican_vl_fc.py PelicanVLFCHandler", render, own_system_prompt,
                parse, fc=True)
