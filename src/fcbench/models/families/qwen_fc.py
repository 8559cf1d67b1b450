"""Qwen 3 with its own tool prompt (`qwen_fc.py QwenFCHandler`).

The function docs go into the system turn as one JSON line each inside `<tools>`, with Qwen's
instructions to answer in `<tool_call>` blocks; the case's own system message, if any, comes
first. Calls the model made are kept in the history as `tool_calls` and rendered back as
`<tool_call>` blocks.
"""

from __future__ import annotations

import json
from typing import Any

from fcbench.decode.families.tagged import extract_tool_calls
from fcbench.models.families.base import Doc, Family, Message, Parsed, own_system_prompt
from fcbench.models.families.qwen import IM_END, IM_START, render_turns, split_reasoning

TOOLS_INTRO = (
    "# Tools\n\nYou may call one or more functions to assist with the user query.\n\n"
    "You are provided with function signatures within <tools></tools> XML tags:\n<tools>"
)
TOOLS_OUTRO = (
    "\n</tools>\n\nFor each function call, return a json object with function name and "
    "arguments within <tool_call></tool_call> XML tags:\n<tool_call>\n"
    '{"name": <function-name>, "arguments": <args-json-object>}\n</tool_call>'
)


def tools_block(functions: list[Doc]) -> str:
    """`# Tools ... <tools>` with one compact JSON doc a line, then the call instructions."""
    return TOOLS_INTRO + "".join(f"\n{json.dumps(doc)}" for doc in functions) + TOOLS_OUTRO


def system_block(messages: list[Message], functions: list[Doc], default_system: str) -> str:
    """The system turn: the case's system text (or `default_system`) then the tools; without
    docs only the case's system message, if it has one."""
    if functions:
        system = default_system
        if messages[0]["role"] == "system":
            system = messages[0]["content"] + "\n\n"
        return f"{IM_START}system\n{system}{tools_block(functions)}{IM_END}\n"
    if messages[0]["role"] == "system":
        return f"{IM_START}system\n{messages[0]['content']}{IM_END}\n"
    return ""


def render(messages: list[Message], functions: list[Doc]) -> str:
    return system_block(messages, functions, "") + render_turns(messages, with_calls=True)


def parse(text: str) -> Parsed:
    """The cleaned answer is stored; the history keeps the parsed calls (or the answer)."""
    calls = extract_tool_calls(text)
    reasoning, answer = split_reasoning(text)
    message: dict[str, Any] = (
        {"role": "assistant", "content": "", "tool_calls": calls}
        if calls else {"role": "assistant", "content": answer}
    )
    message["reasoning_content"] = reasoning
    return Parsed(answer, message, reasoning)


FAMILY = Family("qwen-fc", "qwen_fc.py QwenFCHandler", render, own_system_prompt, parse, fc=True)
