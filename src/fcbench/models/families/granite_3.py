"""Granite 3.1/3.2 (`granite_3.py Granite3FCHandler`): Granite's role tokens, a default system
text (dated 29 April 2025) that mentions tools only when the case has no system message, the
docs as indented JSON in a `tools` turn, and no assistant turn opened at the end, as in the
handler. Calls are read like Phi-FC's, after `<tool_call>` or `<|tool_call|>`."""

from __future__ import annotations

import re

from fcbench.models.doc_formats import indented_json
from fcbench.models.families.base import Doc, Family, Message, Parsed, own_system_prompt
from fcbench.models.families.phi_fc import read_calls, stored

DEFAULT_SYSTEM = (
    "Knowledge Cutoff Date: April 2024.\nToday's Date: April 29, 2025.\n"
    "You are Granite, developed by IBM."
)
TOOLS_SENTENCE = (
    " You are a helpful AI assistant with access to the following tools. When a tool is "
    "required to answer the user's query, respond with <|tool_call|> followed by a JSON list "
    "of tools used. If a tool does not exist in the provided list of tools, notify the user "
    "that you do not have the ability to fulfill the request."
)
_TAG = re.compile(r"<tool_call>(.*)", re.DOTALL)
_PIPE_TAG = re.compile(r"<\|tool_call\|>(.*)", re.DOTALL)


def render(messages: list[Message], functions: list[Doc]) -> str:
    if messages[0]["role"] == "system":
        system, messages = messages[0]["content"], messages[1:]
    else:
        system = DEFAULT_SYSTEM + (TOOLS_SENTENCE if functions else "")
    out = f"<|start_of_role|>system<|end_of_role|>{system}<|end_of_text|>\n"
    if functions:
        docs = indented_json(functions)
        out += f"<|start_of_role|>tools<|end_of_role|>{docs}<|end_of_text|>\n"
    return out + "".join(
        f"<|start_of_role|>{m['role']}<|end_of_role|>{m['content']}<|end_of_text|>\n"
        for m in messages
    )


def parse(text: str) -> Parsed:
    # [quirk] the handler strips any leading run of these letters, not the word
    body = text.lstrip("ASSINT:").lstrip()  # noqa: B005
    if "<tool_call>" in body:
        matches = _TAG.findall(body.replace("</tool_call>", ""))
    else:
        matches = _PIPE_TAG.findall(body)
    calls = read_calls([match.strip() for match in matches])
    return Parsed(stored(text, calls), {"role": "assistant", "content": text})


FAMILY = Family("granite-3", "granite_3.py Granite3FCHandler", render, own_system_prompt, parse,
                fc=True)
