"""Qwen 3 in prompt mode (`qwen.py QwenHandler`), and the Qwen 3 chat layout the Qwen-FC,
Nanbeige and Granite-4-like families share.

The layout is ChatML (`<|im_start|>role\\n...<|im_end|>\\n`) with three twists from Qwen 3's
template: an assistant message after the last real user query gets its reasoning back as a
`<think>` block (the last message always does); a run of `tool` messages is one user turn
of `<tool_response>` blocks; and the reasoning is cut from the stored answer at `</think>`.
"""

from __future__ import annotations

import json
from typing import Any

from fcbench.models.families.base import Doc, Family, Message, Parsed

IM_START, IM_END = "<|im_start|>", "<|im_end|>"


def split_reasoning(text: str) -> tuple[str, str]:
    """(reasoning, answer) as the handlers cut a completion at its last `</think>`."""
    if "</think>" not in text:
        return "", text
    parts = text.split("</think>")
    return parts[0].rstrip("\n").split("<think>")[-1].lstrip("\n"), parts[-1].lstrip("\n")


def last_query_index(messages: list[Message]) -> int:
    """The last user message that is a real query (not a wrapped tool response)."""
    for index in range(len(messages) - 1, -1, -1):
        message = messages[index]
        content = message["content"]
        if message["role"] == "user" and type(content) is str and not (
            content.startswith("<tool_response>") and content.endswith("</tool_response>")
        ):
            return index
    return len(messages) - 1


def tool_call_blocks(message: Message, content: str) -> str:
    """`<tool_call>` blocks for an assistant message's calls (the FC families). The first
    call gets a newline before it only after text; a later call equal to the first gets
    none, because the handlers compare calls by value."""
    out = ""
    calls = message["tool_calls"]
    for call in calls:
        if (call == calls[0] and content) or call != calls[0]:
            out += "\n"
        if "function" in call:
            call = call["function"]
        args = call["arguments"]
        out += '<tool_call>\n{"name": "' + call["name"] + '", "arguments": '
        out += (args if isinstance(args, str) else json.dumps(args)) + "}\n</tool_call>"
    return out


def _assistant(
    message: Message, index: int, messages: list[Message], query: int
) -> tuple[str, str]:
    """The assistant turn's opening and text, and the content left once reasoning is cut."""
    content = message["content"]
    reasoning = ""
    if message.get("reasoning_content"):
        reasoning = message["reasoning_content"]
    elif "</think>" in content:
        reasoning, content = split_reasoning(content)
    head = f"{IM_START}assistant\n"
    if index > query and (index == len(messages) - 1 or reasoning):
        head += "<think>\n" + reasoning.strip("\n") + "\n</think>\n\n" + content.lstrip("\n")
    else:
        head += content
    return head, content


def render_turns(messages: list[Message], with_calls: bool) -> str:
    """Every message after the system block, in the Qwen 3 layout."""
    query = last_query_index(messages)
    out = ""
    for index, message in enumerate(messages):
        role, content = message["role"], message["content"]
        if role == "user" or (role == "system" and index != 0):
            out += f"{IM_START}{role}\n{content}{IM_END}\n"
        elif role == "assistant":
            text, content = _assistant(message, index, messages, query)
            out += text
            if with_calls and "tool_calls" in message:
                out += tool_call_blocks(message, content)
            out += f"{IM_END}\n"
        elif role == "tool":
            out += tool_response(messages, index)
    return out + f"{IM_START}assistant\n"


def tool_response(
    messages: list[Message], index: int, opening: str = f"{IM_START}user",
    closing: str = f"{IM_END}\n",
) -> str:
    """One `<tool_response>` block; a run of tool messages shares one turn (`opening` before
    the first, `closing` after the last)."""
    out = ""
    if index == 0 or messages[index - 1]["role"] != "tool":
        out += opening
    out += f"\n<tool_response>\n{messages[index]['content']}\n</tool_response>"
    if index == len(messages) - 1 or messages[index + 1]["role"] != "tool":
        out += closing
    return out


def render(messages: list[Message], functions: list[Doc]) -> str:
    system = ""
    if messages[0]["role"] == "system":
        system = f"{IM_START}system\n{messages[0]['content']}{IM_END}\n"
    return system + render_turns(messages, with_calls=False)


def parse(text: str) -> Parsed:
    reasoning, answer = split_reasoning(text)
    message: dict[str, Any] = {"role": "assistant", "content": answer,
                               "reasoning_content": reasoning}
    return Parsed(answer, message, reasoning)


FAMILY = Family("qwen", "qwen.py QwenHandler", render, parse=parse)
